/**
 * Sitemaps as sitemaps.org's protocol writes them (a `urlset`, or a `sitemapindex` of parts),
 * as text in pieces so that a long one is sent as it is made. Every value goes through `escape`,
 * the five entities the protocol requires.
 */

export const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** What one sitemap file may hold (both files and indexes): 50,000 URLs, 50 MiB. */
export const MAX_URLS_PER_FILE = 50_000;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);

/** A W3C Datetime to the second, UTC, from the domain's ISO instants (which may carry microseconds). */
export function w3cDatetime(iso: string): string {
  const ms = Date.parse(iso.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const entry = (element: 'url' | 'sitemap', loc: string, lastmod: string) =>
  `<${element}><loc>${escape(loc)}</loc><lastmod>${escape(w3cDatetime(lastmod))}</lastmod></${element}>\n`;

export const urlsetOpen = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${SITEMAP_NS}">\n`;
export const urlsetClose = '</urlset>\n';
export const urlEntry = (loc: string, lastmod: string) => entry('url', loc, lastmod);

export const indexOpen = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${SITEMAP_NS}">\n`;
export const indexClose = '</sitemapindex>\n';
export const sitemapEntry = (loc: string, lastmod: string) => entry('sitemap', loc, lastmod);
