import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('parent')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('updated', 'text', (c) => c.notNull())
    .addColumn('revision_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('parent_kind_updated').on('parent').columns(['kind', 'updated']).execute();
  await db.schema
    .createTable('draft')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('revision_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('draft_parent').on('draft').column('parent_id').execute();
  await db.schema
    .createTable('record')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version_index', 'integer', (c) => c.notNull())
    .addColumn('revision_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('record_parent').on('record').columns(['parent_id', 'version_index']).execute();
  await db.schema
    .createTable('file_entry')
    .addColumn('owner_state', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_entry_pk', ['owner_state', 'record_id', 'key'])
    .execute();
  await db.schema
    .createTable('user')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('api_token')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('user.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('vocabulary')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vocabulary_pk', ['type', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['vocabulary', 'api_token', 'user', 'file_entry', 'record', 'draft', 'parent']) {
    await db.schema.dropTable(table).execute();
  }
}
