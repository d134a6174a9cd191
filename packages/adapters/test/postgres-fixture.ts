/**
 * A real PostgreSQL 17 for the tests: one server per test file that calls `usePostgresServer()`,
 * started before its tests and stopped when they end, and a fresh database per fixture.
 */
import { sql, type QueryExecutorProvider } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createPgDb, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { runStatement, startPostgres, type PostgresServer } from './embedded-postgres-server.ts';

/**
 * `KRS_TEST_DATABASE_URL`: a PostgreSQL server of the caller's (a role that may create
 * databases) instead of the embedded one; each fixture still gets a database of its own.
 */
function externalServer(url: string): PostgresServer {
  let made = 0;
  return {
    async freshDatabase() {
      const name = `krs_test_${process.pid}_${Date.now()}_${++made}`;
      await runStatement(url, `create database ${name}`);
      const target = new URL(url);
      target.pathname = `/${name}`;
      return target.toString();
    },
    stop: async () => undefined,
  };
}

let server: Promise<PostgresServer> | null = null;

const startServer = () => {
  const external = process.env['KRS_TEST_DATABASE_URL'];
  return (server ??= external ? Promise.resolve(externalServer(external)) : startPostgres({ durable: false }));
};

/** The URL of a database migrated once per server, which `migratedDatabase` copies. */
let template: Promise<string> | null = null;
let copies = 0;

/**
 * A new database holding the latest schema: a copy of a template migrated once per server, so
 * each fixture pays for one CREATE DATABASE rather than for every migration's statements.
 */
async function migratedDatabase(): Promise<string> {
  template ??= (async () => {
    const url = await (await startServer()).freshDatabase();
    const handle = createPgDb(url);
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
    return url;
  })();
  const source = new URL(await template);
  const target = new URL(source);
  target.pathname = `/${source.pathname.slice(1)}_copy_${++copies}`;
  const admin = new URL(source);
  admin.pathname = '/postgres';
  // FILE_COPY (PostgreSQL 15 and later) on the embedded server, whose flushes are off; a server
  // of the caller's keeps its default.
  const strategy = process.env['KRS_TEST_DATABASE_URL'] ? '' : ' strategy file_copy';
  await runStatement(admin.toString(), `create database ${target.pathname.slice(1)} template ${source.pathname.slice(1)}${strategy}`);
  return target.toString();
}

/**
 * Called at the top of each test file that uses this fixture. The hooks are registered by the
 * file, not by this module: test files share this module when they share a module graph
 * (`--no-isolate`), and a hook registered at its top would run for the first such file only.
 * Started before the file's tests, with time of its own: on a loaded machine the start can take
 * longer than one test may.
 */
export function usePostgresServer(): void {
  beforeAll(async () => void (await startServer()), 60_000);
  afterAll(async () => {
    const running = server;
    server = null;
    template = null;
    if (running) await (await running).stop();
  }, 60_000);
}

/** A new empty database on the test file's server: its `postgres://` URL. */
export async function freshDatabase(): Promise<string> {
  return (await startServer()).freshDatabase();
}

/** A migrated database, as the SQLite fixture gives one: `url`'s, migrated, or a new one. */
export async function openPostgres(url?: string) {
  const handle = createPgDb(url ?? (await migratedDatabase()));
  await migrateToLatest(handle.db);
  return { ...createSqlUnitOfWork(handle.db), db: handle.db, close: handle.close, url };
}

/** The values of PostgreSQL settings (`statement_timeout`, ...) on a connection of `db`, as `current_setting` shows them. */
export async function sessionSettings(db: QueryExecutorProvider, names: readonly string[]): Promise<string[]> {
  const rows = await Promise.all(names.map((name) => sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)));
  return rows.map((r) => r.rows[0]?.value ?? '');
}

