import type { ApiToken, DraftRecord, FileEntry, Parent, PublishedRecord, SearchDocument, User, VocabularyEntry, VocabularyType } from '@krs/domain';

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

/** Fresh objects on every call: a test mutating one value must not change the next. */
const content = () => ({
  access: { record: 'public' as const, files: 'public' as const, embargo: { active: false, until: null, reason: null } },
  files: { enabled: true, defaultPreview: null, order: [] },
  metadata: { title: 'Sea ice extent' },
  pids: {},
  customFields: {},
  resources: [],
});

export function draft(id: string, parentId: string, over: Partial<DraftRecord> = {}): DraftRecord {
  return {
    ...content(),
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
    ...content(),
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

export function user(id: string, email = `${id}@example.org`): User {
  return { id, email, created: '2026-01-01T00:00:00.000Z' };
}

export function token(id: string, userId: string, hash = `hash-${id}`): ApiToken {
  return { id, userId, name: 'cli', hash, created: '2026-01-01T00:00:00.000Z' };
}

export function vocabularyEntry(type: VocabularyType, id: string, over: Partial<VocabularyEntry> = {}): VocabularyEntry {
  return { type, id, title: { en: `Title of ${id}` }, ...over };
}

/** A bigger value than the defaults, exercising what JSON round trips tend to lose. */
export function richPackageDraft(id: string, parentId: string): DraftRecord {
  return draft(id, parentId, {
    kind: 'package',
    access: { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2027-01-01', reason: 'Ongoing study' } },
    files: { enabled: true, defaultPreview: 'map.png', order: ['map.png', 'data.csv'] },
    metadata: {
      title: 'Ölüdeniz lagoon — 海 🌊',
      creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' }, affiliations: [] }],
      publication_date: '2025-12',
      locations: { features: [{ geometry: { type: 'Point', coordinates: [29.1, 36.5] } }] },
      empty: null,
      zero: 0,
      flag: false,
    },
    pids: { doi: { identifier: '10.1234/x', provider: 'external' } },
    customFields: { 'geo:work_programme': ['a', 'b'] },
    resources: ['aaaaa-bbbbb', 'ccccc-ddddd'],
    isEditOfPublished: true,
    issues: [{ field: 'metadata.title', messages: ['Too long.'] }],
  });
}

/** A published, public search document titled `title`; `over` changes any field. */
export function searchDocument(id: string, title: string, over: Partial<SearchDocument> = {}): SearchDocument {
  return {
    key: `published:${id}`,
    id,
    kind: 'resource',
    state: 'published',
    parentId: `p-${id}`,
    ownerId: 'o',
    versionIndex: 1,
    isLatest: true,
    inUserListing: true,
    isUserLatest: true,
    isPublic: true,
    readers: ['o'],
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    resourceType: null,
    accessStatus: 'open',
    bounds: [],
    body: { id, metadata: { title } },
    ...over,
  };
}
