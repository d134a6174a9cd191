import type { Kysely } from 'kysely';

/**
 * Uploads in flight (see BlobUploadRepository): what lets `krs gc` tell a blob still on its way
 * to an entry from garbage without trusting the storage's timestamps.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('blob_upload')
    .addColumn('blob_id', 'text', (c) => c.primaryKey())
    .addColumn('touched', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('blob_upload').execute();
}
