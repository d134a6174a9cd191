import { sql, type Kysely } from 'kysely';

/**
 * Finds the embargoes due to lift without reading every published version (see
 * listLapsedEmbargoes). Guarded by json_valid: a damaged row must neither stop this migration nor
 * be refused by the index; it is left to the search projection to report.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index record_embargo_until on record (${sql.raw(EMBARGO_UNTIL)}) where ${sql.raw(EMBARGO_ACTIVE)} = 1`.execute(db);
}

/** The indexed expressions; a query must spell them exactly so to use the index. */
export const EMBARGO_UNTIL = "case when json_valid(data) then json_extract(data, '$.access.embargo.until') end";
export const EMBARGO_ACTIVE = "case when json_valid(data) then json_extract(data, '$.access.embargo.active') end";

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('record_embargo_until').execute();
}
