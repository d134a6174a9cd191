/**
 * A node whose PostgreSQL or S3 stalls (stopped with SIGSTOP, a host that drops packets: open
 * connections stay open and nothing answers) answers 503 with Retry-After within its bounds, and
 * serves again once the store resumes, with no connection left in a broken state and nothing
 * half-written (`krs verify` clean).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFreezableProxy, throughProxy, type FreezableProxy } from '../../../packages/adapters/test/freezable-proxy.ts';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { startTestS3, type TestS3 } from './test-s3.ts';

usePostgresServer();

/**
 * One second each (the smallest the settings take), so a frozen store costs the test little; the
 * node's wait for an answer one more, as it must outlast PostgreSQL's own bound.
 */
const BOUNDS = { KRS_PG_CONNECT_TIMEOUT: '1', KRS_PG_STATEMENT_TIMEOUT: '1', KRS_PG_QUERY_TIMEOUT: '2', KRS_S3_CONNECT_TIMEOUT: '1', KRS_S3_IDLE_TIMEOUT: '1' };
/**
 * PostgreSQL: the node's wait for a statement's answer, or a connection's bound and then that
 * wait. S3: one attempt's connect and idle bounds (a timeout is not retried); a failed upload's
 * cleanup goes on after its answer. With room for a loaded machine.
 */
const PG_WITHIN_MS = 1_000 + 2_000 + 2_000;
const S3_WITHIN_MS = 2_000 + 3_000;

let s3: TestS3 | null = null;
let pg: FreezableProxy | null = null;
let bucket: FreezableProxy | null = null;
let server: RealServer | null = null;
let env: NodeJS.ProcessEnv = {};
let base = '';
let token = '';
let dataDir = '';

beforeAll(async () => {
  s3 = await startTestS3('krs-stalls');
  const database = new URL(await freshDatabase());
  pg = await startFreezableProxy({ host: database.hostname, port: Number(database.port) });
  const endpoint = new URL(String(s3.env['AWS_ENDPOINT_URL_S3']));
  bucket = await startFreezableProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'krs-stalls-'));
  env = {
    ...process.env,
    ...s3.env,
    ...BOUNDS,
    AWS_ENDPOINT_URL_S3: `http://${bucket.host}:${bucket.port}`,
    KRS_DATABASE_URL: throughProxy(database.toString(), pg),
    KRS_STORAGE: `s3://${s3.bucket}/site`,
    PORT: String(port),
    KRS_DATA_DIR: dataDir,
    KRS_BASE_URL: base,
    INIT_CWD: serverDir,
  };
  server = await startServer(env);
  token = (await runKrs(env, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
}, 120_000);

afterAll(async () => {
  pg?.thaw();
  bucket?.thaw();
  await server?.stop();
  await pg?.close();
  await bucket?.close();
  await s3?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown, type = 'application/json') {
  const started = Date.now();
  const res = await fetch(path.startsWith('http') ? path : `${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': type }) },
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), json: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

const metadata = { title: 'Glacier mass balance', publication_date: '2024-09-01', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] };
/** Past the small blobs the node keeps in memory, so a download reads S3. */
const content = new Uint8Array(200 * 1024).map((_, i) => (i * 13) & 0xff);

async function draftWithFile(key: string): Promise<{ content: string; commit: string; self: string }> {
  const draft = await call('POST', '/api/records', { metadata });
  expect(draft.status).toBe(201);
  const entry = (await call('POST', draft.json.links.files, [{ key }])).json.entries[0];
  return { content: entry.links.content, commit: entry.links.commit, self: draft.json.links.self };
}

function expectUnavailable(answer: { status: number; retryAfter: string | null; ms: number; json: unknown }, withinMs: number) {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toBe('5');
  expect(answer.json).toEqual({ status: 503, message: expect.stringContaining('cannot reach its database or file storage') });
  expect(answer.ms).toBeLessThan(withinMs);
}

describe('a node whose stores stall', () => {
  it('answers a search and a create 503 within the bound while PostgreSQL stalls, and 200/201 once it resumes', async () => {
    expect((await call('GET', '/api/records?q=glacier')).status).toBe(200);
    pg?.freeze();
    let answers;
    try {
      answers = await Promise.all([call('GET', '/api/records?q=glacier'), call('POST', '/api/records', { metadata }), call('GET', '/api/records?q=mass')]);
    } finally {
      pg?.thaw();
    }
    for (const a of answers) expectUnavailable(a, PG_WITHIN_MS);
    // More requests than the pool has connections: none is lent a connection left waiting on an answer.
    const after = await Promise.all(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? call('GET', '/api/records?q=glacier') : call('POST', '/api/records', { metadata }))));
    expect(after.map((a) => a.status)).toEqual(Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? 200 : 201)));
  });

  it('answers an upload and a download 503 within the bound while S3 stalls, 200 once it resumes, and leaves nothing half-written', async () => {
    const kept = await draftWithFile('kept.bin');
    expect((await call('PUT', kept.content, content, 'application/octet-stream')).status).toBe(200);
    expect((await call('POST', kept.commit)).status).toBe(200);
    const cut = await draftWithFile('cut.bin');
    bucket?.freeze();
    let upload;
    let download;
    try {
      [upload, download] = await Promise.all([call('PUT', cut.content, content, 'application/octet-stream'), call('GET', kept.content)]);
    } finally {
      bucket?.thaw();
    }
    expectUnavailable(upload, S3_WITHIN_MS);
    expectUnavailable(download, S3_WITHIN_MS);
    // The entry the failed upload was for is still pending, and takes its content now.
    expect((await call('PUT', cut.content, content, 'application/octet-stream')).status).toBe(200);
    expect((await call('POST', cut.commit)).status).toBe(200);
    const got = await fetch(kept.content, { headers: { authorization: `Bearer ${token}` } });
    expect(got.status).toBe(200);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(content);
    const verified = await runKrs(env, 'verify');
    expect(verified.stdout).toContain('verify: OK');
  });
});
