/**
 * What search engines read first: `/robots.txt` and `/sitemap.xml`. The sitemap lists the landing
 * page of every public record at its latest version (the domain's `harvest.sitemap` decides
 * which), walking the published versions by last change in pages, never holding more than a
 * page. Up to `urlsPerFile` versions it is one `urlset`; past that an index of parts, each part
 * `/sitemap.xml?after=<position>` with the pages among the next `urlsPerFile` versions, cut from
 * the order alone (`harvest.sitemapParts`), so the index costs a step of the store's index per
 * part, not a walk of every version.
 */
import { Hono, type Context } from 'hono';
import { type Core, DomainError, type HarvestPosition, nextIteration } from '@krs/domain';
import { Busy } from '../errors.ts';
import type { Links } from '../links.ts';
import { indexClose, indexOpen, MAX_URLS_PER_FILE, sitemapEntry, urlEntry, urlsetClose, urlsetOpen } from '../sitemap-xml.ts';
import type { Env } from './request.ts';

export interface CrawlerOptions {
  /** Pages per sitemap file; the protocol's 50,000 unless a test wants an index sooner. */
  urlsPerFile?: number;
}

/** Versions read from the store at once. */
const PAGE = 500;
/** What a crawler told to wait for another part's walk waits, in seconds. */
const WALK_RETRY_SECONDS = 5;
/** How long a walk keeps its turn without its reader taking anything. */
const LEASE_MS = 30_000;
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

/**
 * A body made as it is read: each piece of text from `pieces` when the connection wants more.
 * `ended` is called once, when the pieces run out, fail, or the connection goes away.
 */
function streamed(pieces: AsyncGenerator<string>, hooks: { pulled(): void; ended(): void }): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let over = false;
  const end = () => {
    if (!over) hooks.ended();
    over = true;
  };
  return new ReadableStream({
    async pull(controller) {
      hooks.pulled();
      try {
        const { done, value } = await pieces.next();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(encoder.encode(value));
      } catch (e) {
        end();
        throw e;
      }
    },
    async cancel() {
      end();
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

  /**
   * The pages among the `rows` versions after `after`, as XML, a store page at a time. One such
   * walk at a time: a part reads up to 50,000 versions (seconds of CPU, in turns), and a crawler
   * asking for several at once, or anyone asking for the same one again and again, waits its turn
   * (503 with Retry-After, which crawlers honour) instead of multiplying that work.
   */
  async function* urlset(after: HarvestPosition | undefined, rows: number): AsyncGenerator<string> {
    yield urlsetOpen;
    let left = rows;
    let position = after;
    while (left > 0) {
      const page = await core.harvest.sitemap({ after: position, rows: Math.min(PAGE, left) });
      // Versions of large records are read fewer at a time: the part goes on until it has walked its rows.
      left -= page.walked;
      if (page.entries.length > 0) yield page.entries.map((e) => urlEntry(links.landing(e.kind, e.id), e.updated)).join('');
      if (page.next === null) break;
      position = page.next;
      // A turn for other requests between pages: a connection that takes the text as fast as it
      // comes pulls the next page at once, and the walk would otherwise hold the loop to its end.
      await nextIteration();
    }
    yield urlsetClose;
  }

  /**
   * One walk at a time: a part reads up to 50,000 versions (seconds of CPU, in turns), and a
   * crawler asking for several at once, or anyone asking for the same one again and again, waits
   * its turn (503 with Retry-After, which crawlers honour) instead of multiplying that work. The
   * turn is held until the walk ends or its connection goes, and lapses if its reader takes
   * nothing for LEASE_MS, so a body nobody reads cannot hold it.
   */
  let heldUntil = 0;
  const walkOf = (after: HarvestPosition | undefined) => {
    if (Date.now() < heldUntil) throw new Busy('A sitemap part is being made for another request; try again shortly.', WALK_RETRY_SECONDS);
    heldUntil = Date.now() + LEASE_MS;
    return streamed(urlset(after, perFile), {
      pulled: () => (heldUntil = Date.now() + LEASE_MS),
      ended: () => (heldUntil = 0),
    });
  };

  async function sitemap(c: Context<Env>): Promise<Response> {
    const after = c.req.query('after');
    // HEAD (link checkers, a crawler's first look) gets the headers alone: a walk made for a body
    // nobody reads would hold the turn for LEASE_MS and turn away the GET that follows.
    if (c.req.method === 'HEAD') {
      if (after !== undefined) decodePosition(after);
      return c.body(null, 200, XML);
    }
    if (after !== undefined) return c.body(walkOf(decodePosition(after)), 200, XML);
    // Cut from the order alone, a step of the index per part; one file when it is one part.
    const parts = await core.harvest.sitemapParts(perFile);
    if (parts.length <= 1) return c.body(walkOf(undefined), 200, XML);
    const index = parts.map((p) => sitemapEntry(links.sitemap(encodePosition(p.after)), p.lastmod)).join('');
    return c.body(indexOpen + index + indexClose, 200, XML);
  }

  return new Hono<Env>()
    .get('/robots.txt', (c) => c.body(robots, 200, { 'Content-Type': 'text/plain; charset=utf-8' }))
    .get('/sitemap.xml', sitemap);
}
