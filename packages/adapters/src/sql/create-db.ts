/** The one place naming the SQL dialect. */
import { Sqlite as SQLite } from './sqlite-driver.ts';
import { Kysely, SqliteDialect, type LogEvent } from 'kysely';
import type { Database } from './database.ts';
import { withStatementCache } from './statement-cache.ts';

export interface DbHandle {
  db: Kysely<Database>;
  /**
   * Copies the database to `destination` with SQLite's online backup: a consistent image of one
   * instant while other connections (the server) keep writing.
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
 * WAL with synchronous=FULL: a committed transaction survives a power cut, and readers never
 * block the writer.
 */
export function createDb(filename: string, options: DbOptions = {}): DbHandle {
  const sqlite = new SQLite(filename);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(options.durable === false ? 'synchronous = OFF' : 'synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const onQuery = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    ...(onQuery ? { log: (event: LogEvent) => onQuery(event.query.sql, event.queryDurationMillis / 1000) } : {}),
  });
  return {
    db,
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
    close: () => db.destroy(),
  };
}
