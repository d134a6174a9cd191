/** The one place naming the SQL dialect. */
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite as SQLite } from './sqlite-driver.ts';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Database } from './database.ts';
import { boundedPgPool } from './bounded-pg-pool.ts';
import { nulFreePgPool } from './nul-free-pg-pool.ts';
import { withStatementCache } from './statement-cache.ts';
import { walSyncer } from './wal-syncer.ts';

export interface DbHandle {
  db: Kysely<Database>;
  /** Which store this is: the embedded file, or a PostgreSQL server shared by every node. */
  dialect: 'sqlite' | 'postgres';
  /**
   * Copies the database to `destination` with SQLite's online backup: a consistent image of one
   * instant while other connections (the server) keep writing. PostgreSQL refuses: its backups
   * are the server's own (pg_dump, base backups).
   */
  backup(destination: string, onProgress?: (p: { totalPages: number; remainingPages: number }) => void): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  /**
   * false skips the fsync of each commit: a crash may then lose or corrupt recent writes. Only for
   * throwaway data, such as the corpus a benchmark generates.
   */
  durable?: boolean;
  /** Called after each statement with its SQL text and duration, for metrics. */
  onQuery?: (sql: string, seconds: number) => void;
}

/**
 * The fsync that makes the units of work committed so far durable, for each database handle
 * createDb opened (read by the unit of work; absent for throwaway databases).
 */
export const commitSyncs = new WeakMap<Kysely<Database>, () => Promise<void>>();

/** One read statement, run to its first row. */
export type CommittedRead = <R>(query: { sql: string; parameters: readonly unknown[] }) => R | undefined;

/**
 * For each SQLite database handle createDb opened on a file: a read on a connection of its own,
 * outside Kysely, which sees committed rows only. Kysely's one connection may be inside a unit
 * of work's transaction between two of its awaits (every other query waits for it), and a
 * statement run there would read that transaction's rows before they are committed. The
 * read-stamp queries, run on every hot read, use it: Kysely's queue and driver around one
 * primary-key read cost about as much as the read itself. Keyed by the database's own handle,
 * so a transaction's repositories never find it.
 */
export const committedReads = new WeakMap<Kysely<Database>, CommittedRead>();

/**
 * For each database handle createDb or createPgDb opened (not a unit of work's transaction): the
 * store's change stamp as `RecordRepository.changeStamp` gives it, read outside Kysely. It is read
 * once per turn of the event loop on the hot reads' path.
 * - SQLite counts, per connection, the commits other connections made (`data_version`): every
 *   write, Kysely's connection's or another process's, is another connection's to the read one.
 * - PostgreSQL's current snapshot (`xmin:xmax:in-progress ids`) moves whenever a transaction that
 *   wrote commits, on any node: one that began writing before it was read is in its list or at or
 *   above its `xmax`, and leaves the list or raises `xmin`/`xmax` when it commits. Reads take no
 *   transaction id and leave it as it is. It counts the whole server's writes, other databases'
 *   too: a write elsewhere moves it for nothing, never the other way round.
 */
export const changeStamps = new WeakMap<Kysely<Database>, () => Promise<string | null>>();
const DATA_VERSION = { sql: 'PRAGMA data_version', parameters: [] } as const;
const SNAPSHOT = 'select pg_current_snapshot()::text as snapshot';

/**
 * The read connection is opened on first use (the CLI's commands never need it), read-only,
 * and keeps each statement compiled; `onQuery` sees its statements as it sees Kysely's.
 */
function committedReadsOn(filename: string, onQuery: DbOptions['onQuery']): { read: CommittedRead; close(): void } {
  let connection: BetterSqlite3.Database | null = null;
  const statements = new Map<string, BetterSqlite3.Statement<unknown[]>>();
  return {
    read<R>(query: { sql: string; parameters: readonly unknown[] }): R | undefined {
      if (connection === null) {
        connection = new SQLite(filename, { readonly: true });
        connection.pragma('busy_timeout = 5000');
      }
      let statement = statements.get(query.sql);
      if (statement === undefined) {
        statement = connection.prepare<unknown[]>(query.sql);
        statements.set(query.sql, statement);
      }
      const started = onQuery ? performance.now() : 0;
      const row = statement.get(...(query.parameters as unknown[])) as R | undefined;
      onQuery?.(query.sql, (performance.now() - started) / 1000);
      return row;
    },
    close() {
      connection?.close();
      connection = null;
    },
  };
}

/**
 * WAL, and readers never block the writer. Durability without blocking the event loop: SQLite
 * commits with synchronous=NORMAL (no fsync in the commit, which better-sqlite3 would run on the
 * main thread), and the unit of work fsyncs the WAL file on the thread pool before it answers
 * (`commitSyncs`): a unit of work that resolved survives a power cut, as with synchronous=FULL.
 * One fsync covers every commit written before it began, so concurrent writers share them. WAL
 * with NORMAL never corrupts on a crash; it can only lose commits not yet synced, which no
 * caller has been told about. Closing the handle syncs what is left (writes outside units of
 * work, such as the CLI's).
 */
