import { sql, type Kysely } from 'kysely';
import { isPostgres, jsonMember, jsonTrue } from '../dialect.ts';

/**
 * Finds the embargoes due to lift without reading every published version (see
 * listLapsedEmbargoes). On SQLite, guarded by json_valid: a damaged row must neither stop this
 * migration nor be refused by the index; it is left to the search projection to report.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index record_embargo_until on record (${embargoUntil(db)}) where ${embargoActive(db)}`.execute(db);
}

/** The indexed expressions; a query must spell them exactly so to use the index. */
export const embargoUntil = <T>(db: Kysely<T>) => jsonMember(db, ['access', 'embargo', 'until']);
export const embargoActive = <T>(db: Kysely<T>) => sql<boolean>`${jsonMember(db, ['access', 'embargo', 'active'])} = ${jsonTrue(db)}`;

/**
 * The versions whose embargo ends on `today` or before, in id order. SQLite, without statistics
 * on the index, would rather walk every version in id order (1.2 s at 100k, on the event loop,
 * at start-up and every hour) than sort the few rows the index holds: it is told which to use.
 */
export const lapsedEmbargoes = <T>(db: Kysely<T>, today: string, limit: number) =>
  sql<{ id: string }>`select id from record ${isPostgres(db) ? sql`` : sql`indexed by record_embargo_until`}
    where ${embargoActive(db)} and ${embargoUntil(db)} <= ${today}
    order by id limit ${limit}`;

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('record_embargo_until').execute();
}
