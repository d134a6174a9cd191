import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb, createFsFileStorage, createMigrator, createMiniSearchIndex, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
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
