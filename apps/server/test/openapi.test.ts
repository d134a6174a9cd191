/**
 * The OpenAPI document and the reference page: a valid OpenAPI 3.1 document that lists exactly the
 * routes the app answers (so a new route without an entry, or an entry without a route, fails
 * here), request schemas that are the routes' own, real answers that match the documented
 * shapes, and a reference page that loads nothing from another origin.
 */
import { gunzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UI_TYPES } from '../src/accept.ts';
import { RECORD_ALTERNATES } from '../src/exports/formats.ts';
import { createMetrics } from '../src/ops/metrics.ts';
import { draftBody, listingQuery } from '../src/routes/schemas.ts';
import type { OpenApiDocument } from '../src/openapi/document.ts';
import { BASE, makeApp, metadata } from './make-app.ts';
import { conformance } from './openapi-conformance.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;

/** The paths the page's `src` and `href` values resolve to. */
const assetPaths = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => new URL(m[1] ?? '', new URL('/api/docs', BASE)).pathname);

async function appWithDocument() {
  const metrics = createMetrics({ countRecords: async () => [] });
  const env = await makeApp({}, undefined, { ops: { metrics } });
  const res = await env.app.request('/api/openapi.json');
  const raw = (await res.json()) as { [key: string]: unknown };
  return { ...env, res, raw, doc: raw as unknown as OpenApiDocument };
}

/** `METHOD /path/{param}` for every route the app registers (middleware is `ALL` and left out). */
function routesOf(app: { routes: readonly { method: string; path: string }[] }): Set<string> {
  const out = new Set<string>();
  for (const r of app.routes) {
    if (r.method === 'ALL') continue;
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
    out.add(`${r.method} ${path}`);
  }
  return out;
}

