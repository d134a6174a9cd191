/**
 * Row <-> domain conversions, the only place that knows how a value is laid out in its table.
 * The driver binds strings and numbers only, so objects go in as JSON text.
 */
import {
  encodeOnce,
  largeValueSlices,
  memberSpanInTurns,
  markLarge,
  parseJsonInTurns,
  jsonText,
  type ApiToken,
  type DraftRecord,
  type FileEntry,
  type FileOwner,
  type Parent,
  type PublishedRecord,
  type User,
  type VersionHead,
  type VocabularyEntry,
} from '@krs/domain';
import { matchText, sortKey } from '@krs/domain/vocabularies';
import type { ApiTokenTable, DraftTable, FileEntryTable, ParentTable, RecordTable, UserTable, VocabularyTable } from './database.ts';

// The JSON was written by the functions below from a typed value, so reading it back is trusted.
const parse = <T>(text: string): T => JSON.parse(text) as T;

/**
 * A large row's JSON parsed in slices (domain turns/json-in-turns.ts): the same value as the
 * `rowTo*` functions' JSON.parse of `data`, for drafts, versions and parents alike. Its metadata
 * is marked large, so whoever encodes it again takes turns too.
 */
export async function largeRowInTurns<T>(row: { data: string }): Promise<T> {
  const value = (await parseJsonInTurns(row.data, largeValueSlices())) as T;
  markLarge((value as { metadata?: unknown }).metadata);
  return value;
}

/**
 * A large record's JSON for its row, in slices. Its metadata's text is kept (domain
 * turns/encoded-once.ts): the answer and the search document that follow the save carry the same
 * objects, and splice it instead of encoding them again.
 */
async function largeRecordText(r: DraftRecord | PublishedRecord): Promise<string> {
  await encodeOnce(r.metadata, largeValueSlices());
  return jsonText(r, true);
}

export const parentToRow = (p: Parent): ParentTable => ({ id: p.id, kind: p.kind, updated: p.updated, revision_id: p.revisionId, data: JSON.stringify(p), managed_by: p.managedBy });
export const rowToParent = (row: Pick<ParentTable, 'data'>): Parent => parse<Parent>(row.data);

const draftRow = (d: DraftRecord, data: string): DraftTable => ({ id: d.id, parent_id: d.parentId, kind: d.kind, revision_id: d.revisionId, data });
export const draftToRow = (d: DraftRecord): DraftTable => draftRow(d, JSON.stringify(d));
export const rowToDraft = (row: Pick<DraftTable, 'data'>): DraftRecord => parse<DraftRecord>(row.data);
/**
 * A large draft's row without its metadata: only the rest of its JSON is parsed, the metadata's
 * text found by a scan (domain turns/json-member-span.ts). Rows are written by `JSON.stringify`
 * or the encoder in slices, so the scan finds the member as they write it.
 */
export async function largeDraftRowWithoutMetadata(row: { data: string }): Promise<Omit<DraftRecord, 'metadata'>> {
  const span = await memberSpanInTurns(row.data, 'metadata', largeValueSlices());
  const draft = span === null ? await largeRowInTurns<DraftRecord>(row) : parse<DraftRecord>(`${row.data.slice(0, span[0])}null${row.data.slice(span[1])}`);
  const { metadata: _metadata, ...rest } = draft;
  return rest;
}
export const draftToRowInTurns = async (d: DraftRecord): Promise<DraftTable> => draftRow(d, await largeRecordText(d));

const recordRow = (r: PublishedRecord, data: string): RecordTable => ({
  id: r.id,
  parent_id: r.parentId,
  kind: r.kind,
  version_index: r.versionIndex,
  revision_id: r.revisionId,
  data,
  head: JSON.stringify(storedHead(r)),
});
export const recordToRow = (r: PublishedRecord): RecordTable => recordRow(r, JSON.stringify(r));
export const recordToRowInTurns = async (r: PublishedRecord): Promise<RecordTable> => recordRow(r, await largeRecordText(r));
export const rowToRecord = (row: Pick<RecordTable, 'data'>): PublishedRecord => parse<PublishedRecord>(row.data);

/**
 * The members a version's `head` keeps (id and version index are columns of their own), and the
 * revision they were taken from: a row an earlier release updated without writing `head` has a
 * later `revision_id` than its head, and its head is read from `data`.
 */
type HeadFields = Omit<VersionHead, 'id' | 'versionIndex'>;
type StoredHead = HeadFields & { revision: number };
const headFields = ({ created, updated, access }: HeadFields): HeadFields => ({ created, updated, access });
const storedHead = (r: PublishedRecord): StoredHead => ({ revision: r.revisionId, ...headFields(r) });

/** A version's head from its row; null when the row has none, or one older than the row (see RecordTable.head). */
export function rowToVersionHead(row: Pick<RecordTable, 'id' | 'version_index' | 'revision_id' | 'head'>): VersionHead | null {
  if (row.head === null) return null;
  const head = parse<StoredHead>(row.head);
  return head.revision === Number(row.revision_id) ? { id: row.id, versionIndex: Number(row.version_index), ...headFields(head) } : null;
}
export const versionHeadOf = (r: PublishedRecord): VersionHead => ({ id: r.id, versionIndex: r.versionIndex, ...headFields(r) });

export const fileEntryToRow = (owner: FileOwner, e: FileEntry): FileEntryTable => ({ owner_state: owner.state, record_id: owner.recordId, key: e.key, data: JSON.stringify(e) });
export const rowToFileEntry = (row: Pick<FileEntryTable, 'data'>): FileEntry => parse<FileEntry>(row.data);

export const userToRow = (u: User): UserTable => ({ id: u.id, email: u.email, created: u.created });
export const rowToUser = (row: UserTable): User => ({ id: row.id, email: row.email, created: row.created });

export const tokenToRow = (t: ApiToken): ApiTokenTable => ({ hash: t.hash, id: t.id, user_id: t.userId, name: t.name, created: t.created });
export const rowToToken = (row: ApiTokenTable): ApiToken => ({ id: row.id, userId: row.user_id, name: row.name, hash: row.hash, created: row.created });

export const vocabularyToRow = (e: VocabularyEntry): VocabularyTable => ({
  type: e.type,
  id: e.id,
  data: JSON.stringify(e),
  sort_key: sortKey(e),
  match_text: matchText(e),
});
export const rowToVocabulary = (row: Pick<VocabularyTable, 'data'>): VocabularyEntry => parse<VocabularyEntry>(row.data);
