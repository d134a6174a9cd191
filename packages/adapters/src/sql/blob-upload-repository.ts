import type { BlobUploadRepository } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';

/**
 * Uploads in flight, one row per blob. Each change is one statement on the row by its key, so
 * an upload's commit and gc's claim of a stale upload, run concurrently (on PostgreSQL, from
 * different nodes), wait on the row's lock and exactly one of them finds it.
 */
export function createSqlBlobUploadRepository(db: Kysely<Database>): BlobUploadRepository {
  const changed = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => (result.numUpdatedRows ?? result.numDeletedRows ?? 0n) > 0n;
  return {
    async begin(blobId, at) {
      await db.insertInto('blob_upload').values({ blob_id: blobId, touched: at }).execute();
    },
    async renew(blobId, at) {
      return changed(await db.updateTable('blob_upload').set({ touched: at }).where('blob_id', '=', blobId).executeTakeFirst());
    },
    async end(blobId) {
      return changed(await db.deleteFrom('blob_upload').where('blob_id', '=', blobId).executeTakeFirst());
    },
    async endIfStale(blobId, before) {
      return changed(await db.deleteFrom('blob_upload').where('blob_id', '=', blobId).where('touched', '<', before).executeTakeFirst());
    },
    async list() {
      const rows = await db.selectFrom('blob_upload').select(['blob_id', 'touched']).execute();
      return new Map(rows.map((r) => [r.blob_id, r.touched]));
    },
  };
}
