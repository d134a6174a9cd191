/**
 * The domain's ports: what it needs from the outside world, named by role.
 * Every port has a contract suite (packages/adapters/test/contracts) that the in-memory fakes
 * and the real adapters both pass.
 */
import type {
  ApiToken,
  DraftRecord,
  FileEntry,
  FileOwner,
  Parent,
  PublishedRecord,
  RecordKind,
  User,
  VersionHead,
  VocabularyEntry,
  VocabularyType,
} from './model/types.ts';
import type { VocabularyPage, VocabularyPageQuery } from './vocabularies/vocabulary-listing.ts';

/**
 * Drafts and published versions of both record kinds. Saves are optimistic: `expectedRevision`
 * null means "insert, must not exist"; a number means "update, must currently have this
 * revision"; on mismatch the adapter throws DomainError kind `conflict` code `revision.mismatch`.
 */
export interface RecordRepository {
  getDraft(id: string): Promise<DraftRecord | null>;
  /**
   * A draft without its metadata, for a write that replaces it: a large draft's stored metadata
   * (megabytes of JSON) is then neither parsed nor held while the write goes on.
   */
  getDraftWithoutMetadata(id: string): Promise<Omit<DraftRecord, 'metadata'> | null>;
  getPublished(id: string): Promise<PublishedRecord | null>;
  /**
   * The revisions of a published version and of its parent, read together by primary key and
   * cheap enough for every request: each write to either bumps one of them. Null when the
   * version or its parent does not exist.
   */
  getPublishedRevisions(id: string): Promise<PublishedRevisions | null>;
  /** The same for a draft and its parent: what a draft read by its owner is made of. */
  getDraftRevisions(id: string): Promise<PublishedRevisions | null>;
  saveDraft(draft: DraftRecord, expectedRevision: number | null): Promise<void>;
  deleteDraft(id: string): Promise<void>;
  savePublished(record: PublishedRecord, expectedRevision: number | null): Promise<void>;
  /** Published versions of a parent, highest `versionIndex` first. */
  listPublishedVersions(parentId: string): Promise<PublishedRecord[]>;
  /** The heads of the same versions, same order, read without reading the versions themselves. */
  listVersionHeads(parentId: string): Promise<VersionHead[]>;
  /**
   * Drafts of a parent, any order. A draft of `known` whose stored revision is still the known
   * one's is answered as that very value, its stored JSON not read: a write's projection holds
   * the draft it has just saved, which reading back cost the largest legal record a parse of
   * megabytes and the objects that parse makes.
   */
  listDrafts(parentId: string, known?: readonly DraftRecord[]): Promise<DraftRecord[]>;
  getParent(id: string): Promise<Parent | null>;
  /** Several at once (a page of search hits), in any order; ids that do not exist are left out. */
  getDraftsByIds(ids: readonly string[]): Promise<DraftRecord[]>;
  getPublishedByIds(ids: readonly string[]): Promise<PublishedRecord[]>;
  getParentsByIds(ids: readonly string[]): Promise<Parent[]>;
  /**
   * How large each stored draft or published version is (its stored JSON, in bytes or close to
   * it), read without loading it: a listing weighs its page before reading records of up to
   * megabytes each. Ids that do not exist are left out.
   */
  storedSizes(state: 'draft' | 'published', ids: readonly string[]): Promise<Map<string, number>>;
  saveParent(parent: Parent, expectedRevision: number | null): Promise<void>;
  /**
   * Parent ids of the given kinds, for rebuilding projections; with `updatedSince`, only parents
   * whose `updated` is later (every write to any version of a parent bumps the parent).
   */
  listParentIds(kinds: RecordKind[], updatedSince?: string): Promise<string[]>;
  /**
   * Ids of published versions whose embargo is still marked active though its day (`until`, a
   * `YYYY-MM-DD` date) is `today` or earlier, at most `limit`, in id order: the embargoes to lift.
   */
  listLapsedEmbargoes(today: string, limit: number): Promise<string[]>;
  /**
   * Where published versions stand in the order of their `updated` instant, ties by id: the order
   * harvesters walk (OAI-PMH), with each version's stored size, read without reading the
   * versions (which a caller then reads a weighed batch at a time). Only versions with
   * `from <= updated <= until` (ISO strings; either bound may be absent) and strictly after the
   * `after` position, at most `limit`.
   */
  listPositionsByUpdate(query: UpdateOrderQuery): Promise<UpdateStep[]>;
  /**
   * Where the walk of listPositionsByUpdate stands `count` versions after `after` (from the start
   * without it): the `count`-th version's position, `full`; when fewer remain, the last one's, not
   * `full`; null when none remain. Reads the order alone, not the versions: how a long walk is cut
   * into parts without reading them.
   */
  positionAfter(after: UpdatePosition | undefined, count: number): Promise<{ position: UpdatePosition; full: boolean } | null>;
  /**
   * A value that differs from the one read before whenever a write has committed in between, by
   * this process or any other sharing the store; cheap enough for every request. Null when the
   * store cannot tell (or inside a unit of work): then nothing that depends on every record may
   * be kept. What a listing shows depends on every record, so it is kept under this.
   */
  changeStamp(): Promise<string | null>;
}

