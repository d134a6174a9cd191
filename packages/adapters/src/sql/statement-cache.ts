/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query it runs, so
 * a record GET spent more time compiling its two SELECTs than running them. This hands Kysely a
 * database whose `prepare` returns the statement compiled the last time the same SQL text was
 * seen. Kysely runs a statement to completion (`all`/`run`) before the next query on the same
 * connection, so one statement is never in use twice at once; `iterate` (streamed queries) gets
 * a fresh statement, since a cached one could still be mid-iteration.
 *
 * `onQuery` is told each statement's text and duration, failed ones included (an iteration's
 * lasts until it ends). Timed here rather than through Kysely's `log` option: that wraps every
 * query in an async function awaiting the statement, the log call and the callback, four or
 * more promises per statement, and under the create load about a sixth of all a create made.
 */
import type { SqliteDatabase, SqliteStatement } from 'kysely';

interface Preparer {
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export function withStatementCache(database: Preparer, capacity = 512, onQuery?: (sql: string, seconds: number) => void): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const timed = <T>(sql: string, run: () => T): T => {
    if (onQuery === undefined) return run();
    const started = performance.now();
    try {
      return run();
    } finally {
      onQuery(sql, (performance.now() - started) / 1000);
    }
  };
  /** A text that does not compile is a statement that failed, and is told as one. */
  const compile = (sql: string): SqliteStatement => {
    const started = performance.now();
    try {
      return database.prepare(sql);
    } catch (error) {
      onQuery?.(sql, (performance.now() - started) / 1000);
      throw error;
    }
  };
  function* timedRows(sql: string, rows: () => IterableIterator<unknown>): IterableIterator<unknown> {
    const started = performance.now();
    try {
      yield* rows();
    } finally {
      onQuery?.(sql, (performance.now() - started) / 1000);
    }
  }
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement !== undefined) {
        // Most recently used last, so the first key is the one to evict.
        cache.delete(sql);
        cache.set(sql, statement);
      } else {
        const compiled = compile(sql);
        statement = {
          reader: compiled.reader,
          all: (parameters) => timed(sql, () => compiled.all(parameters)),
          run: (parameters) => timed(sql, () => compiled.run(parameters)),
          iterate: (parameters) =>
            onQuery === undefined ? database.prepare(sql).iterate(parameters) : timedRows(sql, () => database.prepare(sql).iterate(parameters)),
        };
        // Query texts vary with list lengths (IN (?, ?, ...)): keep the most recently used only.
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
