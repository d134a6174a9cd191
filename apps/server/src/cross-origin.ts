/**
 * OPTIONS and cross-origin reads of the API. Every routed path answers OPTIONS 204 with the
 * methods it takes in `Allow` (RFC 9110 9.3.7); an unrouted one is a 404 as for any method.
 *
 * The API authenticates by bearer token (`auth.ts`) and access-link tokens in the query, never by
 * cookie or any other credential a browser attaches by itself: a page on another origin can act
 * only with a token its user gave it. So any origin may call the API (`*`, without
 * `Access-Control-Allow-Credentials`), as single-page clients served from elsewhere do. Were a
 * cookie ever to authenticate, `*` would have to give way to a list of trusted origins.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** Request headers a browser may send cross-origin beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'If-Range',
  'Range',
  'X-Request-Id',
];

/** Response headers a cross-origin script may read beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'ETag',
  'Last-Modified',
  'Link',
  'Location',
  'Content-Range',
  'Accept-Ranges',
  'Content-Disposition',
  'Content-MD5',
  'Content-Length',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'X-Request-Id',
];

/** How long a browser may reuse a preflight's answer: a day (browsers cap it lower). */
const PREFLIGHT_MAX_AGE_S = 86_400;

/**
 * `allowedAt` gives the methods routed at a path (OPTIONS among them), none when it is not
 * routed; `notFound` answers the latter.
 */
export function optionsAndCors(allowedAt: (path: string) => string[], notFound: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const api = cors({
    origin: '*',
    allowMethods: (_origin, c) => allowedAt(c.req.path),
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
  });
  const exposed = EXPOSED_HEADERS.join(',');
  const crossOrigin = (c: Context) => {
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Expose-Headers', exposed);
  };
  return async (c, next) => {
    const isApi = c.req.path === '/api' || c.req.path.startsWith('/api/');
    if (c.req.method !== 'OPTIONS') {
      if (!isApi) return next();
      // What hono/cors sets on other requests, set here so that the answer is made with them
      // (hono/cors sets them on a response made first and copied, about 11 us of CPU a request)...
      crossOrigin(c);
      await next();
      // ...and again on an answer the handler made itself (file content), which lacks them.
      if (!c.res.headers.has('access-control-allow-origin')) crossOrigin(c);
      return;
    }
    const allowed = allowedAt(c.req.path);
    if (allowed.length === 0) return notFound(c);
    const preflight = isApi ? await api(c, next) : undefined;
    const headers = new Headers(preflight instanceof Response ? preflight.headers : undefined);
    headers.set('Allow', allowed.join(', '));
    return new Response(null, { status: 204, headers });
  };
}
