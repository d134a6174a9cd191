/** The one place naming the SQL dialect. */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './database.ts';

export interface DbHandle {
  db: Kysely<Database>;
  close(): Promise<void>;
}

/**
 * WAL with synchronous=FULL: a committed transaction survives a power cut, and readers never
 * block the writer.
 */
export function createDb(filename: string): DbHandle {
  const sqlite = new SQLite(filename);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, close: () => db.destroy() };
}
