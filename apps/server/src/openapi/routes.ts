/**
 * `GET /api/openapi.json` and the reference at `GET /api/docs`. Mounted before identity and
 * `Accept` negotiation: the document is public, and a browser asking for the page or its assets
 * must not be refused for not accepting JSON. Everything is built once, when the app is made.
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { buildDocument } from './document.ts';
import { DOCS_PATH, docsBundle } from './docs.ts';

export interface OpenApiOptions {
  baseUrl: string;
  /** Whether `/metrics` is routed (it is only when metrics are configured). */
  metrics: boolean;
}

/** krs's own version, for `info.version`: apps/server/package.json, two levels up from src/openapi and dist/openapi alike. */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const YEAR = 'public, max-age=31536000, immutable';

export function openapiRoutes(options: OpenApiOptions) {
  const { assets, page } = docsBundle();
  const document = JSON.stringify(
    buildDocument({ baseUrl: options.baseUrl, version: VERSION, metrics: options.metrics, docsAssets: assets.map((a) => ({ path: a.path, mediaType: a.mediaType })) }),
  );
  // Swagger UI needs inline styles; scripts and everything else only from here. "Try it out" calls the configured base URL.
  const connect = new URL(options.baseUrl).origin;
  const csp = `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self' ${connect}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  const app = new Hono()
    .get('/api/openapi.json', (c) => c.body(document, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }))
    .get(DOCS_PATH, (c) => c.body(page, 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': csp }));
  for (const asset of assets) {
    app.get(asset.path, (c) => {
      const headers = { 'Content-Type': asset.mediaType, 'Cache-Control': YEAR, 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' };
      const gzipped = /\bgzip\b/i.test(c.req.header('accept-encoding') ?? '') ? asset.gzipped() : null;
      return gzipped ? c.body(gzipped, 200, { ...headers, 'Content-Encoding': 'gzip' }) : c.body(asset.body, 200, headers);
    });
  }
  return app;
}
