/**
 * The HTTP app: identity, JSON body rules, one sub-app per concern, one error mapping.
 * Handlers validate, call one core function and serialize; no business rule lives here.
 */
import { Hono, type Context } from 'hono';
import type { Core } from '@krs/domain';
import { negotiate } from './accept.ts';
import { authenticate } from './auth.ts';
import { optionsAndCors } from './cross-origin.ts';
import { errorResponse, methodNotAllowedResponse, notFoundResponse } from './errors.ts';
import { createBodyBudget, type BodyBudget } from './body-budget.ts';
import { searchTurns, type SearchGate } from './search-gate.ts';
import type { TrustedProxies } from './client-address.ts';
import { forwardedClients } from './forwarded-clients.ts';
import { jsonBodyWithin } from './json-body.ts';
import { answerScopes } from './answer-memory.ts';
import { createLinks } from './links.ts';
import { openapiRoutes } from './openapi/routes.ts';
import { opsRoutes, type OpsOptions } from './ops/routes.ts';
import { requestLog } from './ops/request-log.ts';
import { createExporter } from './exports/exporter.ts';
import { RECORD_ALTERNATES } from './exports/formats.ts';
import { createResponder } from './respond.ts';
import { exportRoutes } from './routes/exports.ts';
import { accessLinkRoutes } from './routes/access-links.ts';
import { fileRoutes } from './routes/files.ts';
import { IIIF_ALTERNATES, iiifRoutes } from './routes/iiif.ts';
import { packageRoutes } from './routes/packages.ts';
import { recordRoutes } from './routes/records.ts';
import { identityOf, type Env } from './routes/request.ts';
import { searchRoutes } from './routes/search.ts';
import { vocabularyRoutes } from './routes/vocabularies.ts';
import { oaiRoutes, type OaiOptions } from './routes/oai.ts';
import { crawlerRoutes, type CrawlerOptions } from './routes/crawlers.ts';
import { notFoundPage, pageRoutes, wantsHtml } from './pages/routes.tsx';

/** The routes that search the index: listings, the combined search, the search page. */
const SEARCH_PATHS = ['/api/records', '/api/packages', '/api/search', '/api/user/records', '/api/user/packages', '/search'];

/** The record GETs that also answer the export formats. */
const RECORD_GET = /^\/api\/(records|packages)\/[^/]+$/;

export interface AppConfig {
  baseUrl: string;
  /** An upload that sends nothing for this long is answered 408 and dropped; default 60 s. */
  uploadIdleTimeoutMs?: number;
  /** What request bodies and uploads may hold in memory at once; unbounded without one. */
  bodyBudget?: BodyBudget;
  /** Bytes the storage holds for one upload of this length; counted against `bodyBudget`. */
  uploadBufferBytes?(expectedLength?: number): number;
  /** Bytes the storage holds for one download of this length until its client takes them; counted against `bodyBudget`. */
  downloadBufferBytes?(length: number): number;
  /** A download whose client takes nothing for this long is dropped; default 60 s. */
  downloadIdleTimeoutMs?: number;
  /** The turns searches take between client addresses (search-gate.ts); without it, none. */
  searchGate?: SearchGate;
  /** Reverse proxies whose `X-Forwarded-For` names the client (client-address.ts); without them, none. */
  trustedProxies?: TrustedProxies;
  /** Request log, metrics and probe settings; without them probes still answer. */
  ops?: OpsOptions;
  oai?: OaiOptions;
  crawlers?: CrawlerOptions;
}

