/**
 * Repositories over a Kysely handle, which may be the database or a transaction. Aggregates are
 * stored whole as JSON; revisions are checked in the UPDATE itself so a concurrent writer can
 * never be overwritten silently.
 */
import { DomainError, type DraftRecord, type FileEntry, type Parent, type PublishedRecord, type Repositories, type VocabularyEntry } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';

const mismatch = () => new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');

const isUniqueViolation = (e: unknown) => typeof e === 'object' && e !== null && String((e as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT');

async function insertOrConflict(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (isUniqueViolation(e)) throw mismatch();
    throw e;
  }
}

const parse = <T>(text: string): T => JSON.parse(text) as T;

type VersionedTable = 'draft' | 'record' | 'parent';

export function createSqlRepositories(db: Kysely<Database>): Repositories {
  /** Insert when `expected` is null, else update only the row still at revision `expected`. */
  async function saveVersioned<T extends VersionedTable>(table: T, row: Database[T] & { id: string }, expected: number | null): Promise<void> {
    if (expected === null) return insertOrConflict(() => db.insertInto(table).values(row as never).execute());
    const r = await db
      .updateTable(table as VersionedTable)
      .set(row as never)
      .where('id', '=', row.id)
      .where('revision_id', '=', expected)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw mismatch();
  }

  return {
    records: {
      async getDraft(id) {
        const row = await db.selectFrom('draft').select('data').where('id', '=', id).executeTakeFirst();
        return row ? parse<DraftRecord>(row.data) : null;
      },
      async getPublished(id) {
        const row = await db.selectFrom('record').select('data').where('id', '=', id).executeTakeFirst();
        return row ? parse<PublishedRecord>(row.data) : null;
      },
      async saveDraft(draft, expected) {
        const row = { id: draft.id, parent_id: draft.parentId, kind: draft.kind, revision_id: draft.revisionId, data: JSON.stringify(draft) };
        await saveVersioned('draft', row, expected);
      },
      async deleteDraft(id) {
        await db.deleteFrom('draft').where('id', '=', id).execute();
      },
      async savePublished(record, expected) {
        const row = {
          id: record.id,
          parent_id: record.parentId,
          kind: record.kind,
          version_index: record.versionIndex,
          revision_id: record.revisionId,
          data: JSON.stringify(record),
        };
        await saveVersioned('record', row, expected);
      },
      async listPublishedVersions(parentId) {
        const rows = await db.selectFrom('record').select('data').where('parent_id', '=', parentId).orderBy('version_index', 'desc').execute();
        return rows.map((r) => parse<PublishedRecord>(r.data));
      },
      async listDrafts(parentId) {
        const rows = await db.selectFrom('draft').select('data').where('parent_id', '=', parentId).execute();
        return rows.map((r) => parse<DraftRecord>(r.data));
      },
      async getParent(id) {
        const row = await db.selectFrom('parent').select('data').where('id', '=', id).executeTakeFirst();
        return row ? parse<Parent>(row.data) : null;
      },
      async saveParent(parent, expected) {
        const row = { id: parent.id, kind: parent.kind, updated: parent.updated, revision_id: parent.revisionId, data: JSON.stringify(parent) };
        await saveVersioned('parent', row, expected);
      },
      async listParentIds(kinds, updatedSince) {
        let q = db.selectFrom('parent').select('id').where('kind', 'in', kinds);
        if (updatedSince !== undefined) q = q.where('updated', '>', updatedSince);
        return (await q.orderBy('id').execute()).map((r) => r.id);
      },
    },
    files: {
      async list(owner) {
        const rows = await db
          .selectFrom('file_entry')
          .select('data')
          .where('owner_state', '=', owner.state)
          .where('record_id', '=', owner.recordId)
          .orderBy('key')
          .execute();
        return rows.map((r) => parse<FileEntry>(r.data));
      },
      async get(owner, key) {
        const row = await db
          .selectFrom('file_entry')
          .select('data')
          .where('owner_state', '=', owner.state)
          .where('record_id', '=', owner.recordId)
          .where('key', '=', key)
          .executeTakeFirst();
        return row ? parse<FileEntry>(row.data) : null;
      },
      async save(owner, entry) {
        await db
          .insertInto('file_entry')
          .values({ owner_state: owner.state, record_id: owner.recordId, key: entry.key, data: JSON.stringify(entry) })
          .onConflict((oc) => oc.columns(['owner_state', 'record_id', 'key']).doUpdateSet({ data: JSON.stringify(entry) }))
          .execute();
      },
      async delete(owner, key) {
        await db.deleteFrom('file_entry').where('owner_state', '=', owner.state).where('record_id', '=', owner.recordId).where('key', '=', key).execute();
      },
      async deleteAll(owner) {
        await db.deleteFrom('file_entry').where('owner_state', '=', owner.state).where('record_id', '=', owner.recordId).execute();
      },
      async count(owner) {
        const row = await db
          .selectFrom('file_entry')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('owner_state', '=', owner.state)
          .where('record_id', '=', owner.recordId)
          .executeTakeFirst();
        return Number(row?.n ?? 0);
      },
    },
    users: {
      async create(user) {
        try {
          await db.insertInto('user').values(user).execute();
        } catch (e) {
          if (isUniqueViolation(e)) throw new DomainError('conflict', 'user.exists', `User ${user.email} already exists.`);
          throw e;
        }
      },
      async getByEmail(email) {
        return (await db.selectFrom('user').selectAll().where('email', '=', email).executeTakeFirst()) ?? null;
      },
      async getById(id) {
        return (await db.selectFrom('user').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
      },
      async addToken(token) {
        await db.insertInto('api_token').values({ hash: token.hash, id: token.id, user_id: token.userId, name: token.name, created: token.created }).execute();
      },
      async findTokenByHash(hash) {
        const row = await db.selectFrom('api_token').selectAll().where('hash', '=', hash).executeTakeFirst();
        return row ? { hash: row.hash, id: row.id, userId: row.user_id, name: row.name, created: row.created } : null;
      },
    },
    vocabularies: {
      async get(type, ids) {
        const found = new Map<string, VocabularyEntry>();
        for (let i = 0; i < ids.length; i += 500) {
          const rows = await db.selectFrom('vocabulary').select('data').where('type', '=', type).where('id', 'in', ids.slice(i, i + 500)).execute();
          for (const r of rows) {
            const e = parse<VocabularyEntry>(r.data);
            found.set(e.id, e);
          }
        }
        return found;
      },
      async upsert(entries) {
        for (let i = 0; i < entries.length; i += 200) {
          const rows = entries.slice(i, i + 200).map((e) => ({ type: e.type, id: e.id, data: JSON.stringify(e) }));
          if (rows.length === 0) continue;
          await db
            .insertInto('vocabulary')
            .values(rows)
            .onConflict((oc) => oc.columns(['type', 'id']).doUpdateSet((eb) => ({ data: eb.ref('excluded.data') })))
            .execute();
        }
        return entries.length;
      },
      async count(type) {
        const row = await db.selectFrom('vocabulary').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', type).executeTakeFirst();
        return Number(row?.n ?? 0);
      },
    },
  };
}
