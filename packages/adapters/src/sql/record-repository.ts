/**
 * Drafts, published versions and parents. Revisions are checked in the statement itself (an
 * insert that finds the id taken, an update that finds another revision changes no row), so a
 * concurrent writer is refused even without a transaction.
 */
import { DomainError, type RecordRepository } from '@krs/domain';
import { InsertResult, sql, type Kysely, type UpdateResult } from 'kysely';
import type { Database } from './database.ts';
import { EMBARGO_ACTIVE, EMBARGO_UNTIL } from './migrations/0004-embargo-index.ts';
import { draftToRow, parentToRow, recordToRow, rowToDraft, rowToParent, rowToRecord } from './rows.ts';

const mismatch = () => new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');

/** Each save changes exactly one row or, by the checks in its statement, none. */
function expectOneRow(result: InsertResult | UpdateResult): void {
  const changed = result instanceof InsertResult ? result.numInsertedOrUpdatedRows : result.numUpdatedRows;
  if (Number(changed ?? 0) !== 1) throw mismatch();
}

export function createSqlRecordRepository(db: Kysely<Database>): RecordRepository {
  return {
    async getDraft(id) {
      const row = await db.selectFrom('draft').select('data').where('id', '=', id).executeTakeFirst();
      return row ? rowToDraft(row) : null;
    },
    async getPublished(id) {
      const row = await db.selectFrom('record').select('data').where('id', '=', id).executeTakeFirst();
      return row ? rowToRecord(row) : null;
    },
    async saveDraft(draft, expected) {
      const row = draftToRow(draft);
      expectOneRow(
        expected === null
          ? await db.insertInto('draft').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
          : await db.updateTable('draft').set(row).where('id', '=', row.id).where('revision_id', '=', expected).executeTakeFirst(),
      );
    },
    async deleteDraft(id) {
      await db.deleteFrom('draft').where('id', '=', id).execute();
    },
    async savePublished(record, expected) {
      const row = recordToRow(record);
      expectOneRow(
        expected === null
          ? await db.insertInto('record').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
          : await db.updateTable('record').set(row).where('id', '=', row.id).where('revision_id', '=', expected).executeTakeFirst(),
      );
    },
    async listPublishedVersions(parentId) {
      const rows = await db.selectFrom('record').select('data').where('parent_id', '=', parentId).orderBy('version_index', 'desc').execute();
      return rows.map(rowToRecord);
    },
    async listDrafts(parentId) {
      const rows = await db.selectFrom('draft').select('data').where('parent_id', '=', parentId).execute();
      return rows.map(rowToDraft);
    },
    async getParent(id) {
      const row = await db.selectFrom('parent').select('data').where('id', '=', id).executeTakeFirst();
      return row ? rowToParent(row) : null;
    },
    async saveParent(parent, expected) {
      const row = parentToRow(parent);
      expectOneRow(
        expected === null
          ? await db.insertInto('parent').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
          : await db.updateTable('parent').set(row).where('id', '=', row.id).where('revision_id', '=', expected).executeTakeFirst(),
      );
    },
    async listParentIds(kinds, updatedSince) {
      if (kinds.length === 0) return [];
      let q = db.selectFrom('parent').select('id').where('kind', 'in', kinds);
      if (updatedSince !== undefined) q = q.where('updated', '>', updatedSince);
      return (await q.orderBy('id').execute()).map((r) => r.id);
    },
    async listLapsedEmbargoes(today, limit) {
      // Worded as the partial index record_embargo_until is, so only embargoed rows are read.
      const rows = await sql<{ id: string }>`select id from record
        where ${sql.raw(EMBARGO_ACTIVE)} = 1 and ${sql.raw(EMBARGO_UNTIL)} <= ${today}
        order by id limit ${limit}`.execute(db);
      return rows.rows.map((r) => r.id);
    },
  };
}