export function createApp(core: Core, config: AppConfig) {
  const links = createLinks(config.baseUrl);
  const exporter = createExporter(links);
  const respond = createResponder(exporter, async (c, view) => (await core.files.shown(identityOf(c), view.record.kind, view.record.id)).entries, config.downloadIdleTimeoutMs ?? 60_000);
  const app = new Hono<Env>();
  const ops = config.ops ?? {};
  if (config.trustedProxies) app.use(forwardedClients(config.trustedProxies));
  // Request lines are `info`, failed requests' `error`: at `warn` and `error` only the failures are logged.
  const requestLogger = ops.logger ?? null;
  if (requestLogger || ops.metrics) app.use(requestLog(requestLogger, ops.metrics?.observeRequest ?? null));
  const allowedAt = allowedMethods(app);
  const notFound = (c: Context<Env>) => (wantsHtml(c) ? notFoundPage(c, links) : notFoundResponse(c));
  app.use(optionsAndCors(allowedAt, notFound));
  app.route('/', opsRoutes(core, ops));
  app.route('/', openapiRoutes({ baseUrl: config.baseUrl, metrics: Boolean(ops.metrics) }));
  app.use(authenticate(core.users));
  const budget = config.bodyBudget ?? createBodyBudget({ total: null, perClient: null });
  const readJson = jsonBodyWithin(budget);
  app.use(answerScopes(budget));
  if (config.searchGate) app.on('GET', SEARCH_PATHS, searchTurns(config.searchGate));
  app.use('/api/*', async (c, next) => {
    // File content streams raw bytes both ways; every other body is JSON, and an Accept we
    // cannot serve is refused before any work is done.
    if (c.req.path.endsWith('/content')) return next();
    // A write to a path that does not take it (405) or does not exist (404) is answered so, its
    // body unread: neither its syntax nor its size concerns a route that is not there, nor should
    // an anonymous body of 10 MiB be parsed on its way to a 404.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !allowedAt(c.req.path).includes(c.req.method)) return next();
    negotiate(c.req.header('accept'), { alternates: c.req.method !== 'GET' ? [] : RECORD_GET.test(c.req.path) ? RECORD_ALTERNATES : c.req.path.startsWith('/api/iiif/') ? IIIF_ALTERNATES : [] });
    return readJson(c, next);
  });
  for (const [prefix, kind] of [['/api/records', 'resource'], ['/api/packages', 'package']] as const) {
    if (kind === 'package') app.route(prefix, packageRoutes(core, respond, links));
    app.route(prefix, recordRoutes(core, kind, respond));
    app.route(
      prefix,
      fileRoutes(core, kind, links, {
        uploadIdleTimeoutMs: config.uploadIdleTimeoutMs ?? 60_000,
        downloadIdleTimeoutMs: config.downloadIdleTimeoutMs ?? 60_000,
        budget,
        uploadBufferBytes: config.uploadBufferBytes ?? (() => 0),
        downloadBufferBytes: config.downloadBufferBytes ?? (() => 0),
      }),
    );
    app.route(prefix, accessLinkRoutes(core, kind));
  }
  app.route('/api/iiif', iiifRoutes(core, links));
  app.route('/api', searchRoutes(core, respond));
  app.route('/api', vocabularyRoutes(core, links));
  app.route('/', oaiRoutes(core, links, respond, config.oai));
  app.route('/', exportRoutes(core, exporter, respond));
  app.route('/', crawlerRoutes(core, links, config.crawlers));
  app.route('/', pageRoutes(core, exporter, respond));
  app.notFound((c) => {
    const allowed = allowedAt(c.req.path);
    if (allowed.length > 0) return methodNotAllowedResponse(c, allowed);
    return notFound(c);
  });
  app.onError(errorResponse);
  return app;
}

/**
 * The methods routed at a path, for a 405 with `Allow` when a path exists under another method
 * (and a 404 when it exists under none), and for OPTIONS, which every routed path takes. Read
 * from the app's route table on first use, when every route is registered. Matched as strictly
 * as the router matches: a trailing slash that no route takes is a 404, not a 405 listing the
 * very method that was refused.
 */
function allowedMethods(app: Hono<Env>): (path: string) => string[] {
  let table: { method: string; pattern: RegExp }[] | null = null;
  const patternOf = (path: string) =>
    new RegExp(`^${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
  return (path) => {
    table ??= app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
    const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (methods.size === 0) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods].sort();
  };
}
