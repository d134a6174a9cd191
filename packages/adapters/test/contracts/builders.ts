import type { DraftRecord, FileEntry, Parent, PublishedRecord } from '@krs/domain';

export function parent(id: string, over: Partial<Parent> = {}): Parent {
  return {
    id,
    kind: 'resource',
    ownerId: 'u1',
    accessLinks: [],
    latestPublishedId: null,
    latestPublishedIndex: 0,
    nextDraftId: null,
    context: [],
    managedBy: null,
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    revisionId: 1,
    ...over,
  };
}

const content = {
  access: { record: 'public' as const, files: 'public' as const, embargo: { active: false, until: null, reason: null } },
  files: { enabled: true, defaultPreview: null, order: [] },
  metadata: { title: 'Sea ice extent' },
  pids: {},
  customFields: {},
  resources: [],
};

export function draft(id: string, parentId: string, over: Partial<DraftRecord> = {}): DraftRecord {
  return {
    ...content,
    state: 'draft',
    id,
    kind: 'resource',
    parentId,
    versionIndex: 1,
    bucketId: 'b-1',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    revisionId: 1,
    expiresAt: '2026-01-01T00:00:00.000Z',
    isEditOfPublished: false,
    issues: [],
    ...over,
  };
}

export function published(id: string, parentId: string, over: Partial<PublishedRecord> = {}): PublishedRecord {
  return {
    ...content,
    state: 'published',
    id,
    kind: 'resource',
    parentId,
    versionIndex: 1,
    bucketId: 'b-1',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    revisionId: 1,
    publishedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function fileEntry(key: string, over: Partial<FileEntry> = {}): FileEntry {
  return {
    key,
    status: 'pending',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    blob: null,
    metadata: null,
    mimetype: null,
    fileId: null,
    versionId: null,
    storageClass: null,
    ...over,
  };
}
