import { describe, expect, it } from 'vitest';
import type { AccessLinkView, DraftRecord, FileEntry, FilesView, Parent, PublishedRecord, RecordView, SearchPage } from '@krs/domain';
import { createLinks } from './links.ts';
import { keptHitTexts } from './kept-hit-texts.ts';
import { searchPageText, serializeAccessLink, serializeFileEntry, serializeFiles, serializeRecord, serializeSearchPage } from './serialize.ts';

const BASE = 'http://krs.test';
const links = createLinks(BASE);
const SPACED = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

const metadata = {
  title: 'Flood extent maps of the Niger delta',
  publication_date: '2024-06-01',
  resource_type: { id: 'dataset', title: { en: 'Dataset' } },
  creators: [
    { person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', name: 'Obi, Ada' }, affiliations: [{ name: 'University of Lagos' }] },
    { person_or_org: { type: 'organizational', name: 'GEO Secretariat' }, affiliations: [{ id: 'geo', name: 'GEO' }, { name: 'University of Lagos' }] },
  ],
};

function draft(over: Partial<DraftRecord> = {}): DraftRecord {
  return {
    state: 'draft',
    id: 'abcde-fghij',
    kind: 'resource',
    parentId: 'parnt-00001',
    versionIndex: 1,
    bucketId: '6c3a0c6e-1c0a-4f55-9a55-4d3d2b1f0a01',
    created: '2026-03-01T10:00:00.000Z',
    updated: '2026-03-01T10:05:00.123Z',
    revisionId: 2,
    access: { record: 'public', files: 'public', embargo: { active: false, until: null, reason: null } },
    files: { enabled: true, defaultPreview: null, order: [] },
    metadata,
    pids: {},
    customFields: {},
    resources: [],
    expiresAt: '2026-03-01T10:00:00.000Z',
    isEditOfPublished: false,
    issues: [],
    ...over,
  };
}

function published(over: Partial<PublishedRecord> = {}): PublishedRecord {
  const { state: _s, expiresAt: _e, isEditOfPublished: _i, issues: _x, ...rest } = draft();
  return { ...rest, state: 'published', publishedAt: '2026-03-02T08:00:00.000Z', ...over };
}

function parent(over: Partial<Parent> = {}): Parent {
  return {
    id: 'parnt-00001',
    kind: 'resource',
    ownerId: 'user-1',
    accessLinks: [{ id: 'link-1', permission: 'view', createdAt: '2026-03-01T10:00:00.000Z', expiresAt: null, createdBy: 'user-1' }],
    latestPublishedId: null,
    latestPublishedIndex: 0,
    nextDraftId: 'abcde-fghij',
    context: [],
    managedBy: null,
    created: '2026-03-01T10:00:00.000Z',
    updated: '2026-03-01T10:00:00.000Z',
    revisionId: 1,
    ...over,
  };
}

const view = (record: DraftRecord | PublishedRecord, over: Partial<RecordView> = {}): RecordView => ({
  record,
  parent: parent({ kind: record.kind }),
  versions: { index: record.versionIndex, isLatest: record.state === 'published', isLatestDraft: true },
  issues: [],
  emailsShown: record.state === 'draft',
  ...over,
});

describe('serializeRecord: resources', () => {
  it('writes a draft exactly as the spec table, timestamps spaced with microseconds', () => {
    const json = serializeRecord(view(draft()), links, false);
    expect(Object.keys(json).sort()).toEqual(
      ['access', 'created', 'expires_at', 'files', 'id', 'is_published', 'links', 'metadata', 'parent', 'pids', 'revision_id', 'updated', 'versions'].sort(),
    );
    expect(json).toMatchObject({
      id: 'abcde-fghij',
      created: '2026-03-01 10:00:00.000000',
      updated: '2026-03-01 10:05:00.123000',
      expires_at: '2026-03-01 10:00:00.000000',
      is_published: false,
      revision_id: 2,
      access: { record: 'public', files: 'public', embargo: { active: false, reason: null }, status: 'open' },
      files: { enabled: true, order: [] },
      pids: {},
      versions: { index: 1, is_latest: false, is_latest_draft: true },
      parent: { id: 'parnt-00001', access: { owned_by: [{ user: 'user-1' }], links: [{ id: 'link-1' }] }, type: 'resource' },
      metadata,
    });
    expect(Object.keys(json['links'] as object).sort()).toEqual(
      ['latest', 'versions', 'self_html', 'publish', 'latest_html', 'self', 'files', 'access_links', 'reserve_doi'].sort(),
    );
  });

  it('keeps is_published false on the edit draft of a published resource', () => {
    expect(serializeRecord(view(draft({ isEditOfPublished: true })), links, false)['is_published']).toBe(false);
  });

  it('writes a published resource with expires_at from its publication time and non-draft links', () => {
    const json = serializeRecord(view(published()), links, false);
    expect(json['is_published']).toBe(true);
    expect(json['expires_at']).toBe('2026-03-02 08:00:00.000000');
    expect(json['links']).toMatchObject({ self: `${BASE}/api/records/abcde-fghij`, files: `${BASE}/api/records/abcde-fghij/files` });
    expect(json['links']).not.toHaveProperty('publish');
    expect(json).not.toHaveProperty('is_draft');
    expect(json).not.toHaveProperty('status');
  });

  it('adds the top-level errors only when the draft has problems', () => {
    const issues = [{ field: 'metadata.title', messages: ['Missing data for required field.'] }];
    expect(serializeRecord(view(draft(), { issues }), links, false)['errors']).toEqual(issues);
    expect(serializeRecord(view(draft()), links, false)).not.toHaveProperty('errors');
  });

  it('writes embargo until and default_preview only when set', () => {
    const json = serializeRecord(
      view(draft({ access: { record: 'public', files: 'restricted', embargo: { active: true, until: '2027-01-01', reason: 'Peer review' } }, files: { enabled: true, defaultPreview: 'a.png', order: ['a.png'] } })),
      links,
      false,
    );
    expect(json['access']).toEqual({ record: 'public', files: 'restricted', embargo: { active: true, reason: 'Peer review', until: '2027-01-01' }, status: 'embargoed' });
    expect(json['files']).toEqual({ enabled: true, order: ['a.png'], default_preview: 'a.png' });
  });

  it('derives the access status', () => {
    const status = (over: Partial<DraftRecord>) => (serializeRecord(view(draft(over)), links, false)['access'] as { status: string }).status;
    expect(status({ files: { enabled: false, defaultPreview: null, order: [] } })).toBe('metadata-only');
    expect(status({ access: { record: 'restricted', files: 'restricted', embargo: { active: false, until: null, reason: null } } })).toBe('restricted');
  });
});

describe('serializeRecord: packages', () => {
  const pkg = (over: Partial<DraftRecord> = {}) => draft({ kind: 'package', id: 'pkgaa-00001', resources: ['abcde-fghij'], customFields: { 'geo:x': 1 }, ...over });

  it('writes a first draft with ISO timestamps, package members and its expires_at', () => {
    const json = serializeRecord(view(pkg()), links, false);
    expect(json).toMatchObject({
      created: '2026-03-01T10:00:00.000000+00:00',
      updated: '2026-03-01T10:05:00.123000+00:00',
      expires_at: '2026-03-01 10:00:00.000000',
      status: 'draft',
      is_published: false,
      is_draft: true,
      custom_fields: { 'geo:x': 1 },
      relationship: { resources: [{ id: 'abcde-fghij' }] },
      assistance_requests: [],
      files: { enabled: true, order: [] },
      parent: { id: 'parnt-00001', type: 'package', communities: {}, access: { owned_by: [{ user: 'user-1' }], links: [{ id: 'link-1' }] } },
    });
    expect(json['created']).toMatch(WITH_OFFSET);
    expect(json['expires_at']).toMatch(SPACED);
    expect((json['links'] as Record<string, string>)['context_resources']).toBe(`${BASE}/api/packages/context/parnt-00001/resources`);
  });

  it('marks the edit draft of a published package published, is_published and is_draft', () => {
    expect(serializeRecord(view(pkg({ isEditOfPublished: true })), links, false)).toMatchObject({ status: 'published', is_published: true, is_draft: true });
  });

  it('marks a later version draft new_version_draft', () => {
    expect(serializeRecord(view(pkg({ versionIndex: 2 })), links, false)).toMatchObject({ status: 'new_version_draft', is_published: false, is_draft: true });
  });

  it('writes a published package without expires_at and with its stored pids', () => {
    const pids = { oai: { provider: 'oai', identifier: 'oai:krs.test:pkgaa-00001' } };
    const json = serializeRecord(view(published({ kind: 'package', id: 'pkgaa-00001', pids })), links, false);
    expect(json).toMatchObject({ status: 'published', is_published: true, is_draft: false, pids });
    expect(json).not.toHaveProperty('expires_at');
    expect(Object.keys(json['links'] as object)).toContain('requests');
  });
});

describe('serializeRecord: ui form', () => {
  it('adds display labels only when asked', () => {
    expect(serializeRecord(view(draft()), links, false)).not.toHaveProperty('ui');
    const ui = serializeRecord(view(published()), links, true)['ui'];
    expect(ui).toMatchObject({
      publication_date_l10n_long: '1 June 2024',
      access_status: { id: 'open', title_l10n: 'Open' },
      resource_type: { id: 'dataset', title_l10n: 'Dataset' },
      version: 'v1',
      creators: { affiliations: [[1, 'University of Lagos'], [2, 'GEO']] },
    });
    const creators = (ui as { creators: { creators: { affiliations: unknown }[] } }).creators.creators;
    expect(creators.map((c) => c.affiliations)).toEqual([[[1, 'University of Lagos']], [[2, 'GEO'], [1, 'University of Lagos']]]);
  });
});

describe('files', () => {
  const pending: FileEntry = {
    key: 'map.png', status: 'pending', created: '2026-03-01T10:00:00.000Z', updated: '2026-03-01T10:00:00.000Z',
    blob: null, metadata: null, mimetype: null, fileId: null, versionId: null, storageClass: null,
  };
  const completed: FileEntry = {
    ...pending, key: 'data.csv', status: 'completed', updated: '2026-03-01T10:01:00.000Z',
    blob: { id: 'blob-1', size: 42, md5: '0123456789abcdef0123456789abcdef' }, metadata: {}, mimetype: 'text/csv',
    fileId: '11111111-1111-4111-8111-111111111111', versionId: '22222222-2222-4222-8222-222222222222', storageClass: 'L',
  };
  const files: FilesView = {
    kind: 'resource', recordId: 'abcde-fghij', state: 'draft', bucketId: '6c3a0c6e-1c0a-4f55-9a55-4d3d2b1f0a01',
    options: { enabled: true, defaultPreview: null, order: [] }, entries: [pending, completed],
  };

  it('writes a pending entry with metadata null and content/self/commit links', () => {
    expect(serializeFileEntry(files, pending, links)).toEqual({
      key: 'map.png', created: '2026-03-01 10:00:00.000000', updated: '2026-03-01 10:00:00.000000', status: 'pending', metadata: null,
      links: {
        self: `${BASE}/api/records/abcde-fghij/draft/files/map.png`,
        content: `${BASE}/api/records/abcde-fghij/draft/files/map.png/content`,
        commit: `${BASE}/api/records/abcde-fghij/draft/files/map.png/commit`,
      },
    });
  });

  it('adds checksum, mimetype, size, ids and storage class after commit; published entries have no commit link', () => {
    const json = serializeFileEntry({ ...files, state: 'published' }, completed, links);
    expect(json).toMatchObject({
      checksum: 'md5:0123456789abcdef0123456789abcdef', mimetype: 'text/csv', size: 42, storage_class: 'L',
      file_id: completed.fileId, version_id: completed.versionId, bucket_id: files.bucketId, status: 'completed',
    });
    expect(Object.keys(json['links'] as object).sort()).toEqual(['content', 'self']);
  });

  it('writes the file list with its self link', () => {
    const json = serializeFiles(files, links);
    expect(Object.keys(json)).toEqual(['enabled', 'default_preview', 'order', 'entries', 'links']);
    expect(json).toMatchObject({ enabled: true, default_preview: null, order: [], links: { self: `${BASE}/api/records/abcde-fghij/draft/files` } });
    expect((json['entries'] as { key: string }[]).map((e) => e.key)).toEqual(['map.png', 'data.csv']);
  });
});

describe('serializeAccessLink', () => {
  it('writes created_at without offset and expires_at as ISO or null', () => {
    const link: AccessLinkView = {
      kind: 'resource', recordId: 'abcde-fghij',
      link: { id: 'link-1', permission: 'preview', createdAt: '2026-03-01T10:00:00.000Z', expiresAt: null, createdBy: 'user-1' },
      token: 'tok',
    };
    expect(serializeAccessLink(link)).toEqual({ id: 'link-1', permission: 'preview', created_at: '2026-03-01T10:00:00.000000', expires_at: null, token: 'tok' });
    expect(serializeAccessLink({ ...link, link: { ...link.link, expiresAt: '2026-04-01T00:00:00.000Z' } })['expires_at']).toBe('2026-04-01T00:00:00.000000');
  });
});

describe('serializeSearchPage', () => {
  const page: SearchPage = {
    total: 25,
    hits: [view(published())],
    aggregations: { resource_type: [{ key: 'dataset', docCount: 25, label: 'Dataset', isSelected: true }] },
    sortBy: 'newest',
    page: 2,
    size: 10,
  };
  const at = { path: '/api/records', query: [['size', '10'], ['page', '2'], ['resource_type', 'dataset']] as [string, string][] };

  it('writes {aggregations, hits, links, sortBy} with absolute, sorted paging links', () => {
    const json = serializeSearchPage(page, links, { ui: false, ...at });
    expect(Object.keys(json)).toEqual(['aggregations', 'hits', 'links', 'sortBy']);
    expect(json['aggregations']).toEqual({
      resource_type: { label: 'Resource types', buckets: [{ key: 'dataset', doc_count: 25, label: 'Dataset', is_selected: true }] },
    });
    expect((json['hits'] as { total: number; hits: { id: string }[] }).total).toBe(25);
    expect(json['links']).toEqual({
      self: `${BASE}/api/records?page=2&resource_type=dataset&size=10`,
      prev: `${BASE}/api/records?page=1&resource_type=dataset&size=10`,
      next: `${BASE}/api/records?page=3&resource_type=dataset&size=10`,
    });
    expect(json['sortBy']).toBe('newest');
  });

  it('carries only hits and aggregations in the ui form, each hit with its ui object', () => {
    const json = serializeSearchPage(page, links, { ui: true, ...at });
    expect(Object.keys(json)).toEqual(['aggregations', 'hits']);
    expect((json['hits'] as { hits: object[] }).hits[0]).toHaveProperty('ui');
  });
});

describe('searchPageText with kept hit texts', () => {
  const page = (hits: RecordView[]): SearchPage => ({
    total: 25,
    hits,
    aggregations: { resource_type: [{ key: 'dataset', docCount: 25, label: 'A "quoted" label', isSelected: true }], access_status: [] },
    sortBy: 'newest',
    page: 2,
    size: 10,
  });
  const at = { path: '/api/records', query: [['size', '10'], ['page', '2']] as [string, string][] };

  it('gives the bytes JSON.stringify gives of serializeSearchPage, in every form, on first use and from kept texts', () => {
    const hitText = keptHitTexts(links, 1024 * 1024);
    const hits = [view(published()), view(published({ id: 'other-00001', revisionId: 3 })), view(draft({ id: 'drft0-00001' }))];
    for (const opts of [{ ui: false, ...at }, { ui: true, ...at }, { ui: false, ...at, withLinks: false }, { ui: false, path: '/api/records', query: [] }]) {
      for (const p of [page(hits), page([]), page(hits.slice(0, 1))]) {
        const expected = JSON.stringify(serializeSearchPage(p, links, opts));
        expect(searchPageText(p, links, opts, (v) => hitText(v, opts.ui))).toBe(expected);
        expect(searchPageText(p, links, opts, (v) => hitText(v, opts.ui))).toBe(expected);
      }
    }
  });

  it('never gives a text kept for another revision of the hit or of its parent, nor for the other form', () => {
    const hitText = keptHitTexts(links, 1024 * 1024);
    const first = view(published());
    expect(hitText(first, false)).toBe(JSON.stringify(serializeRecord(first, links, false)));
    const edited = view(published({ revisionId: 3, metadata: { ...metadata, title: 'An edited title' } }));
    expect(hitText(edited, false)).toContain('An edited title');
    const reowned = { ...edited, parent: parent({ revisionId: 2, ownerId: 'user-2' }) };
    expect(hitText(reowned, false)).toBe(JSON.stringify(serializeRecord(reowned, links, false)));
    expect(hitText(reowned, false)).not.toBe(hitText(edited, false));
    expect(hitText(reowned, true)).toBe(JSON.stringify(serializeRecord(reowned, links, true)));
    const asDraft = view(draft({ revisionId: 2 }));
    expect(hitText(asDraft, false)).toBe(JSON.stringify(serializeRecord(asDraft, links, false)));
  });

  it('keeps at most its bound, least recently used out, and never a text over a sixteenth of it', () => {
    const one = JSON.stringify(serializeRecord(view(published()), links, false)).length;
    const hitText = keptHitTexts(links, one * 16);
    const big = view(published({ id: 'big00-00001', metadata: { ...metadata, description: 'x'.repeat(one) } }));
    expect(hitText(big, false)).toBe(JSON.stringify(serializeRecord(big, links, false)));
    for (let i = 0; i < 40; i++) {
      const v = view(published({ id: `rec${String(i).padStart(2, '0')}-00001` }));
      expect(hitText(v, false)).toBe(JSON.stringify(serializeRecord(v, links, false)));
    }
  });
});

