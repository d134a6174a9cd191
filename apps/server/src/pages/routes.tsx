/**
 * The pages behind every `*_html` link the API returns, and the site's home and search. Each
 * handler calls Core as the API routes do (same identity, same `?token=` links, same access
 * decisions) and renders HTML; a refusal is a page with the status the API would give.
 */
import { Hono, type Context } from 'hono';
import { anonymousReadStamp, type Core, DomainError, type ListingInput, nextIteration, type RecordKind, type RecordView } from '@krs/domain';
import { answerOf } from '../answer-memory.ts';
import type { Responder } from '../respond.ts';
import { toHttpError } from '../errors.ts';
import { noteReadStamp } from '../fast-path/read-stamps.ts';
import { citationStyle, DEFAULT_LOCALE } from '../exports/citation.ts';
import type { Exporter } from '../exports/exporter.ts';
import { identityOf, orIfNotFound, type Env } from '../routes/request.ts';
import { listingQuery, toListingInput } from '../routes/schemas.ts';
import { withLinkToken, type Links } from '../links.ts';
import { label, places, str } from '../metadata-view.ts';
import { MessagePage } from './message-page.tsx';
import { ITEMS_SHOWN, RecordPage, type RecordPageProps } from './record-page.tsx';
import { SearchPage } from './search-page.tsx';
import { STYLESHEET } from './stylesheet.ts';
import { STYLESHEET_PATH } from './layout.tsx';
import { areaPickerSvg, baseMap, mapFigure, pickedPoint } from './world-map.tsx';

/** Query parameters of the area picker's clicks (`<input type="image" name="at">`) and first corner. */
const PICKER_PARAMS = ['at.x', 'at.y', 'corner'];

/** `lon,lat` as numbers in range, or null. */
function pointOf(text: string | undefined): [number, number] | null {
  const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(text ?? '');
  if (!m) return null;
  const [lon, lat] = [Number(m[1]), Number(m[2])];
  return Math.abs(lon) <= 180 && Math.abs(lat) <= 90 ? [lon, lat] : null;
}

/** `W,N,E,S` as numbers, or null; the search itself reports what is wrong with a typed box. */
function boxOf(text: string | undefined): [number, number, number, number] | null {
  const parts = (text ?? '').split(',').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isFinite(n)) ? (parts as [number, number, number, number]) : null;
}

const PAGE_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' };
/** Resources listed on a package page; the context page pages through all of them. */
const RESOURCES_SHOWN = 100;

const html = (c: Context, body: { toString(): string }, status: 200 | 400 | 401 | 403 | 404 | 406 | 500 = 200) => c.body(`<!doctype html>${body.toString()}`, status, PAGE_HEADERS);

const listing = (over: Partial<ListingInput> = {}): ListingInput => ({ q: null, bbox: null, sort: null, facets: {}, ...over });

/** A page for any error thrown while making a page; the status is the one the API gives. */
export const pageErrorResponse = (links: Links) => (err: unknown, c: Context): Response => {
  const e = toHttpError(err);
  const status = (e.status >= 500 ? 500 : e.status) as 400 | 401 | 403 | 404 | 406 | 500;
  const details = (e.body.errors ?? []).flatMap((d) => d.messages);
  const message = e.status >= 500 ? 'The server could not make this page. It has been logged; try again later.' : [e.body.message, ...details].join(' ');
  const res = html(c, <MessagePage status={e.status} message={message} links={links} />, status);
  for (const [k, v] of Object.entries(e.headers)) res.headers.set(k, v);
  return res;
};

/** Browsers asking for a path outside the API get pages, not JSON. */
export const wantsHtml = (c: Context): boolean => !c.req.path.startsWith('/api/') && (c.req.header('accept') ?? '').includes('text/html');

export function notFoundPage(c: Context, links: Links): Response {
  return html(c, <MessagePage status={404} message="There is no page at this address." links={links} />, 404);
}

