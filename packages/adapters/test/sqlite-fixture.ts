import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';

const made: string[] = [];

/**
 * Removes the temp dirs made so far. Called after each test file's tests (each-file.ts): test
 * files share this module when they share a module graph, so a hook registered here would run
 * for the first file that imported it only.
 */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

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
