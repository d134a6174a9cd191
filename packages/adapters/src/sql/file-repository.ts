import type { FileRepository, FileOwner } from '@krs/domain';
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { fileEntryToRow, rowToFileEntry } from './rows.ts';

/** File entries keyed by (owner state, record id, key); the primary key serves every query here. */
export function createSqlFileRepository(db: Kysely<Database>): FileRepository {
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
      const row = await db.selectFrom('file_entry').select(sql<number>`1`.as('one')).where(sql`json_extract(data, '$.blob.id')`, '=', blobId).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    async referencedBlobIds() {
      const rows = await db
        .selectFrom('file_entry')
        .select(sql<string | null>`json_extract(data, '$.blob.id')`.as('blob_id'))
        .distinct()
        .execute();
      return new Set(rows.flatMap((r) => (r.blob_id === null ? [] : [r.blob_id])));
    },
    async listAll({ after, updatedSince, limit }) {
      // An operator's sweep: it sorts on the JSON `updated` rather than carry an index every write pays for.
      const updated = sql<string>`json_extract(data, '$.updated')`;
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
