import { sql, type Kysely } from 'kysely';
import { isPostgres, PG_UNREADABLE_JSON } from '../dialect.ts';

/**
 * A published version's head (RecordTable.head): listing a parent's versions reads the heads and
 * then only the page's versions, where it read every version in full (hundreds of versions of up
 * to megabytes each, for a page of ten). Versions stored before get theirs from `data`, by the
 * database alone; a row it cannot read as JSON keeps a null head, which is read from `data` when
 * asked for, as it was before.
 *
 * On SQLite the heads are read from an index of their own: a column added to a table comes after
 * `data`, and reading it walks the overflow pages of a large version's data (0.3 ms per version
 * of 1 MiB). PostgreSQL keeps a large `data` out of the row (TOAST), so the row itself is narrow;
 * an index there would also refuse a head past the 2,704 bytes a B-tree entry may hold.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('record').addColumn('head', 'text').execute();
  if (isPostgres(db)) {
    await sql`update record set head = (
        select jsonb_build_object('revision', d -> 'revisionId', 'created', d -> 'created', 'updated', d -> 'updated', 'access', d -> 'access')::text
        from (select data::jsonb as d) as parsed)
      where data !~ ${sql.lit(PG_UNREADABLE_JSON)}`.execute(db);
  } else {
    await sql`update record set head = json_object('revision', data -> '$.revisionId', 'created', data -> '$.created', 'updated', data -> '$.updated', 'access', data -> '$.access')
      where json_valid(data)`.execute(db);
    await sql`create index record_version_heads on record (parent_id, version_index, id, revision_id, head)`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await db.schema.dropIndex('record_version_heads').execute();
  await db.schema.alterTable('record').dropColumn('head').execute();
}
