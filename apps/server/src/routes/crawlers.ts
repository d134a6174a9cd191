/**
 * What search engines read first: `/robots.txt` and `/sitemap.xml`. The sitemap lists the landing
 * page of every public record at its latest version (the domain's `harvest.sitemap` decides
 * which), walking the store by position in pages, never holding more than one file's entries.
 * Up to `urlsPerFile` pages it is one `urlset`; past that an index of parts, each part
 * `/sitemap.xml?after=<position>` with the pages after that position.
 */
import { Hono, type Context } from 'hono';
import { DomainError, type Core, type HarvestPosition, type SitemapEntry } from '@krs/domain';
import type { Links } from '../links.ts';
import { indexClose, indexOpen, MAX_URLS_PER_FILE, sitemapEntry, urlEntry, urlsetClose, urlsetOpen } from '../sitemap-xml.ts';
import type { Env } from './request.ts';

export interface CrawlerOptions {
  /** Pages per sitemap file; the protocol's 50,000 unless a test wants an index sooner. */
  urlsPerFile?: number;
}

/** Entries read from the store at once. */
const PAGE = 500;
/** The first part's position: before everything. */
const START = 'start';

const encodePosition = (p: HarvestPosition | undefined): string =>
  p === undefined ? START : Buffer.from(`${p.updated}\n${p.id}`, 'utf8').toString('base64url');

function decodePosition(token: string): HarvestPosition | undefined {
  if (token === START) return undefined;
  const [updated, id, extra] = Buffer.from(token, 'base64url').toString('utf8').split('\n');
  if (updated === undefined || id === undefined || extra !== undefined || Number.isNaN(Date.parse(updated)) || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new DomainError('invalid', 'sitemap.after', 'The sitemap part is not one the sitemap index names.');
  }
  return { updated, id };
}

const XML = { 'Content-Type': 'application/xml; charset=utf-8' };

/** A body made as it is read: each piece of text from `pieces` when the connection wants more. */
function streamed(pieces: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}

export function crawlerRoutes(core: Core, links: Links, options: CrawlerOptions = {}) {
  const perFile = Math.max(1, Math.min(options.urlsPerFile ?? MAX_URLS_PER_FILE, MAX_URLS_PER_FILE));
  const robots = [
    'User-agent: *',
    'Allow: /',
    'Disallow: /api/',
    // What a landing page links for download.
    'Allow: /api/records/*/files/*/content',
    'Allow: /api/packages/*/files/*/content',
    // Drafts answer only their owners; search results are endless combinations of the same pages.
    'Disallow: /uploads/',
    'Disallow: /packages/uploads/',
    'Disallow: /search?',
    '',
    `Sitemap: ${links.sitemap()}`,
    '',
  ].join('\n');

  /** Entries after `after`, at most `max`, a store page at a time. */
  async function* entries(after: HarvestPosition | undefined, max: number): AsyncGenerator<SitemapEntry[]> {
    let left = max;
    let position = after;
    while (left > 0) {
      const page = await core.harvest.sitemap({ after: position, limit: Math.min(PAGE, left) });
      left -= page.entries.length;
      if (page.entries.length > 0) yield page.entries;
      if (page.next === null) return;
      position = page.next;
    }
  }

  async function* urlset(first: SitemapEntry[], after: HarvestPosition | undefined, max: number): AsyncGenerator<string> {
    yield urlsetOpen;
    const write = (page: SitemapEntry[]) => page.map((e) => urlEntry(links.landing(e.kind, e.id), e.updated)).join('');
    if (first.length > 0) yield write(first);
    if (max > 0) for await (const page of entries(after, max)) yield write(page);
    yield urlsetClose;
  }

  /**
   * One part per `perFile` entries, each named by the position before its first entry and dated
   * by its last. `first` is the start of the walk, already read (more than `perFile` entries).
   * The text is kept under `key` once whole.
   */
  async function* index(first: SitemapEntry[], key: string | null): AsyncGenerator<string> {
    const pieces = [indexOpen];
    yield indexOpen;
    let partStart: HarvestPosition | undefined;
    let inPart = 0;
    let lastmod = '';
    const take = (page: SitemapEntry[]): string => {
      let text = '';
      for (const e of page) {
        inPart++;
        lastmod = e.updated;
        if (inPart === perFile) {
          text += sitemapEntry(links.sitemap(encodePosition(partStart)), lastmod);
          partStart = { updated: e.updated, id: e.id };
          inPart = 0;
        }
      }
      pieces.push(text);
      return text;
    };
    yield take(first);
    const last = first[first.length - 1] as SitemapEntry;
    for await (const page of entries({ updated: last.updated, id: last.id }, Number.POSITIVE_INFINITY)) yield take(page);
    const end = (inPart > 0 ? sitemapEntry(links.sitemap(encodePosition(partStart)), lastmod) : '') + indexClose;
    pieces.push(end);
    yield end;
    if (key !== null) keptIndex = { key, text: pieces.join('') };
  }

  /**
   * The last index made, under the store's change stamp and the UTC day it was read at (an
   * embargo lifts with the day, before the lift is written down): a walk of every published
   * version, about 30 us of CPU a row, is made again only once something changed.
   */
  let keptIndex: { key: string; text: string } | null = null;
  const indexKey = async (): Promise<string | null> => {
    const stamp = await core.records.changeStamp();
    return stamp === null ? null : `${stamp} ${new Date().toISOString().slice(0, 10)}`;
  };

  async function sitemap(c: Context<Env>): Promise<Response> {
    const after = c.req.query('after');
    if (after !== undefined) return c.body(streamed(urlset([], decodePosition(after), perFile)), 200, XML);
    const key = await indexKey();
    if (key !== null && keptIndex?.key === key) return c.body(keptIndex.text, 200, XML);
    // One file if everything fits; only then is the whole set read before the answer starts.
    const first: SitemapEntry[] = [];
    for await (const page of entries(undefined, perFile + 1)) first.push(...page);
    if (first.length <= perFile) return c.body(streamed(urlset(first, undefined, 0)), 200, XML);
    return c.body(streamed(index(first, key)), 200, XML);
  }

  return new Hono<Env>()
    .get('/robots.txt', (c) => c.body(robots, 200, { 'Content-Type': 'text/plain; charset=utf-8' }))
    .get('/sitemap.xml', sitemap);
}
