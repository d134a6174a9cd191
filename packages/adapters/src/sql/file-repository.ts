import type { FileRepository, FileOwner } from '@krs/domain';
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { isPostgres, jsonMember, PG_UNREADABLE_JSON } from './dialect.ts';
import { blobIdOf } from './migrations/0002-file-blob-index.ts';
import { fileEntryToRow, rowToFileEntry } from './rows.ts';

/** File entries keyed by (owner state, record id, key); the primary key serves every query here. */
export function createSqlFileRepository(db: Kysely<Database>): FileRepository {
  const unreadable = () => db.selectFrom('file_entry').where(sql<boolean>`data ~ ${PG_UNREADABLE_JSON}`);
  const ofOwner = (owner: FileOwner) => db.selectFrom('file_entry').where('owner_state', '=', owner.state).where('record_id', '=', owner.recordId);
  return {
    async list(owner) {
      return (await ofOwner(owner).select('data').orderBy('key').execute()).map(rowToFileEntry);
    },
    async get(owner, key) {
      const row = await ofOwner(owner).select('data').where('key', '=', key).executeTakeFirst();
      return row ? rowToFileEntry(row) : null;
    },
    async save(owner, entry) {
      const row = fileEntryToRow(owner, entry);
      await db
        .insertInto('file_entry')
        .values(row)
        .onConflict((oc) => oc.columns(['owner_state', 'record_id', 'key']).doUpdateSet({ data: row.data }))
        .execute();
    },
    async delete(owner, key) {
      await db.deleteFrom('file_entry').where('owner_state', '=', owner.state).where('record_id', '=', owner.recordId).where('key', '=', key).execute();
    },
    async deleteAll(owner) {
      await db.deleteFrom('file_entry').where('owner_state', '=', owner.state).where('record_id', '=', owner.recordId).execute();
    },
    async count(owner) {
      const row = await ofOwner(owner)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async referencesBlob(blobId) {
      // The same expression as the file_entry_blob index, so the lookup uses it.
      const row = await db.selectFrom('file_entry').select(sql<number>`1`.as('one')).where(blobIdOf(db), '=', blobId).limit(1).executeTakeFirst();
      if (row !== undefined) return true;
      // Rows PostgreSQL cannot read as JSON are searched as text: a blob is kept rather than lost.
      return isPostgres(db) && (await unreadable().where(sql<boolean>`strpos(data, ${blobId}) > 0`).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) !== undefined;
    },
    async referencedBlobIds() {
      const rows = await db
        .selectFrom('file_entry')
        .select(blobIdOf(db).as('blob_id'))
        .distinct()
        .execute();
      const ids = new Set(rows.flatMap((r) => (r.blob_id === null ? [] : [r.blob_id])));
      if (isPostgres(db)) for (const row of await unreadable().select('data').execute()) {
        const id = rowToFileEntry(row).blob?.id;
        if (id) ids.add(id);
      }
      return ids;
    },
    async listAll({ after, updatedSince, limit }) {
      // An operator's sweep: it sorts on the JSON `updated` rather than carry an index every write pays for.
      const updated = jsonMember(db, ['updated'], false);
      let query = db.selectFrom('file_entry').select(['owner_state', 'record_id', 'data']);
      if (updatedSince !== undefined) query = query.where(updated, '>=', updatedSince);
      if (after !== undefined) {
        query = query.where(sql<boolean>`(${updated}, owner_state, record_id, key) > (${after.updated}, ${after.state}, ${after.recordId}, ${after.key})`);
      }
      const rows = await query.orderBy(updated).orderBy('owner_state').orderBy('record_id').orderBy('key').limit(limit).execute();
      return rows.map((row) => ({ owner: { state: row.owner_state as FileOwner['state'], recordId: row.record_id }, entry: rowToFileEntry(row) }));
    },
  };
}
