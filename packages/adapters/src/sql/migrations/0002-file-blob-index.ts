import { sql, type Kysely } from 'kysely';
import { jsonMember } from '../dialect.ts';

/** Lets a deletion ask "does any entry still point at this blob?" without reading every entry. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index file_entry_blob on file_entry (${blobIdOf(db)})`.execute(db);
}

/** The indexed expression; a query must spell it exactly so to use the index. */
export const blobIdOf = <T>(db: Kysely<T>) => jsonMember(db, ['blob', 'id'], false);

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_entry_blob').execute();
}
