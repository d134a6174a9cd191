/**
 * FAIR Signposting (signposting.org, level 1) as a `Link` header: how machines find a record's
 * persistent identifier, its metadata, its authors, license, type and files. Items are capped so
 * a record with thousands of files keeps a header of sane size.
 */
import type { FileEntry, RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { list, obj, people, str } from '../metadata-view.ts';
import { JSON_LD_TYPE } from './json-ld.ts';

/** Files linked as `item`, and authors, at most; the rest are in the `describedby` metadata. */
export const MAX_ITEMS = 50;
/**
 * The whole header at most, in characters: clients refuse headers past 8-16 KiB (Node's fetch
 * fails on a response with 16 KiB of headers), and a record may have thousands of creators.
 */
export const MAX_HEADER_CHARS = 6000;

const link = (href: string, rel: string, type?: string) => `<${href.replace(/[<>\s]/g, encodeURIComponent)}>; rel="${rel}"${type ? `; type="${type}"` : ''}`;

export function signposting(view: RecordView, links: Links, files: FileEntry[] = []): string {
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const api = links.record(r.kind, r.id, r.parentId, r.state)['self'] as string;
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const out = [
    link(doi ? `https://doi.org/${doi}` : links.landing(r.kind, r.id), 'cite-as'),
    link(api, 'describedby', 'application/json'),
    link(api, 'describedby', JSON_LD_TYPE),
    link('https://schema.org/AboutPage', 'type'),
  ];
  const authors = people(m['creators']).filter((p) => p.orcid !== null).slice(0, MAX_ITEMS);
  for (const p of authors) out.push(link(`https://orcid.org/${p.orcid}`, 'author'));
  for (const right of list(m['rights'])) {
    const href = str(obj(right)?.['link']);
    if (href !== null && /^https?:\/\//.test(href)) out.push(link(href, 'license'));
  }
  for (const f of files.filter((e) => e.status === 'completed').slice(0, MAX_ITEMS)) {
    out.push(link(links.file(r.kind, r.id, r.state, f.key)['content'] as string, 'item', f.mimetype ?? 'application/octet-stream'));
  }
  // Typed links first, then authors, licenses and items as far as the budget goes.
  let header = '';
  for (const part of out) {
    const next = header === '' ? part : `${header}, ${part}`;
    if (next.length > MAX_HEADER_CHARS) break;
    header = next;
  }
  return header;
}
