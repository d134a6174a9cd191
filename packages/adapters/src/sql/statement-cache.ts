/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query it runs, so
 * a record GET spent more time compiling its two SELECTs than running them. This hands Kysely a
 * database whose `prepare` returns the statement compiled the last time the same SQL text was
 * seen. Kysely runs a statement to completion (`all`/`run`) before the next query on the same
 * connection, so one statement is never in use twice at once; `iterate` (streamed queries) gets
 * a fresh statement, since a cached one could still be mid-iteration.
 */
import type { SqliteDatabase, SqliteStatement } from 'kysely';

interface Preparer {
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export function withStatementCache(database: Preparer, capacity = 512): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement !== undefined) {
        // Most recently used last, so the first key is the one to evict.
        cache.delete(sql);
        cache.set(sql, statement);
      } else {
        const compiled = database.prepare(sql);
        statement = {
          reader: compiled.reader,
          all: (parameters) => compiled.all(parameters),
          run: (parameters) => compiled.run(parameters),
          iterate: (parameters) => database.prepare(sql).iterate(parameters),
        };
        // Query texts vary with list lengths (IN (?, ?, ...)): keep the most recently used only.
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
