/**
 * FAIR Signposting (signposting.org): how machines find a record's persistent identifier, its
 * metadata in each export format, its authors, license, type and files. Level 1 is a `Link`
 * header (items capped so a record with thousands of creators keeps a header of sane size);
 * level 2 is the whole set as an RFC 9264 linkset (`Accept: application/linkset+json`).
 */
import type { FileEntry, RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { licenseUrl, list, obj, peopleWithOrcid, str } from '../metadata-view.ts';
import { EXPORT_FORMATS, LINKSET_TYPE } from './formats.ts';

/** Files linked as `item`, and authors, at most in the header; the linkset has them all. */
export const MAX_ITEMS = 50;
/**
 * The whole header at most, in characters: clients refuse headers past 8-16 KiB (Node's fetch
 * fails on a response with 16 KiB of headers), and a record may have thousands of creators.
 */
export const MAX_HEADER_CHARS = 6000;

interface Signpost {
  href: string;
  rel: string;
  type?: string;
}

function signposts(view: RecordView, links: Links, files: FileEntry[], limit: number): Signpost[] {
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const api = links.record(r.kind, r.id, r.parentId, r.state)['self'] as string;
  const out: Signpost[] = [
    { href: doi ? `https://doi.org/${doi}` : links.landing(r.kind, r.id), rel: 'cite-as' },
    { href: api, rel: 'describedby', type: 'application/json' },
    ...EXPORT_FORMATS.filter((f) => f.id !== 'json').map((f) => ({ href: links.export(r.kind, r.id, f.id), rel: 'describedby', type: f.mediaType })),
    { href: 'https://schema.org/AboutPage', rel: 'type' },
    { href: api, rel: 'linkset', type: LINKSET_TYPE },
  ];
  // The header's first authors with an ORCID, read without making a person of every creator.
  for (const p of peopleWithOrcid(m['creators'], limit)) out.push({ href: `https://orcid.org/${p.orcid}`, rel: 'author' });
  for (const right of list(m['rights'])) {
    const href = licenseUrl(right);
    if (href !== null) out.push({ href, rel: 'license' });
  }
  for (const f of files.filter((e) => e.status === 'completed').slice(0, limit)) {
    out.push({ href: links.file(r.kind, r.id, r.state, f.key)['content'] as string, rel: 'item', type: f.mimetype ?? 'application/octet-stream' });
  }
  return out;
}

const format = (s: Signpost) => `<${s.href.replace(/[<>\s]/g, encodeURIComponent)}>; rel="${s.rel}"${s.type ? `; type="${s.type}"` : ''}`;

/** The `Link` header; typed links first, then authors, licenses and items as far as the budget goes. */
export function signposting(view: RecordView, links: Links, files: FileEntry[] = []): string {
  let header = '';
  for (const part of signposts(view, links, files, MAX_ITEMS).map(format)) {
    const next = header === '' ? part : `${header}, ${part}`;
    if (next.length > MAX_HEADER_CHARS) break;
    header = next;
  }
  return header;
}

/** RFC 9264's JSON: the record's links anchored at its landing page, and each file's way back to it. */
export function linkset(view: RecordView, links: Links, files: FileEntry[]): { linkset: Record<string, unknown>[] } {
  const r = view.record;
  const landing = links.landing(r.kind, r.id);
  const anchor: Record<string, unknown> = { anchor: landing };
  const all = signposts(view, links, files, Number.MAX_SAFE_INTEGER).filter((s) => s.rel !== 'linkset');
  for (const s of all) {
    const targets = (anchor[s.rel] ??= []) as { href: string; type?: string }[];
    targets.push(s.type ? { href: s.href, type: s.type } : { href: s.href });
  }
  const items = all.filter((s) => s.rel === 'item').map((s) => ({ anchor: s.href, collection: [{ href: landing, type: 'text/html' }] }));
  return { linkset: [anchor, ...items] };
}
