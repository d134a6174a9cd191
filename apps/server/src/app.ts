/**
 * The HTTP app: identity, JSON body rules, one sub-app per concern, one error mapping.
 * Handlers validate, call one core function and serialize; no business rule lives here.
 */
import { Hono } from 'hono';
import type { Core } from '@krs/domain';
import { negotiate } from './accept.ts';
import { authenticate } from './auth.ts';
import { toHttpError } from './errors.ts';
import { jsonBody } from './json-body.ts';
import { createLinks } from './links.ts';
import { createResponder } from './respond.ts';
import { accessLinkRoutes } from './routes/access-links.ts';
import { fileRoutes } from './routes/files.ts';
import { packageRoutes } from './routes/packages.ts';
import { recordRoutes } from './routes/records.ts';
import type { Env } from './routes/request.ts';
import { searchRoutes } from './routes/search.ts';

export interface AppConfig {
  baseUrl: string;
}

const KNOWN_PREFIXES = ['/api/records', '/api/packages', '/api/search', '/api/user'];

export function createApp(core: Core, config: AppConfig) {
  const links = createLinks(config.baseUrl);
  const respond = createResponder(links);
  const app = new Hono<Env>();
  app.use(authenticate((token) => core.users.authenticate(token)));
  app.use('/api/*', async (c, next) => {
    // File content streams raw bytes both ways; every other body is JSON, and an Accept we
    // cannot serve is refused before any work is done.
    if (c.req.path.endsWith('/content')) return next();
    negotiate(c.req.header('accept'));
    return jsonBody(c, next);
  });
  for (const [prefix, kind] of [['/api/records', 'resource'], ['/api/packages', 'package']] as const) {
    if (kind === 'package') app.route(prefix, packageRoutes(core, respond));
    app.route(prefix, recordRoutes(core, kind, respond));
    app.route(prefix, fileRoutes(core, kind, links));
    app.route(prefix, accessLinkRoutes(core, kind));
  }
  app.route('/api', searchRoutes(core, respond));
  app.notFound((c) => {
    const status = KNOWN_PREFIXES.some((p) => c.req.path.startsWith(p)) && c.req.method !== 'GET' ? 405 : 404;
    const message = status === 405 ? 'Method not allowed.' : 'Not found.';
    return c.json({ status, message }, status);
  });
  app.onError((err, c) => {
    const e = toHttpError(err);
    for (const [k, v] of Object.entries(e.headers)) c.header(k, v);
    return c.json(e.body, e.status as 400);
  });
  return app;
}
