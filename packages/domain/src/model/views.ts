/**
 * What use cases return to the server: the stored data plus what a reader needs derived from the
 * parent. The server turns these into API JSON (serialize.ts); no field here is in API form.
 */
import type { FieldIssue } from '../errors.ts';
import type { AccessLink, AnyRecord, FileEntry, FilesOptions, Parent, RecordKind } from './types.ts';

export interface VersionsInfo {
  index: number;
  /** The latest published version of its parent. Always false for drafts. */
  isLatest: boolean;
  /** The newest draft of its parent, or, for a published version, the latest with no newer draft. */
  isLatestDraft: boolean;
}

export interface RecordView {
  record: AnyRecord;
  parent: Parent;
  versions: VersionsInfo;
  /** Draft validation problems (top-level `errors` in the API); empty for published records. */
  issues: FieldIssue[];
  /** Whether people's e-mail addresses are left in `record.metadata`: only in a draft shown to those who may edit it. */
  emailsShown: boolean;
  /**
   * A published resource read on its own (GET, landing page, harvest): the package whose context
   * holds it. Null for a resource no package manages and for packages; undefined where it was not
   * looked up (listings, drafts), which then show no "part of" and keep no answer that needs one.
   */
  holder?: PackageHolder | null;
}

/** What a reader may see of the package whose context holds a resource: its latest version they may read. */
export interface PartOf {
  /** The package's parent, whose context holds the resource (`parent.relationship.managed_by`). */
  parentId: string;
  /** That version's id. */
  id: string;
  title: string;
  doi: string | null;
}

/** The package holding a resource, as one reader sees it. */
export interface PackageHolder {
  /**
   * The revision of the package's parent. Every write to any of its versions bumps it (publish,
   * edit, new version, embargo lifted), so a resource's kept answers are stamped with it too.
   */
  revisionId: number;
  /** A version of the package is under an embargo, which reads as lifted from its day on, without a write. */
  lapses: boolean;
  /** Null when the reader may read no published version: a draft-only package, or a restricted one. Nothing of it is shown then. */
  shown: PartOf | null;
}

export interface FilesView {
  kind: RecordKind;
  recordId: string;
  state: 'draft' | 'published';
  /** The version's file set id (`bucket_id` of each committed entry). */
  bucketId: string;
  options: FilesOptions;
  entries: FileEntry[];
}

export interface FileView {
  kind: RecordKind;
  recordId: string;
  state: 'draft' | 'published';
  bucketId: string;
  entry: FileEntry;
  /** A published file read: the read stamp its answers to anonymous readers may be kept under (model/read-stamp.ts). */
  readStamp?: string | null;
}

export interface FileContent {
  entry: FileEntry;
  body: ReadableStream<Uint8Array>;
  /** Present for a range request: the inclusive byte range served. */
  range: { start: number; end: number } | null;
}

export interface AccessLinkView {
  kind: RecordKind;
  recordId: string;
  link: AccessLink;
  /** Derived from the link id, never stored. */
  token: string;
}

/** A page of search hits, loaded from the repositories (never from the index). */
export interface SearchPage {
  total: number;
  hits: RecordView[];
  aggregations: { [facet: string]: { key: string; docCount: number; label: string; isSelected: boolean }[] };
  sortBy: string;
  page: number;
  size: number;
  /** An anonymous caller's listing: the read stamp its answer may be kept under (see `listingReadStamp`); null when it must not be. */
  readStamp?: string | null;
}
