import { matchText } from '@krs/domain/vocabularies';
import type { Kysely } from 'kysely';
import { rowToVocabulary } from '../rows.ts';

const CHUNK = 1000;

/**
 * `match_text` now ends with a token per tag (vocabulary-listing.ts `tagToken`), so the listing's
 * `tags` filter is a test inside the listing index like `q` and `suggest`. Entries stored before
 * get theirs; entries without tags are unchanged and left alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let after: { type: string; id: string } | null = null;
  for (;;) {
    let query = db.selectFrom('vocabulary').select(['type', 'id', 'data']).orderBy('type').orderBy('id').limit(CHUNK);
    if (after !== null) {
      const { type, id } = after;
      query = query.where((eb) => eb.or([eb('type', '>', type), eb.and([eb('type', '=', type), eb('id', '>', id)])]));
    }
    const rows: { type: string; id: string; data: string }[] = await query.execute();
    for (const row of rows) {
      const entry = rowToVocabulary(row);
      if ((entry.tags ?? []).length === 0) continue;
      await db.updateTable('vocabulary').set({ match_text: matchText(entry) }).where('type', '=', row.type).where('id', '=', row.id).execute();
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < CHUNK) break;
    after = { type: last.type, id: last.id };
  }
}

/** Tag tokens in `match_text` are invisible to the filters of before: nothing to undo. */
export async function down(): Promise<void> {}