function documented(doc: OpenApiDocument): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const { res, raw, doc } = await appWithDocument();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    // Each named schema is itself valid JSON Schema draft 2020-12 (the dialect zod emits and 3.1 uses).
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) expect(ajv.validateSchema(schema), `${name}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(raw));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route the app answers, and no route it does not', async () => {
    const { app, doc } = await appWithDocument();
    const routes = routesOf(app);
    const listed = documented(doc);
    // A HEAD is answered by its GET route.
    const missing = [...routes].filter((r) => !listed.has(r)).sort();
    const extra = [...listed].filter((r) => !routes.has(r) && !(r.startsWith('HEAD ') && routes.has(`GET ${r.slice(5)}`))).sort();
    expect(missing, 'routes the document lacks').toEqual([]);
    expect(extra, 'documented routes the app does not have').toEqual([]);
    expect(routes.size).toBeGreaterThan(80);
  });

  it('leaves /metrics out when metrics are not configured, as the app does', async () => {
    const { app } = await makeApp();
    const doc = (await (await app.request('/api/openapi.json')).json()) as OpenApiDocument;
    expect(doc.paths['/metrics']).toBeUndefined();
    expect(documented(doc)).toEqual(new Set([...documented(doc)].filter((r) => routesOf(app).has(r) || r.startsWith('HEAD '))));
  });

  it('names the configured base URL as its server and gives each operation an id, statuses and the error body', async () => {
    const { doc } = await appWithDocument();
    expect(doc.servers).toEqual([{ url: BASE }]);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        expect(ids.has(op.operationId), `${method} ${path}: operationId ${op.operationId} repeats`).toBe(false);
        ids.add(op.operationId);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
        if (path.startsWith('/api/') && !path.startsWith('/api/docs') && path !== '/api/openapi.json') {
          for (const status of ['401', '500']) expect(op.responses[status], `${method} ${path} ${status}`).toEqual({ $ref: `#/components/responses/Error${status}` });
        }
      }
    }
    expect(doc.components.responses['Error404']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.components.schemas['Error']?.['required']).toEqual(['status', 'message']);
  });

  it('takes request schemas from the zod schemas the routes validate with', async () => {
    const { doc } = await appWithDocument();
    const { $schema: _dialect, ...draft } = z.toJSONSchema(draftBody, { target: 'draft-2020-12', io: 'input' });
    expect(doc.components.schemas['DraftBody']).toEqual(draft);
    expect(doc.paths['/api/records']?.post?.requestBody?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/DraftBody' });
    const params = doc.paths['/api/search']?.get?.parameters ?? [];
    expect(params.flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : []))).toEqual([...Object.keys(listingQuery.shape), 'resource_type', 'access_status', 'record_type']);
  });

  it('documents content negotiation and both credentials', async () => {
    const { doc } = await appWithDocument();
    const ok = doc.paths['/api/records/{id}']?.get?.responses['200'];
    expect(ok && 'content' in ok ? Object.keys(ok.content ?? {}) : []).toEqual(['application/json', ...UI_TYPES, ...RECORD_ALTERNATES]);
    expect(RECORD_ALTERNATES).toEqual(expect.arrayContaining(['application/ld+json', 'text/x-bibliography']));
    expect(doc.components.securitySchemes['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes['accessLinkToken']).toMatchObject({ type: 'apiKey', in: 'query', name: 'token' });
    expect(doc.paths['/api/user/records']?.get?.security).toEqual([{ bearerAuth: [] }]);
  });

  it('describes real answers: each status is documented for its operation, and each body matches its schema', async () => {
    const env = await appWithDocument();
    const { alice, doc } = env;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const check = (name: string, body: unknown) => {
      const validate = ajv.getSchema(`#/components/schemas/${name}`);
      if (!validate) throw new Error(`no schema ${name}`);
      expect(validate(body), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const templates = Object.keys(doc.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    /** The call, after checking that its status is one the document gives for that operation. */
    const call = async (method: string, path: string, init: Parameters<typeof env.call>[2] = {}) => {
      const res = await env.call(method, path, init);
      const bare = path.split('?')[0] ?? path;
      // A literal path (`/api/records`) wins over a template that also matches it.
      const template = templates.find((t) => t.path === bare) ?? templates.find((t) => t.pattern.test(bare));
      const op = template && doc.paths[template.path]?.[method.toLowerCase() as (typeof METHODS)[number]];
      expect(op, `${method} ${path} is documented`).toBeDefined();
      expect(Object.keys(op?.responses ?? {}), `${method} ${path} answered ${res.status}: ${res.text.slice(0, 200)}`).toContain(String(res.status));
      // A body's media type is one the document gives for that status.
      const answer = op?.responses[String(res.status)];
      const resolved = answer && '$ref' in answer ? doc.components.responses[answer.$ref.split('/').pop() ?? ''] : answer;
      const base = (type: string) => type.split(';')[0]?.trim().toLowerCase() ?? '';
      if (res.text !== '') {
        const types = Object.keys(resolved?.content ?? {}).map(base);
        const type = base(res.headers.get('content-type') ?? '');
        expect(types.some((t) => t === type || t === '*/*'), `${method} ${path} ${res.status} as ${type}, documented ${types.join(', ')}`).toBe(true);
      }
      return res;
    };
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata } });
    expect(draft.status).toBe(201);
    check('Record', draft.json);
    const id = draft.json.id as string;
    const started = await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.txt' }] });
    check('FileList', started.json);
    const uploaded = await call('PUT', `/api/records/${id}/draft/files/a.txt/content`, { token: alice, body: 'hello', headers: { 'content-type': 'application/octet-stream' } });
    check('FileEntry', uploaded.json);
    const committed = await call('POST', `/api/records/${id}/draft/files/a.txt/commit`, { token: alice });
    check('FileEntry', committed.json);
    expect((await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': '"99"' } })).status).toBe(412);
    expect((await call('PUT', `/api/records/${id}/draft`, { token: alice, body: 'x=1', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const published = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect(published.status).toBe(202);
    check('Record', published.json);
    const ui = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/vnd.inveniordm.v1+json' } });
    check('Record', ui.json);
    const ld = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/ld+json' } });
    expect(ld.headers.get('content-type')).toBe('application/ld+json');
    check('JsonLd', ld.json);
    expect((await call('GET', `/api/records/${id}/versions/latest`, { headers: { accept: 'application/ld+json' } })).status).toBe(406);
    for (const type of RECORD_ALTERNATES) expect((await call('GET', `/api/records/${id}`, { headers: { accept: type } })).status, type).toBe(200);
    expect((await call('GET', `/api/records/${id}?style=nope`, { headers: { accept: 'text/x-bibliography' } })).status).toBe(400);
    for (const format of ['json', 'datacite-xml', 'bibtex', 'citation']) expect((await call('GET', `/records/${id}/export/${format}`)).status, format).toBe(200);
    expect((await call('GET', `/records/${id}/export/nope`)).status).toBe(404);
    expect((await call('GET', '/search/area.svg?bbox=-10,50,10,40')).status).toBe(200);
    expect((await call('GET', '/search?at.x=10&at.y=10', { headers: { accept: 'text/html' } })).status).toBe(303);
    check('Record', (await call('GET', `/api/records/${id}/versions/latest`)).json);
    check('FileList', (await call('GET', `/api/records/${id}/files`)).json);
    const whole = await call('GET', `/api/records/${id}/files/a.txt/content`);
    expect(whole.text).toBe('hello');
    expect((await call('GET', `/api/records/${id}/files/a.txt/content`, { headers: { range: 'bytes=1-2' } })).status).toBe(206);
    expect((await call('GET', `/api/records/${id}/files/a.txt/content`, { headers: { range: 'bytes=9-' } })).status).toBe(416);
    expect((await call('GET', `/api/records/${id}/files/a.txt/content`, { headers: { 'if-none-match': whole.headers.get('etag') ?? '' } })).status).toBe(304);
    check('SearchResult', (await call('GET', '/api/records')).json);
    check('SearchResult', (await call('GET', '/api/search', { headers: { accept: 'application/vnd.inveniordm.v1+json' } })).json);
    check('SearchResult', (await call('GET', `/api/records/${id}/versions`)).json);
    const link = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'view' } });
    expect(link.status).toBe(201);
    check('AccessLink', link.json);
    check('AccessLinkList', (await call('GET', `/api/records/${id}/access/links`, { token: alice })).json);
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata } });
    check('Record', pkg.json);
    check('ResourceErrors', (await call('POST', `/api/packages/${pkg.json.id as string}/draft/resources`, { token: alice, json: { resources: [{ id }] } })).json);
    check('SearchResult', (await call('GET', `/api/packages/${pkg.json.id as string}/draft/resources`, { token: alice })).json);
    const invalid = await call('GET', '/api/records?size=ten');
    expect(invalid.status).toBe(400);
    check('Error', invalid.json);
    check('Error', (await call('GET', '/api/records/nope')).json);
    check('Error', (await call('GET', '/api/user/records')).json);
    check('Error', (await call('GET', '/api/search', { token: 'not-a-token' })).json);
    expect((await call('GET', '/api/search', { headers: { accept: 'text/csv' } })).status).toBe(406);
    check('Health', (await call('GET', '/healthz')).json);
    check('Readiness', (await call('GET', '/readyz')).json);
    expect((await call('GET', '/oai2d?verb=Identify')).status).toBe(200);
    expect((await call('GET', `/records/${id}/latest`)).status).toBe(302);
    const missingPage = await call('GET', '/records/nope', { headers: { accept: 'text/html' } });
    expect([missingPage.status, missingPage.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect((await call('GET', '/search?size=ten', { headers: { accept: 'text/html' } })).status).toBe(400);
  });
});

describe('conformance of every answer the app.request() tests get (make-app `call`)', () => {
  it('names an undocumented status, media type or body shape', async () => {
    const { doc } = await appWithDocument();
    const check = conformance(doc);
    const answer = (status: number, type: string, json: unknown) => ({ status, headers: new Headers({ 'content-type': type }), text: JSON.stringify(json), json });
    expect(check('GET', '/api/records', answer(200, 'application/json', { hits: { hits: [], total: 0 }, aggregations: {}, links: { self: 'x' }, sortBy: 'newest' }))).toEqual([]);
    expect(check('GET', '/api/records', answer(299, 'application/json', {}))[0]).toContain('answered 299');
    expect(check('GET', '/api/records', answer(200, 'text/csv', {}))[0]).toContain('as text/csv');
    expect(check('GET', '/api/records/abc', answer(404, 'application/json', { message: 42 }))[0]).toContain('does not match its schema');
    expect(check('PATCH', '/api/records', answer(200, 'application/json', {}))[0]).toContain('not documented');
  });
});

describe('GET /api/docs', () => {
  it('is a page whose scripts, styles and icons are all served by krs itself', async () => {
    const { app } = await makeApp();
    const res = await app.request('/api/docs', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(urls.length).toBeGreaterThanOrEqual(4);
    const page = new URL('/api/docs', BASE);
    for (const url of urls) {
      expect(url, 'relative, so it follows the page through any proxy prefix').not.toMatch(/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i);
      expect(new URL(url, page).origin).toBe(page.origin);
    }
    expect(html).not.toMatch(/<script>/);
  });

  it('serves each asset with its content type and a year of caching, and the page finds the document', async () => {
    const { app } = await makeApp();
    const html = await (await app.request('/api/docs')).text();
    const page = new URL('/api/docs', BASE);
    const wanted: Record<string, RegExp> = { '.js': /^text\/javascript/, '.css': /^text\/css/, '.png': /^image\/png$/, '.json': /^application\/json/ };
    const seen: string[] = [];
    for (const m of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) {
      const url = new URL(m[1] ?? '', page);
      const res = await app.request(url.pathname);
      const ext = /\.[a-z]+$/.exec(url.pathname)?.[0] ?? '';
      expect(res.status, url.pathname).toBe(200);
      expect(res.headers.get('content-type'), url.pathname).toMatch(wanted[ext] ?? /^$/);
      const body = new Uint8Array(await res.arrayBuffer());
      expect(body.length, url.pathname).toBeGreaterThan(0);
      if (url.pathname.startsWith('/api/docs/')) {
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        seen.push(ext);
      }
      if (ext === '.js') {
        const text = new TextDecoder().decode(body);
        expect(text).not.toMatch(/sourceMappingURL=/);
        if (url.pathname.endsWith('/krs-docs.js')) expect(text).toContain("url: 'openapi.json'");
      }
    }
    expect(seen.sort()).toEqual(['.css', '.js', '.js', '.png']);
    // Text assets go gzipped to clients that take it, and decompress to the same bytes.
    const bundle = assetPaths(html).find((u) => u.endsWith('/swagger-ui-bundle.js')) ?? '';
    const plain = new Uint8Array(await (await app.request(bundle)).arrayBuffer());
    const zipped = await app.request(bundle, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    const packed = new Uint8Array(await zipped.arrayBuffer());
    expect(packed.length).toBeLessThan(plain.length / 2);
    expect(Buffer.compare(gunzipSync(packed), plain)).toBe(0);
    // The initializer's relative `openapi.json` resolves from the page to the document.
    const docUrl = new URL('openapi.json', page);
    expect(docUrl.pathname).toBe('/api/openapi.json');
    expect((await app.request(docUrl.pathname)).status).toBe(200);
  });

  it('is not refused for a browser Accept or a stale bearer token, which the JSON API would refuse', async () => {
    const { app } = await makeApp();
    const res = await app.request('/api/docs', { headers: { accept: 'text/html', authorization: 'Bearer not-a-token' } });
    expect(res.status).toBe(200);
    const doc = await app.request('/api/openapi.json', { headers: { authorization: 'Bearer not-a-token' } });
    expect(doc.status).toBe(200);
  });
});

describe('answers to requests from outside clients match the document', () => {
  it('describes the document itself as the JSON object it is', async () => {
    const { call } = await makeApp();
    const res = await call('GET', '/api/openapi.json');
    expect([res.status, res.json.openapi]).toEqual([200, '3.1.0']);
  });

  it('answers a malformed If-Match on deleting a draft with a documented 400, and keeps the draft', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata } });
    const refused = await call('DELETE', `/api/records/${draft.json.id as string}/draft`, { token: alice, headers: { 'if-match': 'garbage' } });
    expect([refused.status, refused.json.message]).toEqual([400, 'If-Match must be a revision id or a list of entity tags.']);
    expect((await call('GET', `/api/records/${draft.json.id as string}/draft`, { token: alice })).status).toBe(200);
  });

  it('documents 401 wherever a bearer token is read, as a refused token is answered on robots.txt and the sitemap too', async () => {
    const { call, raw } = await appWithDocument();
    const doc = raw as unknown as OpenApiDocument;
    const readsToken = (op: { security?: object[] }) => (op.security ?? []).some((s) => 'bearerAuth' in s);
    const missing = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && readsToken(item[m] as { security?: object[] }) && !('401' in (item[m]?.responses ?? {}))).map((m) => `${m} ${path}`),
    );
    expect(missing).toEqual([]);
    for (const path of ['/robots.txt', '/sitemap.xml']) expect((await call('GET', path, { token: 'not-a-token' })).status, path).toBe(401);
  });

  it('documents a draft\'s page refused without credentials as the HTML page it is, and a refused token\'s as JSON', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata } });
    const anonymous = await call('GET', `/uploads/${draft.json.id as string}`, { headers: { accept: 'text/html' } });
    expect([anonymous.status, anonymous.headers.get('content-type')]).toEqual([401, 'text/html; charset=utf-8']);
    const refused = await call('GET', `/uploads/${draft.json.id as string}`, { token: 'not-a-token', headers: { accept: 'text/html' } });
    expect([refused.status, refused.headers.get('content-type')]).toEqual([401, 'application/json']);
  });

  it('documents the 304 the latest version answers to the ETag it carries', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    await call('POST', `/api/records/${draft.json.id as string}/draft/actions/publish`, { token: alice });
    const latest = await call('GET', `/api/records/${draft.json.id as string}/versions/latest`);
    const etag = latest.headers.get('etag') ?? '';
    const again = await call('GET', `/api/records/${draft.json.id as string}/versions/latest`, { headers: { 'if-none-match': etag } });
    expect([again.status, again.headers.get('etag'), again.text]).toEqual([304, etag, '']);
  });
});