/** The revisions of a version (a draft's, for `getDraftRevisions`) and of its parent. */
export interface PublishedRevisions {
  kind: RecordKind;
  revisionId: number;
  parentRevisionId: number;
  /** For a resource a package manages, the revision of that package's parent; else null. */
  managerRevisionId: number | null;
}

/** A place in the walk of published versions by `updated`, then id: the last version passed. */
export interface UpdatePosition {
  updated: string;
  id: string;
}

/** A version's place in that walk, and its stored size (as `storedSizes` gives it). */
export interface UpdateStep extends UpdatePosition {
  bytes: number;
}

export interface UpdateOrderQuery {
  from?: string;
  until?: string;
  after?: UpdatePosition;
  limit: number;
}

/** File entries of a draft or a published version. Keys are unique per owner. */
export interface FileRepository {
  list(owner: FileOwner): Promise<FileEntry[]>;
  get(owner: FileOwner, key: string): Promise<FileEntry | null>;
  /** Inserts or replaces the entry with this key. */
  save(owner: FileOwner, entry: FileEntry): Promise<void>;
  delete(owner: FileOwner, key: string): Promise<void>;
  deleteAll(owner: FileOwner): Promise<void>;
  count(owner: FileOwner): Promise<number>;
  /** Whether any entry (draft or published, any record) points at the blob: bytes may go only when none does. */
  referencesBlob(blobId: string): Promise<boolean>;
  /** Every blob id some entry (draft or published, any record) points at. */
  referencedBlobIds(): Promise<Set<string>>;
  /**
   * Entries of every owner, in `OwnedFileEntry` order (entry `updated`, then owner state, record
   * id, key), after `after` and updated at or after `updatedSince`, at most `limit` of them:
   * pages for a sweep over all stored content that needs no more memory than one page.
   */
  listAll(options: { after?: FileEntryCursor; updatedSince?: string; limit: number }): Promise<OwnedFileEntry[]>;
}

/**
 * Uploads in flight: blobs being written to storage, or written, that no file entry points at
 * yet. An upload records its blob before the first byte goes to storage, renews the record while
 * bytes flow, and ends it in the transaction that points an entry at the blob: `krs gc` keeps
 * a blob whose record is fresh, whatever time the storage gives the blob. A record untouched
 * for longer than gc's grace period is a crashed upload's (or a stalled one's): gc ends it and
 * deletes its blob, and the upload, should it go on, finds its record gone and fails.
 *
 * `renew`, `end` and `endIfStale` each change the record or find it gone in one statement, so
 * of an upload's commit and gc's claim exactly one wins.
 */
