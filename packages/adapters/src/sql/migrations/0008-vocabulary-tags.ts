import { matchText } from '@krs/domain/vocabularies';
import type { Kysely } from 'kysely';
import { eachVocabularyEntry } from './vocabulary-walk.ts';

/**
 * `match_text` now ends with a token per tag (vocabulary-listing.ts `tagToken`), so the listing's
 * `tags` filter is a test inside the listing index like `q` and `suggest`. Entries stored before
 * get theirs; entries without tags are unchanged and left alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await eachVocabularyEntry(db, async (entry, key) => {
    if ((entry.tags ?? []).length === 0) return;
    await db.updateTable('vocabulary').set({ match_text: matchText(entry) }).where('type', '=', key.type).where('id', '=', key.id).execute();
  });
}

/** Tag tokens in `match_text` are invisible to the filters of before: nothing to undo. */
export async function down(): Promise<void> {}
