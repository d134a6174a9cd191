/**
 * Hostile clients over HTTP, on a real server process holding records of every state: seeded
 * random requests to every method and path of the server's own OpenAPI document, with ids that
 * exist and ids that do not, odd path segments, query strings, headers and bodies, anonymous,
 * signed in as the owner or someone else, or with a bogus credential. No request may answer 500
 * or go unanswered; every API error is JSON naming its status; and afterwards every record still
 * reads and lists, and the server starts again on the same data with the same records. On the
 * embedded stack (SQLite, files, FTS5) and on PostgreSQL + S3, whose stores refuse what SQLite
 * takes (a NUL character in text).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { metadata } from './make-app.ts';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { startTestS3, type TestS3 } from './test-s3.ts';

usePostgresServer();

/** The seed and the number of batches; other seeds explore further (`KRS_HOSTILE_SEED=7 KRS_HOSTILE_RUNS=3000`). */
const SEED = Number(process.env['KRS_HOSTILE_SEED'] ?? 20261127);
const RUNS = Number(process.env['KRS_HOSTILE_RUNS'] ?? 300);

/** One server and what the test seeded in it. */
interface Stack {
  base: string;
  env: NodeJS.ProcessEnv;
  server: RealServer;
  owner: string;
  other: string;
  ids: string[];
}

const json = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

async function send(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: res.status, body };
}

