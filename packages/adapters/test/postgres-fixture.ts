/**
 * A real PostgreSQL 17 for the tests: one server per test file, started on first use and stopped
 * when the file's tests end, and a fresh database per fixture.
 */
import { afterAll } from 'vitest';
import { createPgDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { startPostgres, type PostgresServer } from './embedded-postgres-server.ts';

let server: Promise<PostgresServer> | null = null;

afterAll(async () => {
  const running = server;
  server = null;
  if (running) await (await running).stop();
}, 60_000);

/** A new empty database on the test file's server: its `postgres://` URL. */
export async function freshDatabase(): Promise<string> {
  return (await (server ??= startPostgres())).freshDatabase();
}

/** A migrated database, as the SQLite fixture gives one. */
export async function openPostgres(url?: string) {
  const handle = createPgDb(url ?? (await freshDatabase()));
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), db: handle.db, close: handle.close, url };
}
