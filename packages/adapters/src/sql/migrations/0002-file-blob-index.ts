import { sql, type Kysely } from 'kysely';

/** Lets a deletion ask "does any entry still point at this blob?" without reading every entry. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index file_entry_blob on file_entry (json_extract(data, '$.blob.id'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_entry_blob').execute();
}
