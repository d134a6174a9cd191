/**
 * The one place building URLs. Every link is absolute, on the configured base URL (no trailing
 * slash), and every path segment taken from data (ids, file keys) is percent-encoded.
 */
import { RESULT_WINDOW, wellFormed, type RecordKind } from '@krs/domain';

/** encodeURIComponent throws on a lone surrogate; a stored key or a query may hold one. */
const enc = (text: string) => encodeURIComponent(wellFormed(text));
const collection = (kind: RecordKind) => (kind === 'package' ? 'packages' : 'records');
const IIIF_NAMES = { package: { published: 'package', draft: 'package-draft' }, resource: { published: 'record', draft: 'draft' } } as const;

export function createLinks(baseUrl: string) {
  const api = (kind: RecordKind, id: string) => `${baseUrl}/api/${collection(kind)}/${enc(id)}`;
  const html = (kind: RecordKind, id: string) => `${baseUrl}/${collection(kind)}/${enc(id)}`;
  const contextResources = (parentId: string) => `${baseUrl}/api/packages/context/${enc(parentId)}/resources`;

  /**
   * IIIF Presentation resources of a version or draft, under the names the GEO Knowledge Hub gives
   * packages (`package:<id>`, `package-draft:<id>`) and InvenioRDM records (`record:<id>`, `draft:<id>`).
   */
  const iiif = (kind: RecordKind, id: string, state: 'draft' | 'published') => `${baseUrl}/api/iiif/${IIIF_NAMES[kind][state]}:${enc(id)}`;

  function record(kind: RecordKind, id: string, parentId: string, state: 'draft' | 'published'): Record<string, string> {
    const a = api(kind, id);
    const h = html(kind, id);
    const draft = state === 'draft';
    if (kind === 'resource') {
      const links: Record<string, string> = {
        latest: `${a}/versions/latest`,
        versions: `${a}/versions`,
        self_html: draft ? `${baseUrl}/uploads/${enc(id)}` : h,
        latest_html: `${h}/latest`,
        self: draft ? `${a}/draft` : a,
        files: draft ? `${a}/draft/files` : `${a}/files`,
        access_links: `${a}/access/links`,
      };
      if (draft) links['publish'] = `${a}/draft/actions/publish`;
      // Beyond the spec's list, as InvenioRDM has it: GEO's package loader reserves DOIs for resources too.
      if (draft) links['reserve_doi'] = `${a}/draft/pids/doi`;
      return links;
    }
    const shared = {
      self_iiif_manifest: `${iiif(kind, id, state)}/manifest`,
      self_iiif_sequence: `${iiif(kind, id, state)}/sequence/default`,
      versions: `${a}/versions`,
      access_links: `${a}/access/links`,
      reserve_doi: `${a}/draft/pids/doi`,
      context_html: `${h}/context`,
      context_resources: contextResources(parentId),
      context_associate: `${a}/context/actions/associate`,
      context_dissociate: `${a}/context/actions/dissociate`,
    };
    if (draft) {
      return {
        self: `${a}/draft`,
        // The GEO Knowledge Hub's address of a package draft's page.
        self_html: `${baseUrl}/uploads/packages/${enc(id)}`,
        ...shared,
        files: `${a}/draft/files`,
        files_import: `${a}/draft/actions/files-import`,
        record: a,
        record_html: h,
        publish: `${a}/draft/actions/publish`,
        review: `${a}/draft/review`,
        resources: `${a}/draft/resources`,
        resources_import: `${a}/draft/actions/resources-import`,
      };
    }
    return {
      self: a,
      self_html: h,
      ...shared,
      files: `${a}/files`,
      latest: `${a}/versions/latest`,
      latest_html: `${h}/latest`,
      draft: `${a}/draft`,
      resources: `${a}/resources`,
      requests: `${a}/requests`,
    };
  }

  function file(kind: RecordKind, id: string, state: 'draft' | 'published', key: string): Record<string, string> {
    const f = `${api(kind, id)}${state === 'draft' ? '/draft' : ''}/files/${enc(key)}`;
    return state === 'draft' ? { self: f, content: `${f}/content`, commit: `${f}/commit` } : { self: f, content: `${f}/content` };
  }

  const files = (kind: RecordKind, id: string, state: 'draft' | 'published') => ({
    self: `${api(kind, id)}${state === 'draft' ? '/draft' : ''}/files`,
  });

  const accessLink = (kind: RecordKind, id: string, linkId: string) => ({ self: `${api(kind, id)}/access/links/${enc(linkId)}` });

  /** Absolute link to the same path with query arguments sorted, for list paging. */
  function page(path: string, query: [string, string][], pageNumber: number): string {
    const args = query.filter(([k]) => k !== 'page').concat([['page', String(pageNumber)]]);
    args.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
    const qs = args.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    return `${baseUrl}${path}?${qs}`;
  }

  /** `self`, plus `prev`/`next` where such a page exists, for a list at `path` called with `query`. */
  function pageLinks(path: string, query: [string, string][], at: { page: number; size: number; total: number }): PageLinks {
    const out: PageLinks = { self: page(path, query, at.page) };
    if (at.page > 1) out.prev = page(path, query, at.page - 1);
    // No `next` past the result window: that page would be refused.
    if (at.page * at.size < at.total && (at.page + 1) * at.size <= RESULT_WINDOW) out.next = page(path, query, at.page + 1);
    return out;
  }

  /** A record in one export format (`exports/formats.ts`). */
  const exportLink = (kind: RecordKind, id: string, format: string) => `${html(kind, id)}/export/${enc(format)}`;

  /** A vocabulary entry under the listing path it was read at (`vocabularies/resourcetypes`, or an alias like `subjects`). */
  const vocabularyEntry = (listing: string, id: string) => `${baseUrl}/api/${listing}/${enc(id)}`;

  /**
   * A page or asset of the site (`/search`, `/static/krs.css`), under the base URL. Pages link to
   * each other this way, never path-only: behind a proxy that serves krs under a path prefix
   * (`KRS_BASE_URL=https://example.org/krs`), `/search` would leave the prefix.
   */
  const site = (path: string) => `${baseUrl}${path}`;

  /** The OAI-PMH endpoint, at InvenioRDM's path. */
  const oai = `${baseUrl}/oai2d`;

  /** The sitemap (`routes/crawlers.ts`): the whole one, or a part starting after a position. */
  const sitemap = (after?: string) => `${baseUrl}/sitemap.xml${after === undefined ? '' : `?after=${enc(after)}`}`;

  return { record, file, files, accessLink, page, pageLinks, contextResources, landing: html, site, export: exportLink, iiif, oai, sitemap, vocabularyEntry };
}

/**
 * A link a page opened with an access-link token hands on: the reader follows it with the same
 * rights (the versions, the latest version, the package's resources and context), or it answers 401.
 */
export const withLinkToken = (href: string, token: string | undefined): string =>
  token === undefined ? href : `${href}${href.includes('?') ? '&' : '?'}token=${enc(token)}`;

export interface PageLinks {
  self: string;
  prev?: string;
  next?: string;
}

export type Links = ReturnType<typeof createLinks>;