export function pageRoutes(core: Core, exporter: Exporter, respond: Responder) {
  const links = exporter.links;
  const token = (c: Context) => c.req.query('token');

  async function resourcesOf(c: Context<Env>, view: RecordView) {
    const page =
      view.record.state === 'draft'
        ? await core.packages.draftResources(identityOf(c), view.record.id, listing({ size: RESOURCES_SHOWN }))
        : await core.packages.publishedResources(identityOf(c), view.record.id, listing({ size: RESOURCES_SHOWN }));
    return page.hits.map((h) => ({
      title: str((h.record.metadata as Record<string, unknown>)['title']) ?? '(untitled)',
      href: links.record(h.record.kind, h.record.id, h.record.parentId, h.record.state)['self_html'] as string,
      type: label((h.record.metadata as Record<string, unknown>)['resource_type']),
    }));
  }

  async function landing(c: Context<Env>, kind: RecordKind, side: 'published' | 'draft') {
    const id = c.req.param('id') as string;
    const view = side === 'draft' ? await core.records.getDraft(identityOf(c), kind, id, answerOf(c)) : await core.records.get(identityOf(c), kind, id, answerOf(c));
    const shown = side === 'draft' ? { entries: view.record.files.enabled ? (await core.files.list(identityOf(c), kind, id, side)).entries : [], closed: false } : await core.files.shown(identityOf(c), kind, id);
    const files = shown.entries;
    const resources = kind === 'package' ? await resourcesOf(c, view) : undefined;
    // A published version's citation, JSON-LD and header are kept per revision by the exporter; drafts are not for indexing.
    let published: Pick<RecordPageProps, 'citation' | 'jsonLd'> = {};
    if (side === 'published') {
      c.header('Link', exporter.signposting(view, files));
      const style = citationStyle(c.req.query('style'));
      published = { citation: { style, html: await exporter.citation(view, style, DEFAULT_LOCALE, 'html') }, jsonLd: exporter.pageJsonLd(view, files, ITEMS_SHOWN) };
      // A resource's page, as an anonymous reader gets it without a chosen style or a link token, is
      // made of the version, its files (which change only with it) and its parent alone, as its
      // JSON is: it may be kept under the same stamp. A package's also lists other records.
      if (kind === 'resource' && c.req.query('style') === undefined && token(c) === undefined) noteReadStamp(c, anonymousReadStamp(view));
      // The page's JSON-LD and the page itself each take milliseconds for the largest records: a turn between them.
      await nextIteration();
    }
    const map = await mapFigure(places((view.record.metadata as Record<string, unknown>)['locations']), links.site(baseMap().path), nextIteration);
    // Writing the map took a turn of its own: the page gets another.
    if (map.length > 0) await nextIteration();
    const page = `<!doctype html>${(<RecordPage view={view} files={files} filesClosed={shown.closed} links={links} map={map} {...published} {...(resources ? { resources } : {})} {...(token(c) ? { token: token(c) } : {})} />).toString()}`;
    // A large record's page is hundreds of kilobytes (its map's outlines, its description): its bytes are made in turns.
    return respond.text(c, page, 200, PAGE_HEADERS);
  }

  async function latest(c: Context<Env>, kind: RecordKind) {
    const view = await core.records.latest(identityOf(c), kind, c.req.param('id') as string, answerOf(c));
    return c.redirect(withLinkToken(links.landing(kind, view.record.id), token(c)), 302);
  }

  /** The published version `id`, else the draft `id` (which asks for more than reading the published one). */
  const publishedOrDraft = (c: Context<Env>, kind: RecordKind, id: string): Promise<RecordView> =>
    orIfNotFound(
      () => core.records.get(identityOf(c), kind, id, answerOf(c)),
      () => core.records.getDraft(identityOf(c), kind, id, answerOf(c)),
    );

  /** Query parameters as sent, or a 400 page naming the one that is wrong. */
  function listingFrom(c: Context<Env>, over: Partial<ListingInput> = {}): ListingInput {
    const parsed = listingQuery.safeParse(c.req.query());
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') ?? 'query';
      throw new DomainError('invalid', 'request.query', `The ${field} parameter is not valid.`);
    }
    return { ...toListingInput(parsed.data, (n) => c.req.queries(n), answerOf(c)), ...over };
  }

  const pairs = (c: Context) => [...new URL(c.req.url).searchParams.entries()].filter(([k]) => k !== 'token');

  const app = new Hono<Env>()
    .get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }))
    // Its name changes with its content: a cached copy is never stale.
    .get(baseMap().path, (c) => c.body(baseMap().svg, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=31536000, immutable' }))
    .get('/', async (c) => {
      const page = await core.records.search(identityOf(c), ['resource', 'package'], listing({ sort: 'newest', size: 10 }));
      return html(c, <SearchPage page={page} links={links} query={[]} path="/search" heading="Newest records" />);
    })
    .get('/search/area.svg', (c) =>
      c.body(areaPickerSvg(boxOf(c.req.query('bbox')), pointOf(c.req.query('corner'))), 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }),
    )
    .get('/search', async (c) => {
      // A click on the area picker: the first sets a corner, the second draws the box.
      const x = c.req.query('at.x');
      const y = c.req.query('at.y');
      if (x !== undefined && y !== undefined) {
        if (!/^\d+$/.test(x) || !/^\d+$/.test(y)) throw new DomainError('invalid', 'request.query', 'The map click is not a pair of pixel coordinates.');
        const [lon, lat] = pickedPoint(Number(x), Number(y));
        const corner = pointOf(c.req.query('corner'));
        const rest = pairs(c).filter(([k]) => !PICKER_PARAMS.includes(k) && k !== 'page' && (corner === null || k !== 'bbox'));
        const next: [string, string][] =
          corner === null
            ? [['corner', `${lon},${lat}`]]
            : [['bbox', `${Math.min(lon, corner[0])},${Math.max(lat, corner[1])},${Math.max(lon, corner[0])},${Math.min(lat, corner[1])}`]];
        return c.redirect(`${links.site('/search')}?${new URLSearchParams([...rest.filter(([k]) => k !== next[0]?.[0]), ...next]).toString()}`, 303);
      }
      const page = await core.records.search(identityOf(c), ['resource', 'package'], listingFrom(c));
      const q = c.req.query('q');
      return html(c, <SearchPage page={page} links={links} query={pairs(c)} path="/search" heading={q ? `Search: ${q}` : 'Search'} />);
    })
    .get('/uploads/:id', (c) => landing(c, 'resource', 'draft'))
    .get('/uploads/packages/:id', (c) => landing(c, 'package', 'draft'))
    // Where package drafts' `self_html` pointed before 2026-11-27.
    .get('/packages/uploads/:id', (c) => landing(c, 'package', 'draft'))
    .get('/records/:id', (c) => landing(c, 'resource', 'published'))
    .get('/records/:id/latest', (c) => latest(c, 'resource'))
    .get('/packages/:id', (c) => landing(c, 'package', 'published'))
    .get('/packages/:id/latest', (c) => latest(c, 'package'))
    .get('/packages/:id/context', async (c) => {
      // Listed to whoever may view the package's parent, as the API's context listing is. A
      // draft package links here too (a new package, or a new version with an id of its own).
      const view = await publishedOrDraft(c, 'package', c.req.param('id'));
      const page = await core.packages.contextResources(identityOf(c), view.parent.id, listingFrom(c, { sort: 'newest' }));
      const title = str((view.record.metadata as Record<string, unknown>)['title']) ?? '(untitled)';
      const t = token(c);
      return html(
        c,
        <SearchPage page={{ ...page, aggregations: {} }} links={links} query={pairs(c)} path={c.req.path} heading={`Resources of the package “${title}”, across its versions`} within={view.parent.id} {...(t ? { token: t } : {})} />,
      );
    });
  app.onError(pageErrorResponse(links));
  return app;
}