export interface BlobUploadRepository {
  /** Records that the blob's upload begins at `at` (ISO 8601 UTC). */
  begin(blobId: string, at: string): Promise<void>;
  /** Marks the upload alive at `at`; false when its record is gone (gc ended it as stale). */
  renew(blobId: string, at: string): Promise<boolean>;
  /** Ends the upload; false when its record was already gone. */
  end(blobId: string): Promise<boolean>;
  /** Ends the upload only if it was last marked alive before `before`; true when it did. */
  endIfStale(blobId: string, before: string): Promise<boolean>;
  /** Every upload in flight: blob id to when it was last marked alive. */
  list(): Promise<Map<string, string>>;
}

export interface OwnedFileEntry {
  owner: FileOwner;
  entry: FileEntry;
}

/** Where a `listAll` page ended. */
export interface FileEntryCursor {
  updated: string;
  state: FileOwner['state'];
  recordId: string;
  key: string;
}

export interface UserRepository {
  /** Throws `conflict` code `user.exists` when the email is taken. */
  create(user: User): Promise<void>;
  getByEmail(email: string): Promise<User | null>;
  getById(id: string): Promise<User | null>;
  addToken(token: ApiToken): Promise<void>;
  findTokenByHash(hash: string): Promise<ApiToken | null>;
  /** The user's tokens, oldest first (by creation, then id). */
  listTokens(userId: string): Promise<ApiToken[]>;
  /** Deletes these tokens of the user (by id); ids of other users' tokens and unknown ids are skipped. Returns how many were deleted. */
  removeTokens(userId: string, ids: readonly string[]): Promise<number>;
}

/** Imported vocabulary entries; the domain layers its shipped defaults under these. */
export interface VocabularyRepository {
  get(type: VocabularyType, ids: readonly string[]): Promise<Map<string, VocabularyEntry>>;
  /** Inserts or replaces by (type, id). Returns how many were written. */
  upsert(entries: readonly VocabularyEntry[]): Promise<number>;
  count(type: VocabularyType): Promise<number>;
  /** Imported entries of a type, by id in code-unit order. */
  list(type: VocabularyType): Promise<VocabularyEntry[]>;
  /** Deletes these ids of a type; unknown ids are skipped. Returns how many were deleted. */
  remove(type: VocabularyType, ids: readonly string[]): Promise<number>;
  /**
   * One page of a type's imported entries that the filter keeps, in `sortKey` order (code units),
   * with how many it keeps in all. Bounded by the page, not the type: stores read it through an
   * index on (type, sort key) and never hold the whole type.
   */
  page(type: VocabularyType, query: VocabularyPageQuery): Promise<VocabularyPage>;
}

export interface Repositories {
  records: RecordRepository;
  files: FileRepository;
  blobUploads: BlobUploadRepository;
  users: UserRepository;
  vocabularies: VocabularyRepository;
}

/**
 * Runs `work` in one transaction: all its saves commit together or not at all. Inside, use only
 * the `tx` repositories (on SQLite the outer handle would wait for the transaction forever).
 */
export interface UnitOfWork {
  run<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * True when each unit writes the search documents of the parents it changed in its own
   * transaction (and projects again after commit what the index could not take): the use cases
   * then do not project after it.
   */
  readonly projectsSearch?: boolean;
  /** Throws unless the database answers a query; cheap enough for a readiness probe every second. */
  check(): Promise<void>;
}

export interface WriteLimits {
  /** Reject (DomainError `too_large`, nothing kept) past this many bytes. */
  maxBytes: number;
  /** When given, the body must have exactly this many bytes (else DomainError `invalid`, nothing kept). */
  expectedLength?: number | undefined;
}

export interface StoredBlob {
  size: number;
  /** Hex md5 digest of the bytes. */
  md5: string;
}

/**
 * A reader's own buffers: called for each chunk with the most it will read, it returns where to
 * read it (any length of at least one byte; a shorter one makes a shorter chunk). A download
 * answers with the same buffer each time its connection has sent the chunk before, so a large
 * file read by thousands of clients leaves no chunk behind for the collector.
 */
export type ReadBuffers = (bytes: number) => Uint8Array;

