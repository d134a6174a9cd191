/**
 * The stored shapes of the domain. Plain immutable data: transitions live in the sibling modules.
 * Timestamps are ISO 8601 UTC strings (`2026-11-22T10:00:00.000000Z` precision is the clock's);
 * the server formats them per record kind.
 */

export type RecordKind = 'resource' | 'package';
export type Visibility = 'public' | 'restricted';

export interface Embargo {
  active: boolean;
  until: string | null;
  reason: string | null;
}

export interface Access {
  record: Visibility;
  files: Visibility;
  embargo: Embargo;
}

export interface FilesOptions {
  enabled: boolean;
  defaultPreview: string | null;
  order: string[];
}

/** Normalised metadata as stored: vocabulary fields already expanded, computed names rebuilt. */
export type Metadata = { [field: string]: unknown };

export interface OaiPid {
  provider: string;
  identifier: string;
}

export type Pids = { [scheme: string]: unknown };

/** What a client edits; the same for drafts and published versions. */
export interface RecordContent {
  access: Access;
  files: FilesOptions;
  metadata: Metadata;
  pids: Pids;
  /** Packages only; empty object on resources. */
  customFields: { [key: string]: unknown };
  /** Packages only: ids of the resources attached to this version (`relationship.resources`). */
  resources: string[];
}

interface VersionBase extends RecordContent {
  id: string;
  kind: RecordKind;
  parentId: string;
  versionIndex: number;
  /** Identifies the set of files of this version (the API's `bucket_id`). */
  bucketId: string;
  created: string;
  updated: string;
  revisionId: number;
}

/**
 * A draft. Its id equals the published record's id when it edits that record (an "edit draft"),
 * and is a fresh id for a first draft or a new version.
 */
export interface DraftRecord extends VersionBase {
  state: 'draft';
  /** Informational only (API-DECISIONS): the draft's creation time. */
  expiresAt: string;
  /** Whether a published version with this id exists, i.e. this is an edit draft. Kept in sync by the use cases. */
  isEditOfPublished: boolean;
  /** Draft-level validation problems from the last save (kept so GET shows them too). */
  issues: { field: string; messages: string[] }[];
}

export interface PublishedRecord extends VersionBase {
  state: 'published';
  publishedAt: string;
}

export type AnyRecord = DraftRecord | PublishedRecord;

/**
 * What listing a record's versions needs of each published version before reading any of them in
 * full: which may be shown to whom (its access) and where it sorts. A parent may have hundreds of
 * versions of up to megabytes each; a page of them reads only its own.
 */
export type VersionHead = Pick<PublishedRecord, 'id' | 'versionIndex' | 'created' | 'updated' | 'access'>;

export type AccessPermission = 'view' | 'preview' | 'edit';

export interface AccessLink {
  id: string;
  permission: AccessPermission;
  createdAt: string;
  expiresAt: string | null;
  createdBy: string;
}

/**
 * State shared by all versions of a record (InvenioRDM's parent): ownership, access links,
 * version pointers and, for packages, the context of associated resources.
 */
export interface Parent {
  id: string;
  kind: RecordKind;
  ownerId: string;
  accessLinks: AccessLink[];
  /** Id of the latest published version, null until the first publish. */
  latestPublishedId: string | null;
  latestPublishedIndex: number;
  /** Id of the draft that will become the next version (first draft or new-version draft), if any. */
  nextDraftId: string | null;
  /** Packages: ids of the resources in the context, shared by every version. */
  context: string[];
  /** Resources: parent id of the package whose context holds this resource, if any. */
  managedBy: string | null;
  created: string;
  updated: string;
  revisionId: number;
}

export type FileStatus = 'pending' | 'completed';

/** The stored bytes a file entry points at. Blobs are immutable and may be shared between versions. */
export interface BlobRef {
  id: string;
  size: number;
  /** Hex md5 digest. */
  md5: string;
}

export interface FileEntry {
  key: string;
  status: FileStatus;
  created: string;
  updated: string;
  /** Bytes uploaded for a pending file, or the committed content. */
  blob: BlobRef | null;
  /** Null until commit; then free-form, with `width`/`height` for images. */
  metadata: { [key: string]: unknown } | null;
  mimetype: string | null;
  fileId: string | null;
  versionId: string | null;
  storageClass: string | null;
}

/** Whose files: the draft or the published version of a record id. */
export interface FileOwner {
  recordId: string;
  state: 'draft' | 'published';
}

export interface User {
  id: string;
  email: string;
  created: string;
}

export interface ApiToken {
  id: string;
  userId: string;
  name: string;
  /** Hex sha-256 of the token; the token itself is never stored. */
  hash: string;
  created: string;
}

export interface VocabularyEntry {
  type: VocabularyType;
  id: string;
  title: { [lang: string]: string };
  description?: { [lang: string]: string };
  icon?: string;
  props?: { [key: string]: string };
  tags?: string[];
}

export const VOCABULARY_TYPES = [
  'resource_types',
  'licenses',
  'languages',
  'affiliations',
  'subjects',
  'relation_types',
  'roles',
  'description_types',
  'target_audiences',
  'engagement_priorities',
  'geo_work_programme_activities',
] as const;
export type VocabularyType = (typeof VOCABULARY_TYPES)[number];

/** Who is calling: a signed-in user, or anonymous; plus the access links whose tokens came with the request. */
export interface Identity {
  userId: string | null;
  /** Ids of links whose genuine tokens were presented (see `identify`); each grants what its link allows. */
  linkIds: string[];
}

export const anonymous: Identity = { userId: null, linkIds: [] };
