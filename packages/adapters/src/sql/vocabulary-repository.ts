import type { VocabularyEntry, VocabularyRepository } from '@krs/domain';
import { sql, type Compilable, type Kysely } from 'kysely';
import { tagToken } from '@krs/domain/vocabularies';
import { createThreadReader } from '../search/sqlite-reader.ts';
import { compiledOnce } from './compiled-once.ts';
import type { Database } from './database.ts';
import { rowToVocabulary, vocabularyToRow } from './rows.ts';

/** Rows per statement: 3 bound values each stays far below every dialect's parameter limit. */
const UPSERT_CHUNK = 500;
const LOOKUP_CHUNK = 500;

/**
 * A create looks its vocabularies up a type at a time, most often one id of a type: read with
 * `first`, on the committed-rows connection outside a unit of work (Kysely's queue and driver
 * around it cost more than the read).
 */
const oneEntry = compiledOnce<{ type: string; id: string }, { data: string }>(['type', 'id'], (db, { type, id }) =>
  db.selectFrom('vocabulary').select('data').where('type', '=', type).where('id', '=', id),
);

/** Reads rows on another thread (search/sqlite-reader.ts): each row as an array of its columns. */
export interface RowReader {
  rows(sql: string, params: readonly (string | number)[]): Promise<unknown[][]>;
}

/**
 * One reader thread over a SQLite file, for the vocabulary listings. Typed by what it is used
 * for: the reader's own module names better-sqlite3's types, which the package's public surface
 * does not carry.
 */
export function createSqliteRowReader(filename: string): RowReader & { close(): Promise<void> } {
  return createThreadReader(filename, 1);
}

/**
 * `reader`, a reader thread over the same SQLite file, takes the listing's reads off the event
 * loop: a filter whose matches lie late in title order or nowhere walks the whole type's index,
 * 150-300 ms at a million entries, and better-sqlite3 does it synchronously. Inside a
 * transaction the reads stay on `db`, which alone sees its uncommitted rows.
 */
export function createSqlVocabularyRepository(db: Kysely<Database>, reader?: RowReader): VocabularyRepository {
  /** The first column of every row the query gives. */
  async function firstColumn<T>(query: Compilable): Promise<T[]> {
    const compiled = query.compile();
    if (reader === undefined || db.isTransaction) return (await db.executeQuery<Record<string, T>>(compiled)).rows.map((row) => Object.values(row)[0] as T);
    return (await reader.rows(compiled.sql, compiled.parameters as readonly (string | number)[])).map((row) => row[0] as T);
  }

  async function upsertAll(handle: Kysely<Database>, given: readonly VocabularyEntry[]): Promise<void> {
    // PostgreSQL refuses an ON CONFLICT statement that meets one key twice ("cannot affect row a
    // second time"), and real files repeat ids: the later entry wins, as SQLite's row-by-row upsert has it.
    const entries = [...new Map(given.map((e) => [`${e.type}\u0000${e.id}`, e])).values()];
    for (let i = 0; i < entries.length; i += UPSERT_CHUNK) {
      await handle
        .insertInto('vocabulary')
        .values(entries.slice(i, i + UPSERT_CHUNK).map(vocabularyToRow))
        .onConflict((oc) =>
          oc.columns(['type', 'id']).doUpdateSet((eb) => ({
            data: eb.ref('excluded.data'),
            sort_key: eb.ref('excluded.sort_key'),
            match_text: eb.ref('excluded.match_text'),
          })),
        )
        .execute();
    }
  }

  return {
    async get(type, asked) {
      const found = new Map<string, VocabularyEntry>();
      // No entry's id holds U+0000, and PostgreSQL cannot be asked for one (nul-free-pg-pool.ts).
      const ids = asked.filter((id) => !id.includes('\u0000'));
      if (ids.length === 1) {
        const row = await oneEntry.first(db, { type, id: ids[0] as string });
        const entry = row === undefined ? undefined : rowToVocabulary(row);
        if (entry !== undefined) found.set(entry.id, entry);
        return found;
      }
      for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
        const rows = await db.selectFrom('vocabulary').select('data').where('type', '=', type).where('id', 'in', ids.slice(i, i + LOOKUP_CHUNK)).execute();
        for (const row of rows) {
          const entry = rowToVocabulary(row);
          found.set(entry.id, entry);
        }
      }
      return found;
    },
    async upsert(entries) {
      if (entries.length === 0) return 0;
      // One transaction for the whole batch: atomic, and one durable commit instead of one per chunk.
      if (db.isTransaction) await upsertAll(db, entries);
      else await db.transaction().execute((trx) => upsertAll(trx, entries));
      return entries.length;
    },
    async count(type) {
      // Asked by every listing that finds nothing: a million entries take 85 ms to count.
      const [n] = await firstColumn<number>(db.selectFrom('vocabulary').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', type));
      return Number(n);
    },
    async list(type) {
      const rows = await db.selectFrom('vocabulary').select('data').where('type', '=', type).orderBy('id').execute();
      return rows.map(rowToVocabulary);
    },
    async page(type, query) {
      // Words and prefixes are letters and digits only (tokenize), so they need no LIKE escaping.
      const patterns = [...query.words.map((w) => `% ${w} %`), ...query.prefixes.map((p) => `% ${p}%`)];
      let matching = db.selectFrom('vocabulary').where('type', '=', type);
      for (const pattern of patterns) matching = matching.where('match_text', 'like', pattern);
      // Tag tokens are U+0002 and hex digits (tagToken): no LIKE escaping either.
      if (query.tags.length > 0) matching = matching.where((eb) => eb.or(query.tags.map((t) => eb('match_text', 'like', `% ${tagToken(t)} %`))));
      // The keys of the page first, from the index alone (PostgreSQL would otherwise test the
      // filter on each row's heap tuple), then those rows' JSON.
      const keys = matching.select('sort_key').orderBy('sort_key').limit(query.limit).offset(query.offset);
      const data = await firstColumn<string>(db.selectFrom('vocabulary').select('data').where('type', '=', type).where('sort_key', 'in', keys).orderBy('sort_key'));
      const entries = data.map((text) => rowToVocabulary({ data: text }));
      // A short page, unless past the end, is the last one: the total is known without counting.
      if (entries.length < query.limit && (entries.length > 0 || query.offset === 0)) return { entries, total: query.offset + entries.length };
      const [counted] = await firstColumn<number>(
        db.selectFrom(matching.select(sql.lit(1).as('one')).limit(query.countLimit).as('kept')).select((eb) => eb.fn.countAll<number>().as('n')),
      );
      return { entries, total: Number(counted) };
    },
    async remove(type, ids) {
      let removed = 0;
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
        const result = await db.deleteFrom('vocabulary').where('type', '=', type).where('id', 'in', unique.slice(i, i + LOOKUP_CHUNK)).executeTakeFirst();
        removed += Number(result.numDeletedRows);
      }
      return removed;
    },
  };
}
