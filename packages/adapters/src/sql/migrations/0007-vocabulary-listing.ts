import { matchText, sortKey } from '@krs/domain/vocabularies';
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';
import { eachVocabularyEntry } from './vocabulary-walk.ts';

/**
 * Keys for listing a vocabulary a page at a time (vocabulary-listing.ts): `sort_key` orders,
 * `match_text` filters. The index carries both, so a filtered page or count walks the index
 * alone, never the entries' JSON. PostgreSQL compares the keys in code-unit ("C") order, as
 * SQLite's BINARY does, so both stores page identically.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const collate = isPostgres(db) ? ' collate "C"' : '';
  for (const column of ['sort_key', 'match_text']) {
    await sql.raw(`alter table vocabulary add column ${column} text${collate} not null default ''`).execute(db);
  }
  // Entries imported before this migration, keyed a chunk at a time.
  await eachVocabularyEntry(db, async (entry, key) => {
    await db.updateTable('vocabulary').set({ sort_key: sortKey(entry), match_text: matchText(entry) }).where('type', '=', key.type).where('id', '=', key.id).execute();
  });
  await sql`create index vocabulary_listing on vocabulary (type, sort_key, match_text)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('vocabulary_listing').execute();
  for (const column of ['sort_key', 'match_text']) await db.schema.alterTable('vocabulary').dropColumn(column).execute();
}
