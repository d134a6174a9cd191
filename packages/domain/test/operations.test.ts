import { describe, expect, it } from 'vitest';
import { createCore, type FileEntry } from '../src/index.ts';
import { createFixedClock, createInMemoryFileStorage, createInMemoryRepositories, createInMemorySearchIndex, createSequentialIds } from '../src/testing/index.ts';
import { as, bytes, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');

/** A published record whose files are stored, and a next version sharing their blobs. */
async function storedFiles(files: Record<string, string>) {
  const made = makeCore();
  const { core } = made;
  const enabled = Object.keys(files).length > 0;
  const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled } });
  if (enabled) await core.files.start(alice, 'resource', record.id, Object.keys(files));
  for (const [key, text] of Object.entries(files)) {
    await core.files.upload(alice, 'resource', record.id, key, bytes(text), text.length);
    await core.files.commit(alice, 'resource', record.id, key);
  }
  await core.records.publish(alice, 'resource', record.id);
  const next = await core.records.newVersion(alice, 'resource', record.id);
  if (enabled) await core.files.importFromPrevious(alice, 'resource', next.record.id);
  const entry = async (key: string): Promise<FileEntry> => (await made.repos.files.get({ recordId: record.id, state: 'published' }, key))!;
  return { ...made, id: record.id, nextId: next.record.id, entry };
}

describe('verifying stored content', () => {
  it('finds nothing wrong with intact content, reading each shared blob once', async () => {
    const { core } = await storedFiles({ 'a.txt': 'alpha', 'b.txt': 'bravo!' });
    const report = await core.operations.verify();
    expect(report.ok).toBe(true);
    // Two published entries and two imported into the next draft, over two blobs.
    expect(report.files).toEqual({ checked: 4, blobs: 2, bytes: 11, problems: [] });
    expect(report.index).toEqual({ checked: 1, problems: [] });
  });

  it('reports a flipped byte, a truncated blob and a missing blob on every entry that points at them', async () => {
    const { core, storage, entry, id, nextId } = await storedFiles({ 'flip.txt': 'abcdef', 'short.txt': 'abcdef', 'gone.txt': 'abcdef!' });
    const blob = async (key: string) => (await entry(key)).blob!.id;
    await storage.write(await blob('flip.txt'), bytes('abcdeg'), { maxBytes: 100 });
    await storage.write(await blob('short.txt'), bytes('abc'), { maxBytes: 100 });
    await storage.delete(await blob('gone.txt'));
    const report = await core.operations.verify();
    expect(report.ok).toBe(false);
    const found = report.files.problems.map((p) => `${p.owner.state}:${p.owner.recordId === id ? 'v1' : p.owner.recordId === nextId ? 'v2' : '?'}:${p.key}:${p.kind}`);
    expect(found.sort()).toEqual(
      ['draft:v2:flip.txt:md5', 'draft:v2:gone.txt:missing', 'draft:v2:short.txt:size', 'published:v1:flip.txt:md5', 'published:v1:gone.txt:missing', 'published:v1:short.txt:size'],
    );
  });

  it('spreads the work: --since skips older entries, --limit stops early and says where to go on', async () => {
    const { core, clock, storage, entry } = await storedFiles({ 'old.txt': 'old' });
    clock.advance(60_000);
    const later = clock.now();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.files.start(alice, 'resource', record.id, ['new.txt']);
    await core.files.upload(alice, 'resource', record.id, 'new.txt', bytes('new'), 3);
    await storage.delete((await entry('old.txt')).blob!.id);
    const recent = await core.operations.verify({ since: later });
    expect(recent.files.checked).toBe(1);
    expect(recent.ok).toBe(true);
    const first = await core.operations.verify({ limit: 1, index: false });
    expect(first.files.checked).toBe(1);
    expect(first.files.problems.map((p) => p.kind)).toEqual(['missing']);
    expect(first.index).toBeNull();
    expect(first.lastUpdated).not.toBeNull();
    const all = await core.operations.verify({ limit: 100 });
    expect(all.files.checked).toBe(3);
  });

  it('reports search documents missing from the index and documents the database no longer implies', async () => {
    const { core, search, repos, id, nextId } = await storedFiles({});
    const parentId = (await core.records.get(alice, 'resource', id)).parent.id;
    // Read past the core, which would wait for the projections of the writes above.
    await core.search.settled();
    const keys = await search.keysOfParent(parentId);
    expect(keys.length).toBeGreaterThan(0);
    const dropped = `published:${id}`;
    expect(keys).toContain(dropped);
    await search.remove([dropped]);
    // Written past the use cases, so nothing re-projects the parent.
    await repos.records.deleteDraft(nextId);
    const report = await core.operations.verify();
    expect(report.index?.problems).toEqual([{ parentId, missing: [dropped], stale: [`draft:${nextId}`] }]);
    await core.search.reindex();
    expect((await core.operations.verify()).ok).toBe(true);
  });

  it('reports progress as it goes', async () => {
    const { core } = await storedFiles({ 'a.txt': 'a', 'b.txt': 'b' });
    const phases: string[] = [];
    await core.operations.verify({ onProgress: (p) => phases.push(`${p.phase}:${p.done}`) });
    expect(phases).toEqual(['files:1', 'files:2', 'files:3', 'files:4', 'index:1']);
  });
});

describe('readiness', () => {
  it('is ready when every dependency answers, and names the one that does not', async () => {
    const made = makeCore();
    expect(await made.core.operations.readiness(1000)).toEqual({ ready: true, checks: { database: null, storage: null, search: null } });
    const { repos, uow } = createInMemoryRepositories();
    const storage = createInMemoryFileStorage();
    const search = createInMemorySearchIndex();
    const broken = createCore({
      repos,
      uow,
      storage: { ...storage, check: async () => Promise.reject(new Error('files: permission denied')) },
      // A hung mount: the probe must still answer.
      search: { ...search, check: () => new Promise<void>(() => undefined) },
      clock: createFixedClock('2026-01-01T00:00:00.000Z'),
      ids: createSequentialIds(),
      settings: { maxFileSize: 1, maxFiles: 1, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
    });
    expect(await broken.operations.readiness(50)).toEqual({
      ready: false,
      checks: { database: null, storage: 'files: permission denied', search: 'no answer within 50 ms' },
    });
  });
});