/**
 * Immutable blobs addressed by ids the domain builds (never from file names). `write` is atomic:
 * the bytes are visible under `blobId` only once complete and durable; a failed write leaves nothing.
 */
export interface FileStorage {
  write(blobId: string, body: AsyncIterable<Uint8Array>, limits: WriteLimits): Promise<StoredBlob>;
  /**
   * The bytes, or the inclusive range [start, end]. Throws `not_found` if the blob is missing.
   * With `buffers`, a storage that reads into memory of its own (the filesystem's) reads each
   * chunk into the buffer it returns instead (see ReadBuffers); others may ignore it.
   */
  read(blobId: string, range?: { start: number; end: number }, buffers?: ReadBuffers): Promise<ReadableStream<Uint8Array>>;
  /** Up to `bytes` first bytes, for sniffing image sizes. */
  readHead(blobId: string, bytes: number): Promise<Uint8Array>;
  delete(blobId: string): Promise<void>;
  /**
   * Removes what writes cut short by a crash left behind, untouched since before `before` (ISO
   * 8601 UTC); a write in flight keeps touching its partial data and is never removed.
   * Returns how many partial writes went and their bytes.
   */
  sweepPartialWrites(before: string): Promise<{ removed: number; bytes: number }>;
  exists(blobId: string): Promise<boolean>;
  /** Every stored blob, with its size and when it was written (ISO 8601 UTC). */
  list(): AsyncIterable<StoredBlobInfo>;
  /** Throws unless blobs can be read and written; cheap enough for a readiness probe every second. */
  check(): Promise<void>;
}

export interface StoredBlobInfo {
  id: string;
  size: number;
  written: string;
}

/**
 * sha-256 of a text (its UTF-8 bytes) as lower-case hex, for personal access tokens: every
 * authenticated request digests its bearer token once. Without one the domain uses WebCrypto,
 * whose digest is asynchronous (on Node, a round trip through the thread pool for 43 bytes).
 */
export interface Digest {
  sha256Hex(text: string): string;
}

export interface Clock {
  /** ISO 8601 UTC, e.g. `2026-11-22T10:00:00.123Z`. */
  now(): string;
}

export interface IdGenerator {
  /** 10 lowercase Crockford base32 characters as `xxxxx-xxxxx`; used for records and parents. */
  recordId(): string;
  uuid(): string;
  /** An unguessable secret for access links and personal tokens. */
  secret(): string;
}

export type SortOption = 'bestmatch' | 'newest' | 'oldest' | 'version' | 'updated-desc' | 'updated-asc';

/** [west, south, east, north] in WGS84 degrees; west > east crosses the antimeridian. */
export type BBox = readonly [number, number, number, number];

/**
 * One geometry part as the bbox filter decides it exactly, coordinates as flat `[x0, y0, x1, y1, ...]`
 * lists (longitude, latitude). A polygon's first ring is its outline, the others its holes. A part
 * past the per-record vertex cap is kept as its `box` only, so it matches like its bounds.
 */
export type Shape =
  | { type: 'point'; xy: [number, number] }
  | { type: 'line'; xy: number[] }
  | { type: 'polygon'; rings: number[][] }
  | { type: 'box'; box: BBox };

/**
 * What the index holds per draft or published version. The use cases compute the flags from the
 * parent's state so the index answers every listing with plain filters.
 */
export interface SearchDocument {
  /** `${state}:${id}`: a draft and the published version of one id are distinct documents. */
  key: string;
  id: string;
  kind: RecordKind;
  state: 'draft' | 'published';
  parentId: string;
  ownerId: string;
  versionIndex: number;
  /** Published only: this is the latest published version of its parent. */
  isLatest: boolean;
  /** Shown in the owner's listing: every draft, and a published version with no open draft of the same id. */
  inUserListing: boolean;
  /** Among its parent's `inUserListing` documents, the one with the highest version index. */
  isUserLatest: boolean;
  /** Anyone may read it (published with `access.record` public). */
  isPublic: boolean;
  /** User ids who may read it when it is not public. */
  readers: string[];
  created: string;
  updated: string;
  /** Facet values. */
  resourceType: { id: string; label: string } | null;
  accessStatus: 'open' | 'restricted' | 'embargoed' | 'metadata-only';
  /** Geometry bounds of `metadata.locations.features[].geometry`, one box per geometry part. */
  bounds: BBox[];
  /**
   * The same parts exactly, deciding between documents whose bounds meet a query box; absent,
   * the bounds are taken as exact (documents built by hand, points).
   */
  shapes?: Shape[];
  /**
   * The record as the API shows it (id, metadata, access, parent.id, ...), for full text and
   * `field:value` queries on dotted paths.
   */
  body: { [key: string]: unknown };
}

