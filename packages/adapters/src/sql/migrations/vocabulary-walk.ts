import type { VocabularyEntry } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';
import { rowToVocabulary } from '../rows.ts';

const CHUNK = 1000;

/** Every stored vocabulary entry, a chunk at a time in primary-key order, for migrations that rewrite their keys. */
export async function eachVocabularyEntry(db: Kysely<Database>, visit: (entry: VocabularyEntry, key: { type: string; id: string }) => Promise<void>): Promise<void> {
  let after: { type: string; id: string } | null = null;
  for (;;) {
    let query = db.selectFrom('vocabulary').select(['type', 'id', 'data']).orderBy('type').orderBy('id').limit(CHUNK);
    if (after !== null) {
      const { type, id } = after;
      query = query.where((eb) => eb.or([eb('type', '>', type), eb.and([eb('type', '=', type), eb('id', '>', id)])]));
    }
    const rows: { type: string; id: string; data: string }[] = await query.execute();
    for (const row of rows) await visit(rowToVocabulary(row), { type: row.type, id: row.id });
    const last = rows.at(-1);
    if (last === undefined || rows.length < CHUNK) break;
    after = { type: last.type, id: last.id };
  }
}
