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

  /** Entries after `after`, at most `max`, a store page at a time; `position` is where the walk stands. */
  async function* entries(after: HarvestPosition | undefined, max: number, walk: { position?: HarvestPosition } = {}): AsyncGenerator<SitemapEntry[]> {
    let left = max;
    walk.position = after;
    while (left > 0) {
      const page = await core.harvest.sitemap({ after: walk.position, limit: Math.min(PAGE, left) });
      left -= page.entries.length;
      if (page.entries.length > 0) yield page.entries;
      if (page.next === null) return;
      walk.position = page.next;
    }
  }

  async function* urlset(first: SitemapEntry[], after: HarvestPosition | undefined, max: number): AsyncGenerator<string> {
    yield urlsetOpen;
    const write = (page: SitemapEntry[]) => page.map((e) => urlEntry(links.landing(e.kind, e.id), e.updated)).join('');
    if (first.length > 0) yield write(first);
    if (max > 0) for await (const page of entries(after, max)) yield write(page);
    yield urlsetClose;
  }

  /** One part per `perFile` entries, each named by the position before its first entry, dated by its last. */
  async function* index(): AsyncGenerator<string> {
    yield indexOpen;
    const walk: { position?: HarvestPosition } = {};
    let partStart: HarvestPosition | undefined;
    let inPart = 0;
    let lastmod = '';
    for await (const page of entries(undefined, Number.POSITIVE_INFINITY, walk)) {
      for (const e of page) {
        inPart++;
        lastmod = e.updated;
        if (inPart === perFile) {
          yield sitemapEntry(links.sitemap(encodePosition(partStart)), lastmod);
          partStart = { updated: e.updated, id: e.id };
          inPart = 0;
        }
      }
    }
    if (inPart > 0) yield sitemapEntry(links.sitemap(encodePosition(partStart)), lastmod);
    yield indexClose;
  }

  async function sitemap(c: Context<Env>): Promise<Response> {
    const after = c.req.query('after');
    if (after !== undefined) return c.body(streamed(urlset([], decodePosition(after), perFile)), 200, XML);
    // One file if everything fits; only then is the whole set read before the answer starts.
    const first: SitemapEntry[] = [];
    for await (const page of entries(undefined, perFile + 1)) first.push(...page);
    if (first.length <= perFile) return c.body(streamed(urlset(first, undefined, 0)), 200, XML);
    return c.body(streamed(index()), 200, XML);
  }

  return new Hono<Env>()
    .get('/robots.txt', (c) => c.body(robots, 200, { 'Content-Type': 'text/plain; charset=utf-8' }))
    .get('/sitemap.xml', sitemap);
}