/** A draft (and, with `publish`, a published version) of `kind` with one committed file. */
async function seed(base: string, owner: string, kind: 'records' | 'packages', publish: boolean): Promise<string> {
  const id = ((await send(base, `/api/${kind}`, { method: 'POST', headers: json(owner), body: JSON.stringify({ metadata, files: { enabled: true } }) })).body as { id: string }).id;
  const files = `/api/${kind}/${id}/draft/files`;
  await send(base, files, { method: 'POST', headers: json(owner), body: JSON.stringify([{ key: 'a.csv' }]) });
  await send(base, `${files}/a.csv/content`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${owner}` }, body: 'x,y\n1,2\n' });
  await send(base, `${files}/a.csv/commit`, { method: 'POST', headers: json(owner) });
  if (publish) expect((await send(base, `/api/${kind}/${id}/draft/actions/publish`, { method: 'POST', headers: json(owner) })).status).toBe(202);
  return id;
}

/** A server on `shared` (the stores' settings), with two users, records of every state, a context and an access link. */
async function startStack(shared: NodeJS.ProcessEnv): Promise<Stack> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, ...shared, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-hostile-requests-')), KRS_BASE_URL: base, INIT_CWD: serverDir, KRS_LOG_LEVEL: 'error' };
  for (const user of ['ada@example.org', 'bo@example.org']) await runKrs(env, 'users', 'create', user);
  const owner = (await runKrs(env, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
  const other = (await runKrs(env, 'tokens', 'create', '--user', 'bo@example.org')).stdout.trim();
  const server = await startServer(env);
  const ids = [await seed(base, owner, 'records', true), await seed(base, owner, 'records', false), await seed(base, owner, 'packages', true), await seed(base, owner, 'packages', false)];
  // A resource in a package's context, and a new version's draft of a published resource.
  await send(base, `/api/packages/${ids[3]}/context/actions/associate`, { method: 'POST', headers: json(owner), body: JSON.stringify({ records: [{ id: ids[1] }] }) });
  ids.push(((await send(base, `/api/records/${ids[0]}/versions`, { method: 'POST', headers: json(owner) })).body as { id: string }).id);
  await send(base, `/api/records/${ids[0]}/access/links`, { method: 'POST', headers: json(owner), body: JSON.stringify({ permission: 'view' }) });
  return { base, env, server, owner, other, ids };
}

/** What may stand for a path parameter: ids that exist, ids that do not, and what no id looks like. */
const segment = fc.oneof(
  { arbitrary: fc.constant('ID'), weight: 8 },
  { arbitrary: fc.constant('a.csv'), weight: 2 },
  { arbitrary: fc.constantFrom('record:ID', 'draft:ID', 'package:ID', 'package-draft:ID', 'draft:record:ID'), weight: 1 },
  {
    arbitrary: fc.constantFrom('file.txt', '00000-00000', 'zzzzz-zzzzz', '0', '-1', '%00', '%ED%A0%80', '%FF%FE', '..%2F..%2Fetc', '%2e%2e', 'a%20b', '*', '~', 'null', 'csl', 'bibtex', 'json-ld', 'x'.repeat(3000)),
    weight: 2,
  },
  { arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(s)), weight: 1 },
);

const QUERY_KEYS = ['q', 'size', 'page', 'sort', 'bbox', 'allversions', 'token', 'style', 'locale', 'resource_type', 'access_status', 'record_type', 'verb', 'metadataPrefix', 'identifier', 'resumptionToken', 'from', 'until', 'set', 'after', 'suggest', 'tags', 'type'];
const queryValue = fc.oneof(
  fc.constantFrom('(a (a (a (a', 'a~ b~ c~ d~ e~', '_exists_:metadata.title', 'metadata.publication_date:[2020 TO *]', '"unclosed', '*:*', '-1', '0', '99999999999', '1e309', 'NaN', '-180,-90,180,90', '10,10,-10,-10', 'oai_dc', 'ListRecords', 'bestmatch', 'newest', '%', '%ZZ', '\u0000', 'a'.repeat(5000)),
  fc.string({ maxLength: 60 }),
  fc.integer().map(String),
);
const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ minLength: 1, maxLength: 12 })), queryValue), { maxLength: 5 });

/** At most two odd headers a request, so that most requests get past content negotiation. */
const headers = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant('range'), fc.constantFrom('bytes=0-0', 'bytes=5-1', 'bytes=-0', 'bytes=0-1,2-3', 'items=1-2', 'bytes=99999999999999999999-')),
      fc.tuple(fc.constant('if-none-match'), fc.constantFrom('*', 'W/"x"', '"x"', 'garbage')),
      fc.tuple(fc.constant('if-modified-since'), fc.oneof(fc.constant('Tue, 01 Jan 2030 00:00:00 GMT'), fc.string({ maxLength: 30 }))),
      fc.tuple(fc.constant('if-range'), fc.constantFrom('"x"', 'Tue, 01 Jan 2030 00:00:00 GMT', 'W/"x"')),
      fc.tuple(fc.constant('accept'), fc.constantFrom('application/json', 'text/html', 'application/x-bibtex', 'application/vnd.citationstyles.csl+json', 'application/ld+json', '*/*', 'image/png', 'garbage/;;;')),
      fc.tuple(fc.constant('content-type'), fc.constantFrom('application/json; charset=latin1', 'text/plain', 'application/octet-stream', 'multipart/form-data', 'x/y')),
      fc.tuple(fc.constant('accept-encoding'), fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0')),
    ),
    { maxLength: 2 },
  )
  .map((entries) => Object.fromEntries(entries) as Record<string, string>);

type Credential = 'none' | 'owner' | 'other' | 'bogus' | 'basic';
const credential = fc.oneof(
  { arbitrary: fc.constant<Credential>('owner'), weight: 10 },
  { arbitrary: fc.constant<Credential>('none'), weight: 4 },
  { arbitrary: fc.constant<Credential>('other'), weight: 3 },
  { arbitrary: fc.constantFrom<Credential>('bogus', 'basic'), weight: 2 },
);

/** Bodies: drafts near the valid shape, the other endpoints' shapes, random JSON, and text that is no JSON at all. */
const body = fc.oneof(
  fc.constant(undefined),
  fc
    .record({
      metadata: fc.tuple(fc.constantFrom('title', 'creators', 'publication_date', 'resource_type', 'description', 'funding', 'locations', 'subjects', 'rights', 'dates', 'x'), fc.oneof(fc.jsonValue({ depthSize: 'small' }), fc.constantFrom('a\u0000b', '\ud800', '\u{1F600}'.repeat(300), '<script>alert(1)</script><a href=javascript:x>y</a>'))).map(([k, v]) => ({ ...metadata, [k]: v })),
      files: fc.record({ enabled: fc.boolean() }),
      access: fc.constantFrom({ record: 'public', files: 'public' }, { record: 'restricted', files: 'restricted' }, { record: 'public', files: 'restricted', embargo: { active: true, until: '2030-01-01' } }, { embargo: { active: true } }),
    }, { requiredKeys: ['metadata'] })
    .map((v) => JSON.stringify(v)),
  fc.array(fc.record({ key: fc.oneof(fc.constant('a.csv'), fc.constantFrom('a\u0000b', '\uFFFE', '\u{1F600}'.repeat(128)), fc.string({ maxLength: 20 })) }), { maxLength: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('{"records": [{"id": "ID"}, {"id": "ID"}]}', '{"resources": [{"id": "ID"}]}', '{"permission": "view"}', '{"permission": "edit", "expires_at": "2000-01-01"}', '{"permission": "manage"}', '[{"key": "b\\ud800.txt"}]'),
  fc.json({ depthSize: 'small' }),
  fc.constantFrom('{', '['.repeat(10000), '\u0000', ''),
);

/** Mostly an operation the document names; one request in five with a method of its own. */
const request = fc.record({ method: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), weight: 1 }), operation: fc.nat(), params: fc.array(segment, { minLength: 4, maxLength: 4 }), id: fc.nat(), query, headers, credential, body });

/** The random requests, then every record read, listed, and read again after a restart. */
async function hostileRun(stack: Stack): Promise<void> {
  const { base, owner, other, ids } = stack;
  const document = (await send(base, '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => [method.toUpperCase(), path] as const));
  expect(operations.length).toBeGreaterThan(60);
  const seen = new Map<number, number>();
  await fc.assert(
    // Up to eight at once, as clients racing each other (two publishes of one draft, an upload and a delete).
    fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), async (batch) => {
      await Promise.all(
        batch.map(async (r) => {
          const id = ids[r.id % ids.length] as string;
          let i = 0;
          const [documented, template] = operations[r.operation % operations.length] as readonly [string, string];
          const method = r.method ?? documented;
          const path = template.replace(/\{[^}]+\}/g, () => {
            const s = r.params[i++ % r.params.length] as string;
            return s.replaceAll('ID', id);
          });
          const qs = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${v === '%' || v === '%ZZ' ? v : encodeURIComponent(v.replace(/[\ud800-\udfff]/g, ''))}`).join('&');
          const authorization = { none: null, owner: `Bearer ${owner}`, other: `Bearer ${other}`, bogus: 'Bearer not-a-token', basic: 'Basic YTpi' }[r.credential];
          const auth: Record<string, string> = authorization === null ? {} : { authorization };
          const withBody = r.body !== undefined && method !== 'GET' && method !== 'HEAD';
          const res = await fetch(`${base}${path}${qs === '' ? '' : `?${qs}`}`, {
            method,
            headers: { 'content-type': 'application/json', ...r.headers, ...auth },
            ...(withBody ? { body: (r.body as string).replaceAll('ID', id) } : {}),
            redirect: 'manual',
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          const what = `${method} ${path}?${qs} ${JSON.stringify(r.headers)} ${r.credential} ${JSON.stringify(r.body)?.slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`;
          // 503 only as "come back later" (a sitemap walk under way), never for a failure.
          expect(res.status < 500 || (res.status === 503 && res.headers.get('retry-after') !== null), what).toBe(true);
          if (path.startsWith('/api/') && res.status >= 400 && method !== 'HEAD' && !(r.headers.accept ?? '').includes('html')) {
            expect(res.headers.get('content-type') ?? '', what).toMatch(/json/);
            expect((JSON.parse(text) as { status?: unknown }).status, what).toBe(res.status);
          }
        }),
      );
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  // Most requests were turned away, but not all: some read and some wrote.
  expect([seen.get(200) ?? 0, seen.get(201) ?? 0].every((n) => n > 0), JSON.stringify([...seen])).toBe(true);

  const readable = async () => {
    const listed: string[] = [];
    for (const kind of ['records', 'packages']) {
      const mine = (await send(base, `/api/user/${kind}?size=100`, { headers: json(owner) })).body as { hits: { hits: { id: string; is_published?: boolean; links: Record<string, string> }[] } };
      for (const hit of mine.hits.hits) {
        listed.push(`${kind}:${hit.id}`);
        expect((await send(base, new URL(hit.links['self'] as string).pathname, { headers: json(owner) })).status, hit.links['self']).toBe(200);
        expect((await send(base, new URL(hit.links['files'] as string).pathname, { headers: json(owner) })).status, hit.links['files']).toBe(200);
      }
      const published = (await send(base, `/api/${kind}?size=100`)).body as { hits: { total: number; hits: { id: string; links: Record<string, string> }[] } };
      for (const hit of published.hits.hits) {
        for (const link of [hit.links['self'], hit.links['self_html']]) expect((await send(base, new URL(link as string).pathname)).status, link).toBe(200);
        listed.push(`published ${kind}:${hit.id}`);
      }
    }
    return listed.sort();
  };
  const before = await readable();
  expect(before.length).toBeGreaterThanOrEqual(ids.length);
  await stack.server.stop();
  stack.server = await startServer(stack.env);
  expect(await readable()).toEqual(before);
}

describe('hostile requests to a running server', () => {
  const stacks: Stack[] = [];
  let s3: TestS3 | null = null;
  afterAll(async () => {
    for (const stack of stacks) {
      await stack.server.stop();
      rmSync(stack.env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
    }
    await s3?.stop();
  });

  it('never answer 500 or hang, answer API errors in JSON, and leave every record readable, listed and there after a restart (SQLite, files, FTS5)', async () => {
    stacks.push(await startStack({}));
    await hostileRun(stacks.at(-1) as Stack);
  }, 600_000);

  it('never answer 500 or hang, answer API errors in JSON, and leave every record readable, listed and there after a restart (PostgreSQL + S3)', async () => {
    s3 = await startTestS3('krs-hostile-requests');
    stacks.push(await startStack({ ...s3.env, KRS_DATABASE_URL: await freshDatabase(), KRS_STORAGE: `s3://${s3.bucket}/site` }));
    await hostileRun(stacks.at(-1) as Stack);
  }, 600_000);
});
