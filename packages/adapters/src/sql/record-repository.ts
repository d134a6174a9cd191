/**
 * Drafts, published versions and parents. Revisions are checked in the statement itself (an
 * insert that finds the id taken, an update that finds another revision changes no row), so a
 * concurrent writer is refused even without a transaction.
 */
import { DomainError, isLarge, LARGE_JSON_CHARS, type DraftRecord, type RecordKind, type RecordRepository, type UpdatePosition, type VersionHead } from '@krs/domain';
import { sql, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { compiledOnce } from './compiled-once.ts';
import { changeStamps } from './create-db.ts';
import type { Database, DraftTable, ParentTable, RecordTable } from './database.ts';
import { lapsedEmbargoes } from './migrations/0004-embargo-index.ts';
import { recordUpdated } from './migrations/0005-record-updated-index.ts';
import { draftToRow, draftToRowInTurns, largeDraftRowWithoutMetadata, largeRowInTurns, parentToRow, recordToRow, recordToRowInTurns, rowToDraft, rowToParent, rowToRecord, rowToVersionHead, versionHeadOf } from './rows.ts';
import { nextIteration } from '../next-turn.ts';

/**
 * Versions past a position of the walk by (updated, id), worded so the planner seeks in the index
 * record_updated by its first column: written as `updated > a or (updated = a and id > b)`, SQLite
 * (once analysed) scanned the index from its start, 40 ms a page in the middle of a million
 * versions against under 1 ms.
 */
const pastPosition = (updated: RawBuilder<string | null>, after: UpdatePosition) =>
  sql`${updated} >= ${after.updated} and (${updated} > ${after.updated} or id > ${after.id})`;

const mismatch = () => new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');

/**
 * A row parsed; a large one (LARGE_JSON_CHARS) in slices with turns of the event loop between
 * them: the largest legal record takes 10-20 ms to parse at once, and a write reads its row back
 * twice while every other request would wait.
 */
async function parsed<R extends { data: string }, T>(row: R, parse: (row: R) => T): Promise<T> {
  if (row.data.length <= LARGE_JSON_CHARS) return parse(row);
  await nextIteration();
  return largeRowInTurns<T>(row);
}

async function parseRows<R extends { data: string }, T>(rows: R[], parse: (row: R) => T): Promise<T[]> {
  const out: T[] = [];
  for (const row of rows) out.push(await parsed(row, parse));
  return out;
}

async function parseRow<R extends { data: string }, T>(row: R | undefined, parse: (row: R) => T): Promise<T | null> {
  return row === undefined ? null : parsed(row, parse);
}

/** Bound parameters per statement stay well under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const IDS_PER_STATEMENT = 500;

async function byIds<T>(ids: readonly string[], load: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  const out: T[] = [];
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) out.push(...(await load(unique.slice(i, i + IDS_PER_STATEMENT))));
  return out;
}

/**
 * Stored bytes one statement reads when records are read by ids, a larger row alone: reading a
 * row is one native call whose time grows with its size (4-5 ms for the largest legal record),
 * and a listing, a sitemap step or a harvest page read up to 8 MiB of them in one statement.
 */
const BYTES_READ_AT_ONCE = 512 * 1024;

/**
 * Records by ids as `byIds` reads them, but weighed first by their stored sizes (an index-only
 * read) when several are asked for, so each statement reads at most BYTES_READ_AT_ONCE, or a
 * single larger row, with a turn of the event loop between statements. Ids of small records all
 * go into one statement, as before.
 */
async function weighedByIds<T>(ids: readonly string[], sizes: (ids: readonly string[]) => Promise<Map<string, number>>, load: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  if (unique.length <= 1) return byIds(unique, load);
  const weights = await sizes(unique);
  const groups: string[][] = [[]];
  let weight = 0;
  for (const id of unique) {
    const size = weights.get(id) ?? 0;
    const group = groups[groups.length - 1] as string[];
    if (group.length > 0 && (weight + size > BYTES_READ_AT_ONCE || group.length >= IDS_PER_STATEMENT)) {
      groups.push([id]);
      weight = size;
    } else {
      group.push(id);
      weight += size;
    }
  }
  const out: T[] = [];
  for (const [i, group] of groups.entries()) {
    if (i > 0) await nextIteration();
    out.push(...(await load(group)));
  }
  return out;
}

interface RevisionsRow {
  kind: string;
  revision_id: number;
  parent_revision_id: number;
  manager_revision_id: number | null;
}

/** Each save changes exactly one row or, by the checks in its statement, none. */
function expectOneRow(result: QueryResult<unknown>): void {
  if (Number(result.numAffectedRows ?? 0) !== 1) throw mismatch();
}

// The statements every create, update and publish runs, compiled once (compiled-once.ts).
type Expected = { expected: number };
const PARENT_COLUMNS = ['id', 'kind', 'updated', 'revision_id', 'data', 'managed_by'] as const;
const DRAFT_COLUMNS = ['id', 'parent_id', 'kind', 'revision_id', 'data'] as const;
const RECORD_COLUMNS = ['id', 'parent_id', 'kind', 'version_index', 'revision_id', 'data', 'head'] as const;
const insertParent = compiledOnce<ParentTable, never>(PARENT_COLUMNS, (db, row) =>
  db.insertInto('parent').values(row).onConflict((oc) => oc.column('id').doNothing()),
);
const updateParent = compiledOnce<ParentTable & Expected, never>([...PARENT_COLUMNS, 'expected'], (db, { expected, ...row }) =>
  db.updateTable('parent').set(row).where('id', '=', row.id).where('revision_id', '=', expected),
);
const insertDraft = compiledOnce<DraftTable, never>(DRAFT_COLUMNS, (db, row) =>
  db.insertInto('draft').values(row).onConflict((oc) => oc.column('id').doNothing()),
);
const updateDraft = compiledOnce<DraftTable & Expected, never>([...DRAFT_COLUMNS, 'expected'], (db, { expected, ...row }) =>
  db.updateTable('draft').set(row).where('id', '=', row.id).where('revision_id', '=', expected),
);
const insertRecord = compiledOnce<RecordTable, never>(RECORD_COLUMNS, (db, row) =>
  db.insertInto('record').values(row).onConflict((oc) => oc.column('id').doNothing()),
);
const updateRecord = compiledOnce<RecordTable & Expected, never>([...RECORD_COLUMNS, 'expected'], (db, { expected, ...row }) =>
  db.updateTable('record').set(row).where('id', '=', row.id).where('revision_id', '=', expected),
);
const dataById = (table: 'draft' | 'record' | 'parent', lock: boolean) =>
  compiledOnce<{ id: string }, { data: string }>(['id'], (db, { id }) => {
    const q = db.selectFrom(table as 'draft').select('data').where('id', '=', id);
    return lock ? q.forUpdate() : q;
  });
/**
 * A version's (or a draft's) revision, its parent's and, for a managed resource, its package
 * parent's, by primary keys: run on every anonymous record GET and every owner's draft GET. An
 * unmanaged resource's null `managed_by` joins nothing.
 */
const revisionsBy = (table: 'record' | 'draft') =>
  compiledOnce<{ id: string }, RevisionsRow>(['id'], (db, { id }) =>
    db
      .selectFrom(table)
      .innerJoin('parent', 'parent.id', `${table}.parent_id`)
      .leftJoin('parent as manager', 'manager.id', 'parent.managed_by')
      .select([`${table}.kind`, `${table}.revision_id`, 'parent.revision_id as parent_revision_id', 'manager.revision_id as manager_revision_id'])
      .where(`${table}.id`, '=', id),
  );
const revisionsById = { record: revisionsBy('record'), draft: revisionsBy('draft') } as const;
// octet_length reads the value's length from the row (SQLite 3.43+) or the TOAST header
// (PostgreSQL), never the value itself.
const storedSize = sql<number>`octet_length(data)`.as('bytes');
/** One row's stored size, by primary key: read before every record GET that is not answered from a kept answer. */
const sizeBy = (table: 'record' | 'draft') =>
  compiledOnce<{ id: string }, { id: string; bytes: number }>(['id'], (db, { id }) => db.selectFrom(table).select(['id', storedSize]).where('id', '=', id));
const sizeById = { published: sizeBy('record'), draft: sizeBy('draft') } as const;
const byId = {
  draft: [dataById('draft', false), dataById('draft', true)],
  record: [dataById('record', false), dataById('record', true)],
  parent: [dataById('parent', false), dataById('parent', true)],
} as const;

/**
 * `lockReads`: rows read are locked until the transaction ends (`FOR UPDATE`), so a unit of work
 * that reads, decides and writes holds off every other unit that reads the same rows, on this
 * node or another, instead of failing on their revision (PostgreSQL, inside a transaction only).
 */
export function createSqlRecordRepository(db: Kysely<Database>, options: { lockReads?: boolean } = {}): RecordRepository {
  const from = <T extends 'draft' | 'record' | 'parent'>(table: T) => {
    const q = db.selectFrom(table as 'draft').select('data');
    return options.lockReads ? q.forUpdate() : q;
  };
  const lock = options.lockReads === true ? 1 : 0;
  const rowById = async (table: 'draft' | 'record' | 'parent', id: string) => (await byId[table][lock](db, { id })).rows[0];
  const changeStamp = changeStamps.get(db);
  const revisionsIn = async (table: 'record' | 'draft', id: string) => {
    return revisionsOf(await revisionsById[table].first(db, { id }));
  };
  const revisionsOf = (row: RevisionsRow | undefined) =>
    // The kind column holds what recordToRow or draftToRow wrote from a typed record.
    row === undefined
      ? null
      : {
          kind: row.kind as RecordKind,
          revisionId: Number(row.revision_id),
          parentRevisionId: Number(row.parent_revision_id),
          managerRevisionId: row.manager_revision_id === null ? null : Number(row.manager_revision_id),
        };
  const storedSizes = async (state: 'draft' | 'published', ids: readonly string[]): Promise<Map<string, number>> => {
    const one = ids.length === 1 ? await sizeById[state].first(db, { id: ids[0] as string }) : undefined;
    const rows =
      ids.length === 1
        ? one === undefined ? [] : [one]
        : await byIds(ids, (chunk) =>
            db
              .selectFrom(state === 'draft' ? 'draft' : 'record')
              .select(['id', storedSize])
              .where('id', 'in', chunk)
              .execute(),
          );
    return new Map(rows.map((r) => [r.id, Number(r.bytes)]));
  };
  const publishedByIds = (ids: readonly string[]) =>
    weighedByIds(ids, (some) => storedSizes('published', some), async (chunk) => parseRows(await from('record').where('id', 'in', chunk).execute(), rowToRecord));
  return {
    async getDraft(id) {
      return parseRow(await rowById('draft', id), rowToDraft);
    },
    async getDraftWithoutMetadata(id) {
      const row = await rowById('draft', id);
      if (row === undefined) return null;
      if (row.data.length > LARGE_JSON_CHARS) {
        await nextIteration();
        return largeDraftRowWithoutMetadata(row);
      }
      const { metadata: _metadata, ...rest } = rowToDraft(row);
      return rest;
    },
    async getPublished(id) {
      return parseRow(await rowById('record', id), rowToRecord);
    },
    getPublishedRevisions: (id) => revisionsIn('record', id),
    // See `changeStamps`; a unit of work's repositories have none: null.
    changeStamp: () => changeStamp?.() ?? Promise.resolve(null),
    getDraftRevisions: (id) => revisionsIn('draft', id),
    async saveDraft(draft, expected) {
      const row = isLarge(draft.metadata) ? await draftToRowInTurns(draft) : draftToRow(draft);
      if (row.data.length > LARGE_JSON_CHARS) await nextIteration();
      expectOneRow(
        expected === null
          ? await insertDraft(db, row)
          : await updateDraft(db, { ...row, expected }),
      );
    },
    async deleteDraft(id) {
      await db.deleteFrom('draft').where('id', '=', id).execute();
    },
    async savePublished(record, expected) {
      const row = isLarge(record.metadata) ? await recordToRowInTurns(record) : recordToRow(record);
      if (row.data.length > LARGE_JSON_CHARS) await nextIteration();
      expectOneRow(
        expected === null
          ? await insertRecord(db, row)
          : await updateRecord(db, { ...row, expected }),
      );
    },
    async listPublishedVersions(parentId) {
      const rows = await db.selectFrom('record').select('data').where('parent_id', '=', parentId).orderBy('version_index', 'desc').execute();
      return parseRows(rows, rowToRecord);
    },
    async listVersionHeads(parentId) {
      const rows = await db.selectFrom('record').select(['id', 'version_index', 'revision_id', 'head']).where('parent_id', '=', parentId).orderBy('version_index', 'desc').execute();
      const heads = rows.map(rowToVersionHead);
      const missing = rows.filter((_, i) => heads[i] === null).map((r) => r.id);
      if (missing.length === 0) return heads as VersionHead[];
      const read = new Map((await publishedByIds(missing)).map((r) => [r.id, versionHeadOf(r)]));
      return heads.flatMap((head, i) => head ?? read.get((rows[i] as (typeof rows)[number]).id) ?? []);
    },
    async listDrafts(parentId, known = []) {
      if (known.length === 0) return parseRows(await db.selectFrom('draft').select('data').where('parent_id', '=', parentId).execute(), rowToDraft);
      // A known draft's row is answered without its data: reading a large one is itself a native
      // call of milliseconds, before its parse.
      const isKnown = sql.join(known.map((d) => sql`(id = ${d.id} and revision_id = ${d.revisionId})`), sql` or `);
      const rows = await db
        .selectFrom('draft')
        .select(['id', 'revision_id', sql<string | null>`case when ${isKnown} then null else data end`.as('data')])
        .where('parent_id', '=', parentId)
        .execute();
      const out: DraftRecord[] = [];
      for (const row of rows) {
        const same = row.data === null ? known.find((d) => d.id === row.id && d.revisionId === Number(row.revision_id)) : undefined;
        if (same !== undefined) out.push(same);
        else if (row.data !== null) out.push(await parsed({ data: row.data }, rowToDraft));
      }
      return out;
    },
    async getParent(id) {
      const row = await rowById('parent', id);
      return row ? rowToParent(row) : null;
    },
    async saveParent(parent, expected) {
      const row = parentToRow(parent);
      expectOneRow(
        expected === null
          ? await insertParent(db, row)
          : await updateParent(db, { ...row, expected }),
      );
    },
    async listParentIds(kinds, updatedSince) {
      if (kinds.length === 0) return [];
      let q = db.selectFrom('parent').select('id').where('kind', 'in', kinds);
      if (updatedSince !== undefined) q = q.where('updated', '>', updatedSince);
      return (await q.orderBy('id').execute()).map((r) => r.id);
    },
    async getDraftsByIds(ids) {
      return weighedByIds(ids, (some) => storedSizes('draft', some), async (chunk) => parseRows(await from('draft').where('id', 'in', chunk).execute(), rowToDraft));
    },
    getPublishedByIds: publishedByIds,
    storedSizes,
    async getParentsByIds(ids) {
      return byIds(ids, async (chunk) => parseRows(await from('parent').where('id', 'in', chunk).execute(), rowToParent));
    },
    async listLapsedEmbargoes(today, limit) {
      const rows = await lapsedEmbargoes(db, today, limit).execute(db);
      return rows.rows.map((r) => r.id);
    },
    async listPositionsByUpdate({ from, until, after, limit }) {
      // Worded as the index record_updated is, so a harvest page reads only its own rows' places.
      const updated = recordUpdated(db);
      const rows = await sql<{ updated: string; id: string; bytes: number }>`select ${updated} as updated, id, ${storedSize} from record
        where ${updated} is not null
        ${from === undefined ? sql`` : sql`and ${updated} >= ${from}`}
        ${until === undefined ? sql`` : sql`and ${updated} <= ${until}`}
        ${after === undefined ? sql`` : sql`and ${pastPosition(updated, after)}`}
        order by ${updated}, id limit ${limit}`.execute(db);
      return rows.rows.map((r) => ({ updated: r.updated, id: r.id, bytes: Number(r.bytes) }));
    },
    async positionAfter(after, count) {
      const updated = recordUpdated(db);
      const walk = (order: RawBuilder<unknown>, offset: number) =>
        sql<{ updated: string; id: string }>`select ${updated} as updated, id from record
          where ${updated} is not null ${after === undefined ? sql`` : sql`and ${pastPosition(updated, after)}`}
          order by ${order} limit 1 offset ${offset}`.execute(db);
      const nth = (await walk(sql`${updated}, id`, Math.max(0, count - 1))).rows[0];
      if (nth !== undefined) return { position: { updated: nth.updated, id: nth.id }, full: true };
      const last = (await walk(sql`${updated} desc, id desc`, 0)).rows[0];
      return last === undefined ? null : { position: { updated: last.updated, id: last.id }, full: false };
    },
  };
}