export function createDb(filename: string, options: DbOptions = {}): DbHandle {
  const sqlite = new SQLite(filename);
  sqlite.pragma('journal_mode = WAL');
  const durable = options.durable !== false && filename !== ':memory:' && filename !== '';
  sqlite.pragma(durable ? 'synchronous = NORMAL' : 'synchronous = OFF');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const onQuery = options.onQuery;
  // Statements are timed where they run (statement-cache.ts), not through Kysely's `log` option.
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, undefined, onQuery) }) });
  const syncWal = durable ? walSyncer(`${filename}-wal`) : null;
  if (syncWal !== null) commitSyncs.set(db, syncWal.sync);
  // A second connection to ':memory:' would be another, empty database.
  const reads = filename !== ':memory:' && filename !== '' ? committedReadsOn(filename, onQuery) : null;
  if (reads !== null) {
    committedReads.set(db, reads.read);
    changeStamps.set(db, async () => {
      const row = reads.read<{ data_version: number }>(DATA_VERSION);
      return row === undefined ? null : String(row.data_version);
    });
  }
  return {
    db,
    dialect: 'sqlite',
    async backup(destination, onProgress) {
      await sqlite.backup(destination, {
        progress(p) {
          onProgress?.(p);
          // Everything left in one step, under one read transaction: copied in small steps, a
          // busy writer would make SQLite restart the copy after each of its commits.
          return Math.max(p.remainingPages, 1);
        },
      });
    },
    async close() {
      await syncWal?.close();
      reads?.close();
      await db.destroy();
    },
  };
}

/** How long PostgreSQL work may take; each unset (or null) is unbounded. */
export interface PgBounds {
  /** A new connection not had within it fails the query (pg's `connectionTimeoutMillis`); default 10 s. */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL's own `statement_timeout` and `idle_in_transaction_session_timeout`: the server
   * stops a statement that runs longer (a runaway search), or ends a session whose transaction
   * waited on its client that long, and rolls its transaction back; the connection stays usable.
   */
  statementTimeoutMs?: number | null;
  /**
   * The client's bound on each statement's answer (bounded-pg-pool.ts), for a server that stalls
   * and can stop nothing itself: the connection is closed and dropped. Set above
   * `statementTimeoutMs`, so that a statement PostgreSQL still answers is cut by PostgreSQL.
   */
  queryTimeoutMs?: number | null;
}

/**
 * A pool of connections to PostgreSQL (`postgres://user:password@host:port/database`). Commits
 * are durable by the server's own fsync before it answers; nothing here waits for more.
 */
export function createPgDb(url: string, options: Pick<DbOptions, 'onQuery'> & PgBounds & { maxConnections?: number } = {}): DbHandle {
  // Connections kept five minutes idle, not pg's ten seconds: a new connection's first search cost
  // 60-120 ms on 200 documents and about half a second at 100k (the caches a fresh backend fills),
  // which a quiet node paid again after every pause of ten seconds. Idle connections do not keep a
  // finished command's process alive. A connection not had within ten seconds (a server that
  // stalls or a host that drops packets; or every connection held by queries that wait on one)
  // fails the query, which the server answers 503, instead of holding its request for as long as
  // the stall lasts or the system's connect timeout (two minutes on Linux).
  const statementTimeout = options.statementTimeoutMs ?? null;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    idleTimeoutMillis: 5 * 60_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    allowExitOnIdle: true,
    ...(statementTimeout === null ? {} : { statement_timeout: statementTimeout, idle_in_transaction_session_timeout: statementTimeout }),
  });
  const bounded = nulFreePgPool(boundedPgPool(pool, options.queryTimeoutMs ?? null));
  // An idle connection the server dropped must not take the process down with it.
  pool.on('error', () => {});
  // Nor one dropped while lent out (PostgreSQL restarted, failed over, stopped under load): its
  // client emits 'error', which pg-pool hears only while the client is idle, and unheard it was
  // an uncaught exception that ended the node. The work on it fails by itself (a 503), and the
  // pool drops the client when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}));
  const onQuery = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: bounded }),
    ...(onQuery ? { log: (event: LogEvent) => onQuery(event.query.sql, event.queryDurationMillis / 1000) } : {}),
  });
  // On the pool, not through Kysely: its queue and compilation cost as much as this read.
  changeStamps.set(db, async () => {
    const started = onQuery ? performance.now() : 0;
    const { rows } = await bounded.query<{ snapshot: string }>(SNAPSHOT);
    onQuery?.(SNAPSHOT, (performance.now() - started) / 1000);
    return rows[0]?.snapshot ?? null;
  });
  return {
    db,
    dialect: 'postgres',
    async backup() {
      throw new Error('krs backup copies the embedded SQLite store; back up PostgreSQL with its own tools (pg_dump or base backups) and the file storage beside it.');
    },
    async close() {
      await db.destroy();
    },
  };
}
