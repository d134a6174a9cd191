import { sql, type Kysely } from 'kysely';
import { jsonMember } from '../dialect.ts';

/**
 * Walks published versions in the order of their last change, as OAI-PMH harvests do (see
 * listPublishedByUpdate), without reading every row. On SQLite, guarded by json_valid like the
 * embargo index: a damaged row stays out of the index instead of stopping the migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index record_updated on record (${recordUpdated(db)}, id)`.execute(db);
}

/** The indexed expression; a query must spell it exactly so to use the index. */
export const recordUpdated = <T>(db: Kysely<T>) => jsonMember(db, ['updated']);

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('record_updated').execute();
}
