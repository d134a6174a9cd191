/**
 * Draft, publish and version transitions of a record of either kind. Pure: time and ids are passed in.
 */
import type { FieldIssue } from '../errors.ts';
import type { VersionsInfo } from './views.ts';
import type {
  Access,
  AnyRecord,
  DraftRecord,
  FilesOptions,
  Metadata,
  Parent,
  Pids,
  PublishedRecord,
  RecordKind,
} from './types.ts';

/** Edits a client may send, already checked for JSON types by the server. */
export interface DraftInput {
  access?: {
    record?: Access['record'];
    files?: Access['files'];
    embargo?: { active?: boolean; until?: string | null; reason?: string | null };
  };
  files?: { enabled?: boolean; defaultPreview?: string | null; order?: string[] };
  metadata?: unknown;
  pids?: Pids;
  customFields?: { [key: string]: unknown };
}

export const defaultAccess = (): Access => ({
  record: 'public',
  files: 'public',
  embargo: { active: false, until: null, reason: null },
});

export const defaultFiles = (kind: RecordKind): FilesOptions => ({
  // Packages group resources and rarely carry files of their own.
  enabled: kind === 'resource',
  defaultPreview: null,
  order: [],
});

export function mergeAccess(current: Access, input: DraftInput['access']): Access {
  if (!input) return current;
  return {
    record: input.record ?? current.record,
    files: input.files ?? current.files,
    embargo: {
      active: input.embargo?.active ?? current.embargo.active,
      until: input.embargo?.until !== undefined ? input.embargo.until : current.embargo.until,
      reason: input.embargo?.reason !== undefined ? input.embargo.reason : current.embargo.reason,
    },
  };
}

export function mergeFiles(current: FilesOptions, input: DraftInput['files']): FilesOptions {
  if (!input) return current;
  return {
    enabled: input.enabled ?? current.enabled,
    defaultPreview: input.defaultPreview !== undefined ? input.defaultPreview : current.defaultPreview,
    order: input.order ?? current.order,
  };
}

export function newParent(id: string, kind: RecordKind, ownerId: string, now: string): Parent {
  return {
    id,
    kind,
    ownerId,
    accessLinks: [],
    latestPublishedId: null,
    latestPublishedIndex: 0,
    nextDraftId: null,
    context: [],
    managedBy: null,
    created: now,
    updated: now,
    revisionId: 0,
  };
}

export const touchParent = (parent: Parent, now: string, change: Partial<Parent> = {}): Parent => ({
  ...parent,
  ...change,
  updated: now,
  revisionId: parent.revisionId + 1,
});

export interface NewDraftArgs {
  id: string;
  kind: RecordKind;
  parentId: string;
  bucketId: string;
  versionIndex: number;
  now: string;
  access: Access;
  files: FilesOptions;
  metadata: Metadata;
  pids: Pids;
  customFields: { [key: string]: unknown };
  resources: string[];
  issues: FieldIssue[];
}

export function newDraft(a: NewDraftArgs): DraftRecord {
  return {
    state: 'draft',
    id: a.id,
    kind: a.kind,
    parentId: a.parentId,
    versionIndex: a.versionIndex,
    bucketId: a.bucketId,
    created: a.now,
    updated: a.now,
    revisionId: 1,
    expiresAt: a.now,
    isEditOfPublished: false,
    issues: a.issues,
    access: a.access,
    files: a.files,
    metadata: a.metadata,
    pids: a.pids,
    customFields: a.customFields,
    resources: a.resources,
  };
}

/** A draft that edits a published record: same id, same files (locked), same content. */
export function editDraftOf(record: PublishedRecord, now: string): DraftRecord {
  const { publishedAt: _published, state: _state, ...content } = record;
  return { ...content, state: 'draft', updated: now, expiresAt: now, isEditOfPublished: true, issues: [] };
}

/** The published form of a draft; `previous` is the published record this draft edits, if any. */
export function publishedFrom(draft: DraftRecord, previous: PublishedRecord | null, now: string, pids: Pids): PublishedRecord {
  const { expiresAt: _e, isEditOfPublished: _i, issues: _issues, state: _s, ...content } = draft;
  return {
    ...content,
    state: 'published',
    pids,
    created: previous?.created ?? draft.created,
    updated: now,
    revisionId: Math.max(draft.revisionId, previous?.revisionId ?? 0) + 1,
    publishedAt: previous?.publishedAt ?? now,
  };
}

/** Parent after `record` was published. */
export function parentAfterPublish(parent: Parent, record: PublishedRecord, now: string): Parent {
  const isNewest = record.versionIndex >= parent.latestPublishedIndex;
  return touchParent(parent, now, {
    latestPublishedId: isNewest ? record.id : parent.latestPublishedId,
    latestPublishedIndex: Math.max(parent.latestPublishedIndex, record.versionIndex),
    nextDraftId: parent.nextDraftId === record.id ? null : parent.nextDraftId,
  });
}

export function versionsInfo(record: AnyRecord, parent: Parent): VersionsInfo {
  if (record.state === 'draft') {
    const isNext = parent.nextDraftId === record.id;
    // The edit draft of the latest published version describes that record, which is the latest.
    const isLatest = record.isEditOfPublished && parent.latestPublishedId === record.id;
    return { index: record.versionIndex, isLatest, isLatestDraft: isNext || (isLatest && parent.nextDraftId === null) };
  }
  const isLatest = parent.latestPublishedId === record.id;
  return { index: record.versionIndex, isLatest, isLatestDraft: isLatest && parent.nextDraftId === null };
}

/**
 * The revisions If-Match names: one, or a list of which any may be the current one (RFC 9110
 * 13.1.1). An empty list names none that can match: every tag in it was weak or not a revision.
 */
export type ExpectedRevision = number | readonly number[];

/** `expected` from If-Match, checked before any write. */
export function revisionMatches(current: number, expected: ExpectedRevision | undefined): boolean {
  return expected === undefined || (typeof expected === 'number' ? expected === current : expected.includes(current));
}
