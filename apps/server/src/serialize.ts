/** Domain views -> API JSON: member names, timestamp formats and links exactly as the spec shows them. */
import {
  accessStatus,
  type AccessLinkView,
  type Embargo,
  type FileEntry,
  type FilesOptions,
  type FilesView,
  type FileView,
  type RecordView,
  type SearchPage,
} from '@krs/domain';
import { isoNaive, isoWithOffset, spaced } from './http-dates.ts';
import type { Links } from './links.ts';

type Json = { [key: string]: unknown };

const ACCESS_LABELS = { open: 'Open', restricted: 'Restricted', embargoed: 'Embargoed', 'metadata-only': 'Metadata-only' } as const;

function ui(view: RecordView): Json {
  const m = view.record.metadata;
  const creators = Array.isArray(m['creators']) ? (m['creators'] as Json[]) : [];
  const affiliationNames: string[] = [];
  const creatorsUi = creators.map((c) => {
    const names = (Array.isArray(c['affiliations']) ? (c['affiliations'] as Json[]) : []).map((a) => String(a['name'] ?? a['id'] ?? ''));
    const indexes = names.map((n) => {
      if (!affiliationNames.includes(n)) affiliationNames.push(n);
      return affiliationNames.indexOf(n) + 1;
    });
    return { ...c, affiliations: indexes.map((i) => [i, affiliationNames[i - 1]]) };
  });
  const rt = m['resource_type'] as Json | undefined;
  const date = typeof m['publication_date'] === 'string' ? m['publication_date'] : null;
  const status = accessStatus(view.record);
  const long = (iso: string) => {
    const d = new Date(iso.length === 4 ? `${iso}-01-01` : iso.length === 7 ? `${iso}-01` : iso.split('/')[0] ?? iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString('en-GB', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  };
  return {
    publication_date_l10n_long: date ? long(date) : null,
    created_date_l10n_long: long(view.record.created),
    updated_date_l10n_long: long(view.record.updated),
    access_status: { id: status, title_l10n: ACCESS_LABELS[status] },
    creators: { creators: creatorsUi, affiliations: affiliationNames.map((n, i) => [i + 1, n]) },
    resource_type: rt ? { id: rt['id'], title_l10n: (rt['title'] as Json | undefined)?.['en'] ?? rt['id'] } : null,
    version: typeof m['version'] === 'string' ? m['version'] : `v${view.record.versionIndex}`,
  };
}

/** InvenioRDM writes `until` only for a dated embargo. */
function embargoOf(e: Embargo): Json {
  return e.until === null ? { active: e.active, reason: e.reason } : { active: e.active, reason: e.reason, until: e.until };
}

/** `default_preview` only when one is set, as InvenioRDM does; `order` always (the spec shows it on packages). */
function filesOf(f: FilesOptions): Json {
  return f.defaultPreview === null ? { enabled: f.enabled, order: f.order } : { enabled: f.enabled, order: f.order, default_preview: f.defaultPreview };
}

export function serializeRecord(view: RecordView, links: Links, withUi: boolean): Json {
  const { record, parent, versions } = view;
  const isDraft = record.state === 'draft';
  const isPackage = record.kind === 'package';
  const status = accessStatus(record);
  const out: Json = {
    id: record.id,
    access: {
      record: record.access.record,
      files: record.access.files,
      embargo: embargoOf(record.access.embargo),
      status,
    },
    files: filesOf(record.files),
    metadata: record.metadata,
    created: isPackage ? isoWithOffset(record.created) : spaced(record.created),
    updated: isPackage ? isoWithOffset(record.updated) : spaced(record.updated),
    revision_id: record.revisionId,
    parent: {
      id: parent.id,
      access: { owned_by: [{ user: parent.ownerId }], links: parent.accessLinks.map((l) => ({ id: l.id })) },
      // API-DECISIONS: search hits mix kinds and `parent.type` tells them apart.
      type: record.kind,
      ...(isPackage ? { communities: {} } : {}),
    },
    pids: record.pids,
    versions: { index: versions.index, is_latest: versions.isLatest, is_latest_draft: versions.isLatestDraft },
    links: links.record(record.kind, record.id, parent.id, record.state),
  };
  if (isPackage) {
    const editOfPublished = isDraft && record.isEditOfPublished;
    out['is_published'] = !isDraft || editOfPublished;
    out['is_draft'] = isDraft;
    out['status'] = !isDraft || editOfPublished ? 'published' : record.versionIndex > 1 ? 'new_version_draft' : 'draft';
    out['custom_fields'] = record.customFields;
    out['relationship'] = { resources: record.resources.map((id) => ({ id })) };
    out['assistance_requests'] = [];
    if (isDraft) out['expires_at'] = spaced(record.expiresAt);
  } else {
    out['is_published'] = !isDraft;
    out['expires_at'] = spaced(isDraft ? record.expiresAt : record.publishedAt);
    // As GEO's resources say it: the package's parent manages the resource (`parent.relationship`),
    // and `relationship.packages` names the package's version the reader may read.
    const shown = view.holder?.shown;
    if (shown) {
      (out['parent'] as Json)['relationship'] = { managed_by: { id: shown.parentId } };
      out['relationship'] = { packages: [{ id: shown.id }] };
    }
  }
  if (view.issues.length > 0) out['errors'] = view.issues;
  if (withUi) out['ui'] = ui(view);
  return out;
}

/**
 * `expanded` of a package's create-draft response: the owners as any reader may see them. A user
 * is known here only by id and e-mail, and an e-mail is never shown, so the id is what there is.
 */
export function serializeExpanded(view: RecordView, callerId: string | null): Json {
  const owner = view.parent.ownerId;
  return { parent: { access: { owned_by: [{ user: { id: owner, is_current_user: owner === callerId } }] } } };
}

export function serializeFileEntry(view: Omit<FileView, 'entry'>, entry: FileEntry, links: Links): Json {
  const { kind, recordId, state } = view;
  const out: Json = {
    key: entry.key,
    created: spaced(entry.created),
    updated: spaced(entry.updated),
    status: entry.status,
    metadata: entry.metadata,
    links: links.file(kind, recordId, state, entry.key),
  };
  if (entry.status === 'completed' && entry.blob) {
    Object.assign(out, {
      checksum: `md5:${entry.blob.md5}`,
      mimetype: entry.mimetype,
      size: entry.blob.size,
      file_id: entry.fileId,
      version_id: entry.versionId,
      bucket_id: view.bucketId,
      storage_class: entry.storageClass,
    });
  }
  return out;
}

export function serializeFiles(view: FilesView, links: Links): Json {
  return {
    enabled: view.options.enabled,
    default_preview: view.options.defaultPreview,
    order: view.options.order,
    entries: view.entries.map((e) => serializeFileEntry(view, e, links)),
    links: links.files(view.kind, view.recordId, view.state),
  };
}

export function serializeAccessLink(view: AccessLinkView): Json {
  return {
    id: view.link.id,
    permission: view.link.permission,
    created_at: isoNaive(view.link.createdAt),
    expires_at: view.link.expiresAt === null ? null : isoNaive(view.link.expiresAt),
    token: view.token,
  };
}

const FACET_LABELS: Record<string, string> = { resource_type: 'Resource types', access_status: 'Access status', record_type: 'Record types' };

export function serializeAggregations(page: SearchPage): Json {
  const out: Json = {};
  for (const [facet, buckets] of Object.entries(page.aggregations)) {
    out[facet] = {
      label: FACET_LABELS[facet] ?? facet,
      buckets: buckets.map((b) => ({ key: b.key, doc_count: b.docCount, label: b.label, is_selected: b.isSelected })),
    };
  }
  return out;
}

export interface SearchPageOptions {
  /** The UI media type: items gain `ui`, and the list carries only `hits` and `aggregations`. */
  ui: boolean;
  /** Path the list was called on, for its paging links. */
  path: string;
  /** Query arguments of the call (any `page` is replaced per link). */
  query: [string, string][];
  /** Versions and package-resource listings answer without paging links. */
  withLinks?: boolean;
}

/** `{aggregations, hits: {hits, total}, links: {self, prev?, next?}, sortBy}`; see SearchPageOptions for the other forms. */
export function serializeSearchPage(page: SearchPage, links: Links, opts: SearchPageOptions): Json {
  const body: Json = {
    aggregations: serializeAggregations(page),
    hits: { hits: page.hits.map((h) => serializeRecord(h, links, opts.ui)), total: page.total },
  };
  if (opts.ui || opts.withLinks === false) return body;
  body['links'] = links.pageLinks(opts.path, opts.query, page);
  body['sortBy'] = page.sortBy;
  return body;
}

/**
 * `serializeSearchPage` as JSON text, with each hit's text from `hitText`, which must give what
 * `JSON.stringify(serializeRecord(view, links, ui))` gives (the responder keeps those texts per
 * revision): the same bytes as `JSON.stringify(serializeSearchPage(...))`, member order included.
 */
export function searchPageText(page: SearchPage, links: Links, opts: SearchPageOptions, hitText: (view: RecordView) => string): string {
  const hits = `{"hits":[${page.hits.map(hitText).join(',')}],"total":${JSON.stringify(page.total)}}`;
  const head = `{"aggregations":${JSON.stringify(serializeAggregations(page))},"hits":${hits}`;
  if (opts.ui || opts.withLinks === false) return `${head}}`;
  return `${head},"links":${JSON.stringify(links.pageLinks(opts.path, opts.query, page))},"sortBy":${JSON.stringify(page.sortBy)}}`;
}
