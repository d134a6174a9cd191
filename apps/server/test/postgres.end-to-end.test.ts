/**
 * Two server processes on one PostgreSQL (KRS_DATABASE_URL) and one S3 endpoint (KRS_STORAGE),
 * as two nodes behind a load balancer: a token made with the krs command works on both, what one
 * writes the other serves and finds in search at once, concurrent publishes of one draft across
 * both publish it once, a node killed mid-upload leaves the other serving and nothing
 * half-written visible, and a node that loses PostgreSQL answers 503 until it is back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { startTestS3, type TestS3 } from './test-s3.ts';

usePostgresServer();

interface Node {
  base: string;
  env: NodeJS.ProcessEnv;
  server: RealServer;
}
const nodes: Node[] = [];
let token = '';
let shared: NodeJS.ProcessEnv = {};
let s3: TestS3 | null = null;
const dirs: string[] = [];

async function startNode(shared: NodeJS.ProcessEnv): Promise<Node> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-pg-node-'));
  dirs.push(dataDir);
  const env = { ...process.env, ...shared, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  return { base, env, server: await startServer(env) };
}

beforeAll(async () => {
  s3 = await startTestS3('krs-nodes');
  shared = {
    ...s3.env,
    KRS_DATABASE_URL: await freshDatabase(),
    KRS_STORAGE: `s3://${s3.bucket}/site`,
    // Access links made through one node must open on the other.
    KRS_SECRET_KEY: 'a-secret-shared-by-every-node-of-this-test-0123456789',
  };
  nodes.push(await startNode(shared), await startNode(shared));
  token = (await runKrs(nodes[0]?.env ?? {}, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.server.stop();
  await s3?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function call(node: Node, method: string, path: string, body?: unknown, type = 'application/json') {
  const res = await fetch(`${node.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': type }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

const metadata = { title: 'Flood extent maps', publication_date: '2024-09-01', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] };

describe('two nodes on one PostgreSQL and one S3', () => {
  it('creates on A, updates on B, uploads on A, commits on B, publishes on A and finds it on B at once', async () => {
    const [a, b] = nodes as [Node, Node];
    const draft = await call(a, 'POST', '/api/records', { metadata });
    expect(draft.status).toBe(201);
    const id = draft.json.id as string;
    const updated = await call(b, 'PUT', `/api/records/${id}/draft`, { metadata: { ...metadata, title: 'Flood extent maps, revised' } });
    expect(updated.status).toBe(200);
    // The links each node returns are its own.
    expect(updated.json.links.self).toBe(`${b.base}/api/records/${id}/draft`);
    expect((await call(a, 'POST', `/api/records/${id}/draft/files`, [{ key: 'extent.csv' }])).status).toBe(201);
    expect((await call(a, 'PUT', `/api/records/${id}/draft/files/extent.csv/content`, 'lon,lat\n6.2,4.8\n', 'application/octet-stream')).status).toBe(200);
    expect((await call(b, 'POST', `/api/records/${id}/draft/files/extent.csv/commit`)).status).toBe(200);
    expect((await call(a, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    const found = await call(b, 'GET', '/api/records?q=revised');
    expect(found.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([id]);
    expect((await call(b, 'GET', `/api/records/${id}/files/extent.csv/content`)).text).toBe('lon,lat\n6.2,4.8\n');
  });

  it("never answers an anonymous reader of A from a kept answer after B edits, versions or restricts the record", async () => {
    const [a, b] = nodes as [Node, Node];
    // As a browser's or fetch()'s GET, which the fast path takes: no credentials, no query.
    const anonymous = async (path: string) => {
      const res = await fetch(`${a.base}${path}`);
      return { status: res.status, text: await res.text() };
    };
    const draft = await call(a, 'POST', '/api/records', { metadata, files: { enabled: false } });
    const id = draft.json.id as string;
    expect((await call(a, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    // The first answer is kept; the second comes from it.
    for (let i = 0; i < 2; i++) expect((await anonymous(`/api/records/${id}`)).text).toContain('"title":"Flood extent maps"');
    expect((await call(b, 'POST', `/api/records/${id}/draft`)).status).toBe(201);
    expect((await call(b, 'PUT', `/api/records/${id}/draft`, { metadata: { ...metadata, title: 'Edited on B' }, files: { enabled: false } })).status).toBe(200);
    expect((await call(b, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await anonymous(`/api/records/${id}`)).text).toContain('"title":"Edited on B"');
    const next = await call(b, 'POST', `/api/records/${id}/versions`);
    expect((await call(b, 'PUT', `/api/records/${next.json.id}/draft`, { metadata, files: { enabled: false } })).status).toBe(200);
    expect((await call(b, 'POST', `/api/records/${next.json.id}/draft/actions/publish`)).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await anonymous(`/api/records/${id}`)).text).toContain('"is_latest":false');
    expect((await call(b, 'POST', `/api/records/${id}/draft`)).status).toBe(201);
    const restricted = { metadata: { ...metadata, title: 'Edited on B' }, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } };
    expect((await call(b, 'PUT', `/api/records/${id}/draft`, restricted)).status).toBe(200);
    expect((await call(b, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    expect((await anonymous(`/api/records/${id}`)).status).toBe(401);
  });

  it('never answers an anonymous listing of A from a kept answer after B publishes or edits a record', async () => {
    const [a, b] = nodes as [Node, Node];
    const listed = async () => {
      const res = await fetch(`${a.base}/api/records?q=moraine&sort=newest`);
      return ((await res.json()) as { hits: { total: number; hits: { id: string; metadata: { title: string } }[] } }).hits;
    };
    const before = await listed();
    expect(await listed()).toEqual(before);
    const draft = await call(b, 'POST', '/api/records', { metadata: { ...metadata, title: 'Moraine survey' }, files: { enabled: false } });
    const id = draft.json.id as string;
    expect((await listed()).total).toBe(before.total);
    expect((await call(b, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    expect((await listed()).hits[0]?.id).toBe(id);
    expect((await call(b, 'POST', `/api/records/${id}/draft`)).status).toBe(201);
    expect((await call(b, 'PUT', `/api/records/${id}/draft`, { metadata: { ...metadata, title: 'Moraine survey, revised' }, files: { enabled: false } })).status).toBe(200);
    expect((await call(b, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    expect((await listed()).hits[0]?.metadata.title).toBe('Moraine survey, revised');
    expect((await listed()).total).toBe(before.total + 1);
  });

  it('publishes a draft once when 20 publishes of it are spread over both nodes', async () => {
    const [a, b] = nodes as [Node, Node];
    const id = (await call(a, 'POST', '/api/records', { metadata, files: { enabled: false } })).json.id as string;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', `/api/records/${id}/draft/actions/publish`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    // Every other one is a client error with a JSON body, never a 500.
    for (const r of answers.filter((x) => x.status !== 202)) {
      expect([404, 409]).toContain(r.status);
      expect(r.json.status).toBe(r.status);
    }
    expect((await call(b, 'GET', `/api/records/${id}/versions`)).json.hits.total).toBe(1);
  });

  it('answers names holding a NUL character (%00), which PostgreSQL cannot look up, as naming nothing, never 500', async () => {
    const [a] = nodes as [Node, Node];
    const published = (await call(a, 'POST', '/api/records', { metadata, files: { enabled: false } })).json.id as string;
    await call(a, 'POST', `/api/records/${published}/draft/actions/publish`);
    const paths = ['/api/records/%00', '/api/records/a%00b/draft', `/api/records/${published}/files/%00`, `/api/records/${published}/access/links/%00`, '/api/packages/context/%00/resources', '/api/vocabularies/licenses/%00', '/api/iiif/record:%00/manifest'];
    for (const path of paths) {
      const answer = await call(a, 'GET', path);
      expect([path, answer.status, answer.json?.status]).toEqual([path, 404, 404]);
    }
    expect((await call(a, 'GET', '/records/%00')).status).toBe(404);
    const oai = await call(a, 'GET', `/oai2d?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:127.0.0.1:${published}%00`);
    expect([oai.status, /<error code="idDoesNotExist">/.test(oai.text)]).toEqual([200, true]);
    // A vocabulary entry named with one is unknown, as any other unknown entry is.
    const draft = await call(a, 'POST', '/api/records', { metadata: { ...metadata, languages: [{ id: 'en\u0000g' }] } });
    expect(draft.status).toBe(201);
  });

  it('keeps B serving, and nothing half-written visible, when A is killed in the middle of an upload', async () => {
    const [a, b] = nodes as [Node, Node];
    const id = (await call(a, 'POST', '/api/records', { metadata })).json.id as string;
    await call(a, 'POST', `/api/records/${id}/draft/files`, [{ key: 'big.bin' }]);
    // A body that never ends: A has taken part of it when it dies.
    const controller = new AbortController();
    const upload = fetch(`${a.base}/api/records/${id}/draft/files/big.bin/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: new ReadableStream({
        async pull(c) {
          await new Promise((r) => setTimeout(r, 5));
          c.enqueue(new Uint8Array(256 * 1024));
        },
      }),
      duplex: 'half',
      signal: controller.signal,
    } as RequestInit).catch(() => null);
    await new Promise((r) => setTimeout(r, 1500));
    a.server.child.kill('SIGKILL');
    await new Promise((r) => a.server.child.once('exit', r));
    controller.abort();
    await upload;
    // A is gone, not only its launcher.
    expect(await fetch(`${a.base}/readyz`).then(() => 'answered', () => 'refused')).toBe('refused');
    const entry = await call(b, 'GET', `/api/records/${id}/draft/files/big.bin`);
    expect(entry.status).toBe(200);
    expect(entry.json.status).toBe('pending');
    const content = await call(b, 'GET', `/api/records/${id}/draft/files/big.bin/content`);
    expect(content.status).toBeGreaterThanOrEqual(400);
    expect(content.status).toBeLessThan(500);
    // B goes on: a new draft, published and found.
    const other = await call(b, 'POST', '/api/records', { metadata: { ...metadata, title: 'Drought index' }, files: { enabled: false } });
    expect((await call(b, 'POST', `/api/records/${other.json.id}/draft/actions/publish`)).status).toBe(202);
    expect((await call(b, 'GET', '/api/records?q=drought')).json.hits.total).toBe(1);
    expect((await call(b, 'GET', '/readyz')).status).toBe(200);
  });

  it('answers 503 with Retry-After, not 500, while its PostgreSQL is gone, and serves again once it is back, without a restart', async () => {
    // The node reaches PostgreSQL through a proxy the test can cut, as a database restart or a
    // network failure would: open connections reset, new ones refused.
    const upstream = new URL(String(shared['KRS_DATABASE_URL']));
    const sockets = new Set<Socket>();
    const proxy = (port: number) =>
      new Promise<Server>((ok) => {
        const server = createServer((client) => {
          const db = connect(Number(upstream.port), upstream.hostname);
          for (const s of [client, db]) {
            sockets.add(s);
            s.on('error', () => undefined).on('close', () => sockets.delete(s));
          }
          client.pipe(db).pipe(client);
        });
        server.listen(port, '127.0.0.1', () => ok(server));
      });
    // Refuses new connections, and resets the open ones (close waits for them to end).
    const closeProxy = (server: Server) => {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      return closed;
    };
    const port = await freePort();
    let cut = await proxy(port);
    const through = new URL(upstream);
    through.port = String(port);
    const node = await startNode({ ...shared, KRS_DATABASE_URL: through.toString() });
    nodes.push(node);
    const id = (await call(node, 'POST', '/api/records', { metadata, files: { enabled: false } })).json.id as string;
    expect((await call(node, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);

    await closeProxy(cut);
    for (const [method, path, body] of [['GET', `/api/records/${id}`], ['GET', '/api/records?q=flood'], ['POST', '/api/records', { metadata }]] as const) {
      const res = await fetch(`${node.base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({ status: 503, message: expect.stringContaining('cannot reach its database') });
    }
    expect((await call(node, 'GET', '/readyz')).json.failing).toContain('database');

    cut = await proxy(port);
    try {
      expect((await call(node, 'GET', `/api/records/${id}`)).status).toBe(200);
      expect((await call(node, 'POST', '/api/records', { metadata })).status).toBe(201);
      expect((await call(node, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await node.server.stop();
      await closeProxy(cut);
    }
  });
});
