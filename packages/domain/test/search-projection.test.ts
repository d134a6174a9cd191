import { describe, expect, it } from 'vitest';
import { createCore, type Clock, type Repositories, type SearchIndex, type UnitOfWork } from '../src/index.ts';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '../src/testing/index.ts';
import { MAX_PENDING } from '../src/use-cases/pending-projections.ts';
import { as, validMetadata } from './make-core.ts';

const alice = as('alice');

/** A core over the in-memory repositories and `search`, with small file limits. */
function coreOver(repos: Repositories, uow: UnitOfWork, search: SearchIndex, clock: Clock) {
  return createCore({
    repos,
    uow,
    storage: createInMemoryFileStorage(() => clock.now()),
    search,
    clock,
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 3, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
}

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
  const core = coreOver(repos, uow, search, clock);
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
    // The answer does not wait for the index: the report follows once the projection has ended.
    await core.search.settled();
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
    await core.search.settled();
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

describe('reindex on an index with a bulk rebuild', () => {
  /** An index whose rebuild writes to the in-memory index, logging each call; it refuses documents of `broken`. */
  function makeRebuildingCore() {
    const { repos, uow } = createInMemoryRepositories();
    const clock = createFixedClock('2026-01-01T00:00:00.000Z');
    const inner = createInMemorySearchIndex();
    const calls: string[] = [];
    const broken = new Set<string>();
    const search: SearchIndex = {
      ...inner,
      async rebuild() {
        calls.push('rebuild');
        await inner.clear();
        return {
          async upsert(docs) {
            calls.push(`upsert ${docs.length}`);
            if (docs.some((d) => broken.has(d.id))) throw new RangeError('cannot index it');
            await inner.upsert(docs);
          },
          async remove(keys) {
            calls.push('remove');
            await inner.remove(keys);
          },
          async finish() {
            calls.push('finish');
          },
        };
      },
    };
    return { core: coreOver(repos, uow, search, clock), calls, broken };
  }

  it('writes a whole rebuild through it and finishes it after the last write, skipping only what it refuses', async () => {
    const { core, calls, broken } = makeRebuildingCore();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: `Record ${i}` } })).record.id);
    broken.add(ids[1] as string);
    calls.length = 0;
    const report = await core.search.reindex();
    expect(calls[0]).toBe('rebuild');
    expect(calls[calls.length - 1]).toBe('finish');
    expect(calls.filter((c) => c === 'finish').length).toBe(1);
    expect(report.skipped.map((s) => s.id)).toEqual([ids[1]]);
    expect(await titles(core)).toEqual(['Record 0', 'Record 2']);
  });

  it('catches up without it', async () => {
    const { core, calls } = makeRebuildingCore();
    await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: 'Record' } });
    calls.length = 0;
    await core.search.reindex({ since: '2000-01-01T00:00:00.000Z' });
    expect(calls).toEqual([]);
    expect(await titles(core)).toEqual(['Record']);
  });
});

/** An index whose writes are applied only once `open()` is called, as a busy writer thread applies them late. */
function makeGatedCore() {
  const { repos, uow } = createInMemoryRepositories();
  const clock = createFixedClock('2026-01-01T00:00:00.000Z');
  const inner = createInMemorySearchIndex();
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const search: SearchIndex = {
    ...inner,
    upsert: async (docs) => gate.then(() => inner.upsert(docs)),
    remove: async (keys) => gate.then(() => inner.remove(keys)),
  };
  const core = coreOver(repos, uow, search, clock);
  return { core, open: () => open() };
}

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a write answered before the index has applied it', () => {
  it('is seen by a listing sent after the answer, which waits for the index', async () => {
    const { core, open } = makeGatedCore();
    // Answered while the index holds nothing of it: a create that waited for the index would never be.
    await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: 'Answered first' } });
    const listing = titles(core);
    await nextLoopTurn();
    open();
    expect(await listing).toEqual(['Answered first']);
  });

  it('is seen, as last written, after an update and a publish answered one after the other', async () => {
    const { core, open } = makeGatedCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
    await core.records.updateDraft(alice, 'resource', draft.record.id, { metadata: { ...validMetadata, title: 'Renamed' } });
    await core.records.publish(alice, 'resource', draft.record.id);
    const anonymous = core.records.search({ userId: null, linkIds: [] }, ['resource'], { q: 'renamed' });
    const own = titles(core);
    open();
    expect((await anonymous).hits.map((h) => h.record.metadata['title'])).toEqual(['Renamed']);
    expect(await own).toEqual(['Renamed']);
  });

  it('gives anonymous listings the read stamp that stands once the index has applied it', async () => {
    const { core, open } = makeGatedCore();
    await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    // Read before the index write: a stamp without it would let an answer without it be kept and served.
    const stamp = core.records.listingReadStamp();
    open();
    const read = await stamp;
    await core.search.settled();
    expect(read).toBe(await core.records.listingReadStamp());
  });
});

describe('writes far ahead of the index', () => {
  it('wait for their own projection once too many are under way, and none is lost', async () => {
    const { core, open } = makeGatedCore();
    for (let i = 0; i < MAX_PENDING; i++) await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: `Early ${i}` } });
    let answered = false;
    const late = core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, title: 'Late' } }).then(() => (answered = true));
    await nextLoopTurn();
    expect(answered).toBe(false);
    open();
    await late;
    expect((await core.records.searchOwn(alice, 'resource', { size: 1 })).total).toBe(MAX_PENDING + 1);
  });
});
