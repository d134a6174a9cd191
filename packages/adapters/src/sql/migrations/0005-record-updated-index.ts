import { sql, type Kysely } from 'kysely';

/**
 * Walks published versions in the order of their last change, as OAI-PMH harvests do (see
 * listPublishedByUpdate), without reading every row. Guarded by json_valid like the embargo
 * index: a damaged row stays out of the index instead of stopping the migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index record_updated on record (${sql.raw(RECORD_UPDATED)}, id)`.execute(db);
}

/** The indexed expression; a query must spell it exactly so to use the index. */
export const RECORD_UPDATED = "case when json_valid(data) then json_extract(data, '$.updated') end";

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('record_updated').execute();
}