export interface SearchFilter {
  kinds: RecordKind[];
  /** true: published documents only; false: drafts only; absent: both. */
  published?: boolean;
  /** Only `isLatest` published documents. */
  latestOnly?: boolean;
  /** Only `inUserListing` documents of this owner (and `isUserLatest` unless `allVersions`). */
  userListing?: { ownerId: string; allVersions: boolean };
  parentId?: string;
  ids?: readonly string[];
  /** Visibility: null is anonymous (public only); a user also sees documents listing them as reader. */
  viewerId: string | null;
  /** Facet filters: OR within a facet, AND across facets. */
  facets?: { [facet in FacetName]?: readonly string[] };
}

export type FacetName = 'resource_type' | 'access_status' | 'record_type';

export interface SearchRequest {
  filter: SearchFilter;
  /** Query-string syntax; null or empty means no query. */
  q: string | null;
  bbox: BBox | null;
  sort: SortOption;
  page: number;
  size: number;
  /** Which facets to count (over the filtered, queried set, before paging). */
  aggregations: readonly FacetName[];
}

export interface FacetBucket {
  key: string;
  docCount: number;
  label: string;
}

export interface SearchResult {
  total: number;
  hits: { id: string; kind: RecordKind; state: 'draft' | 'published' }[];
  aggregations: { [facet in FacetName]?: FacetBucket[] };
}

/** A projection of the database; updated after each commit, rebuildable from the repositories. */
export interface SearchIndex {
  /** Inserts or replaces by `key`. */
  upsert(docs: readonly SearchDocument[]): Promise<void>;
  remove(keys: readonly string[]): Promise<void>;
  /** Keys of all documents of a parent, so a re-projection can drop the stale ones. */
  keysOfParent(parentId: string): Promise<string[]>;
  search(request: SearchRequest): Promise<SearchResult>;
  clear(): Promise<void>;
  /**
   * Optional, for an index that writes a whole rebuild faster in bulk than document by document:
   * clears it, as `clear`, and gives the writer of the rebuild's documents, whose `finish` makes
   * what the index derives from all of them (counts, kept scores) once, after the last write.
   * Until `finish`, searches may count the rebuild's documents short, as they miss those not yet written.
   */
  rebuild?(): Promise<SearchIndexRebuild>;
  /** Throws unless the index answers a lookup; cheap enough for a readiness probe every second. */
  check(): Promise<void>;
  /**
   * A value that differs from the one read before whenever a search may have answered otherwise
   * since: after each write to the index, by this process or another. Null while a write is under
   * way (a search may then see part of it) or when the index cannot tell. Cheap enough for every
   * request.
   */
  stamp(): string | null;
}

/** The writes of a rebuild (`SearchIndex.rebuild`), as `upsert` and `remove` are, then `finish`. */
export interface SearchIndexRebuild {
  upsert(docs: readonly SearchDocument[]): Promise<void>;
  remove(keys: readonly string[]): Promise<void>;
  finish(): Promise<void>;
}

/**
 * What the answers being made and sent hold in memory, bounded for the process as a whole: the
 * host's to keep (the server's takes it from the budget request bodies and downloads share).
 * `take` is told the stored bytes of the records an answer is about to read, before they are
 * read; it throws an error of the host's when the process already holds all it may.
 */
export interface AnswerMemory {
  take(storedBytes: number): void;
}
