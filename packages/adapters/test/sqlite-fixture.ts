import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';

const made: string[] = [];
// Registered in each test file that imports this module: its temp dirs go when its tests end.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'krs-adapters-'));
  made.push(dir);
  return dir;
}

/** A migrated database in a fresh temp file (not `:memory:`: WAL and fsync only happen on files). */
export async function openSqlite(file = join(tempDir(), 'krs.sqlite')) {
  const handle = createDb(file);
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), db: handle.db, close: handle.close, file };
}
