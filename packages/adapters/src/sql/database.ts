/**
 * The typed schema. Portable column types only (text ids, ISO text timestamps, integers, JSON as
 * text) so another dialect can be swapped in at create-db.ts. Whole aggregates are stored as JSON
 * in `data`, so a new domain field needs no migration; the columns beside it are copies of the
 * fields that queries filter, order or check revisions on, written from the same value by rows.ts.
 */
export interface ParentTable {
  id: string;
  kind: string;
  updated: string;
  revision_id: number;
  data: string;
  /** `data.managedBy`: the package parent whose context holds this resource (migration 0010). */
  managed_by: string | null;
}

export interface DraftTable {
  id: string;
  parent_id: string;
  kind: string;
  revision_id: number;
  data: string;
}

/** Published versions. */
export interface RecordTable {
  id: string;
  parent_id: string;
  kind: string;
  version_index: number;
  revision_id: number;
  data: string;
  /**
   * The version's head (rows.ts `rowToVersionHead`): what listing a parent's versions reads
   * instead of every version in full. Null in a row the 0009 migration could not read (and in rows
   * an earlier release inserts); the head is then read from `data`.
   */
  head: string | null;
}

export interface FileEntryTable {
  /** 'draft' or 'published': a record id has one set of files per state. */
  owner_state: string;
  record_id: string;
  key: string;
  data: string;
}

/** Uploads in flight: a blob written, or being written, that no entry points at yet. */
export interface BlobUploadTable {
  blob_id: string;
  /** When the upload was last marked alive (ISO 8601 UTC). */
  touched: string;
}

export interface UserTable {
  id: string;
  email: string;
  created: string;
}

export interface ApiTokenTable {
  hash: string;
  id: string;
  user_id: string;
  name: string;
  created: string;
}

export interface VocabularyTable {
  type: string;
  id: string;
  data: string;
  /** vocabulary-listing.ts `sortKey`: the listing order. */
  sort_key: string;
  /** vocabulary-listing.ts `matchText`: the words a listing filters on, space-delimited. */
  match_text: string;
}

export interface Database {
  parent: ParentTable;
  draft: DraftTable;
  record: RecordTable;
  file_entry: FileEntryTable;
  blob_upload: BlobUploadTable;
  user: UserTable;
  api_token: ApiTokenTable;
  vocabulary: VocabularyTable;
}
