import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';

export const tempDir = () => mkdtempSync(join(tmpdir(), 'krs-adapters-'));

/** A migrated database in a fresh temp file (not `:memory:`: WAL and fsync only happen on files). */
export async function openSqlite(file = join(tempDir(), 'krs.sqlite')) {
  const handle = createDb(file);
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), db: handle.db, close: handle.close, file };
}
