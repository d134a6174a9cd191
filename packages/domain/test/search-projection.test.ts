import { describe, expect, it } from 'vitest';
import { createCore, type SearchIndex } from '../src/index.ts';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '../src/testing/index.ts';
import { as, validMetadata } from './make-core.ts';

const alice = as('alice');

/** An index that refuses any document of the records named in `broken`, as an engine failing on one record would. */
function makeCore() {
  const { repos, uow } = createInMemoryRepositories();
  const clock = createFixedClock('2026-01-01T00:00:00.000Z');
  const inner = createInMemorySearchIndex();
  const broken = new Set<string>();
  let upserts = 0;
  const search: SearchIndex = {
    ...inner,
    async upsert(docs) {
      upserts++;
      const bad = docs.find((d) => broken.has(d.id));
      if (bad) throw new RangeError(`cannot index ${bad.id}`);
      return inner.upsert(docs);
    },
  };
  const core = createCore({
    repos,
    uow,
    storage: createInMemoryFileStorage(() => clock.now()),
    search,
    clock,
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 3, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
  return { core, repos, inner, broken, upserts: () => upserts };
}

const titles = async (core: ReturnType<typeof makeCore>['core']) =>
  (await core.records.searchOwn(alice, 'resource', {})).hits.map((h) => h.record.metadata['title']).sort();

describe('a write whose index update fails', () => {
  it('still succeeds, is durable, is reported, and is indexed by the next projection that works', async () => {
    const { core, broken } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    broken.add(draft.record.id);
    const updated = await core.records.updateDraft(alice, 'resource', draft.record.id, { metadata: { ...validMetadata, title: 'Changed title' } });
    expect(updated.record.metadata['title']).toBe('Changed title');
    expect((await core.records.getDraft(alice, 'resource', draft.record.id)).record.metadata['title']).toBe('Changed title');
    const health = core.search.health();
    expect(health.skipped).toBe(1);
    expect(health.records[0]).toMatchObject({ id: draft.record.id, reason: expect.stringContaining('cannot index') });
    // Missing, not stale: the old title is not served for it.
    expect(await titles(core)).toEqual([]);

    broken.clear();
    await core.search.reindex({ since: '2000-01-01T00:00:00.000Z' });
    expect(core.search.health().skipped).toBe(0);
    expect(await titles(core)).toEqual(['Changed title']);
  });

  it('tells each listener about the record left out', async () => {
    const { core, broken } = makeCore();
    const seen: string[] = [];
    core.search.onSkip((s) => seen.push(s.id));
    const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    broken.add(draft.record.id);
    await core.records.updateDraft(alice, 'resource', draft.record.id, { metadata: validMetadata });
    expect(seen).toEqual([draft.record.id]);
  });
});

describe('reindex', () => {
  it('skips the one record the index cannot take, serves the others and reports the skipped id', async () => {
    const { core, broken } = makeCore();
    const ids: string[] = [];
    for (const title of ['First record', 'Second record', 'Third record']) {
      ids.push((await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title } })).record.id);
    }
    broken.add(ids[1] as string);
    const report = await core.search.reindex();
    expect(report.parents).toBe(3);
    expect(report.skipped.map((s) => s.id)).toEqual([ids[1]]);
    expect(await titles(core)).toEqual(['First record', 'Third record']);
    expect(core.search.health().records.map((s) => s.id)).toEqual([ids[1]]);
  });

  it('indexes a record whose metadata is nested far too deep, leaving out only the deep part', async () => {
    const { core, repos } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: 'Deep funding' } });
    // Written straight into the repository, as a record stored before such metadata was refused
    // (as deep as the in-memory repository's copies allow; the SQLite stack is tested far deeper).
    let funding: unknown = { award: 'zeppelin' };
    for (let i = 0; i < 400; i++) funding = { nested: [funding] };
    const stored = await repos.records.listDrafts(draft.parent.id);
    const record = stored[0];
    if (!record) throw new Error('draft not stored');
    await repos.records.saveDraft({ ...record, metadata: { ...record.metadata, funding } }, record.revisionId);
    const report = await core.search.reindex();
    expect(report.skipped).toEqual([]);
    expect(await titles(core)).toEqual(['Deep funding']);
    expect((await core.records.searchOwn(alice, 'resource', { q: 'zeppelin' })).total).toBe(0);
  });

  it('writes a healthy batch in one upsert, and keeps it when one parent of the batch fails', async () => {
    const { core, broken, upserts } = makeCore();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: `Record ${i}` } })).record.id);
    const before = upserts();
    await core.search.reindex();
    expect(upserts() - before).toBe(1);
    broken.add(ids[2] as string);
    const report = await core.search.reindex();
    expect(report.skipped.map((s) => s.id)).toEqual([ids[2]]);
    expect((await titles(core)).length).toBe(4);
  });
});
