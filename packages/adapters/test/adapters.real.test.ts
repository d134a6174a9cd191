import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb, createFsFileStorage, createMigrator, createMiniSearchIndex, createSqliteSearchIndex, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { draft, parent } from './contracts/builders.ts';
import { fileStorageContract } from './contracts/file-storage.contract.ts';
import { repositoriesContract } from './contracts/repositories.contract.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'krs-adapters-'));

async function sqlite(file = join(tempDir(), 'krs.sqlite')) {
  const handle = createDb(file);
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), close: handle.close, file };
}

repositoriesContract('sqlite', () => sqlite());
fileStorageContract('filesystem', async () => createFsFileStorage(tempDir()));
searchIndexContract('minisearch', async () => createMiniSearchIndex());

describe('sqlite specifics', () => {
  it('migrates up, down and up again', async () => {
    const handle = createDb(join(tempDir(), 'm.sqlite'));
    const migrator = createMigrator(handle.db);
    await migrateToLatest(handle.db);
    expect((await migrator.migrateDown()).error).toBeUndefined();
    await migrateToLatest(handle.db);
    await createSqlUnitOfWork(handle.db).repos.records.saveParent(parent('p1'), null);
    await handle.close();
  });

  it('keeps a committed transaction after the database is closed and reopened', async () => {
    const first = await sqlite();
    await first.uow.run(async (tx) => {
      await tx.records.saveParent(parent('p1'), null);
      await tx.records.saveDraft(draft('d1', 'p1'), null);
    });
    await first.close();
    const again = await sqlite(first.file);
    expect((await again.repos.records.getDraft('d1'))?.parentId).toBe('p1');
    await again.close();
  });

  it('refuses blob ids that could escape the storage root', async () => {
    const storage = createFsFileStorage(tempDir());
    async function* one() {
      yield new Uint8Array([1]);
    }
    await expect(storage.write('../../etc/x', one(), { maxBytes: 10 })).rejects.toThrow(/unsafe/);
  });
});

describe('minisearch snapshots', () => {
  const doc = (id: string, title: string) => ({
    key: `published:${id}`,
    id,
    kind: 'resource' as const,
    state: 'published' as const,
    parentId: `p-${id}`,
    ownerId: 'o',
    versionIndex: 1,
    isLatest: true,
    inUserListing: true,
    isUserLatest: true,
    isPublic: true,
    readers: ['o'],
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    resourceType: null,
    accessStatus: 'open' as const,
    bounds: [],
    body: { id, metadata: { title } },
  });
  const query = { filter: { kinds: ['resource' as const], published: true, viewerId: null }, q: 'glacier', bbox: null, sort: 'bestmatch' as const, page: 1, size: 10, aggregations: [] };

  it('answers the same after a save and load, with the watermark it was saved with', async () => {
    const file = join(tempDir(), 'snapshot.json');
    const first = createMiniSearchIndex();
    await first.upsert([doc('a', 'Glacier retreat in the Alps'), doc('b', 'Coastal erosion')]);
    await first.saveSnapshot(file, '2026-05-01T00:00:00.000Z');
    const second = createMiniSearchIndex();
    expect(await second.loadSnapshot(file)).toBe('2026-05-01T00:00:00.000Z');
    expect((await second.search(query)).hits.map((h) => h.id)).toEqual(['a']);
    await second.upsert([doc('b', 'Glacier lakes')]);
    expect((await second.search(query)).total).toBe(2);
  });

  it('never trusts a missing, corrupt or foreign snapshot', async () => {
    const dir = tempDir();
    const index = createMiniSearchIndex();
    expect(await index.loadSnapshot(join(dir, 'missing.json'))).toBeNull();
    writeFileSync(join(dir, 'corrupt.json'), '{"format":"krs-minisearch-1","watermark":"x","mini":');
    expect(await index.loadSnapshot(join(dir, 'corrupt.json'))).toBeNull();
    writeFileSync(join(dir, 'foreign.json'), JSON.stringify({ format: 'other', watermark: 'x', mini: {}, docs: [] }));
    expect(await index.loadSnapshot(join(dir, 'foreign.json'))).toBeNull();
    expect(index.size()).toBe(0);
  });
});

searchIndexContract('sqlite fts5', async () => createSqliteSearchIndex(':memory:'));
