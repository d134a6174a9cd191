/**
 * Two server processes on one PostgreSQL (KRS_DATABASE_URL), as two nodes behind a load
 * balancer: a token made with the krs command works on both, what one writes the other serves and
 * finds in search at once, and both publishing one draft at the same moment publish it once.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../../packages/adapters/test/postgres-fixture.ts';
import { freePort, serverDir, startServer, tsx, type RealServer } from './real-server.ts';

interface Node {
  base: string;
  env: NodeJS.ProcessEnv;
  server: RealServer;
}
const nodes: Node[] = [];
let token = '';

async function startNode(databaseUrl: string): Promise<Node> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-pg-node-')), KRS_BASE_URL: base, KRS_DATABASE_URL: databaseUrl, INIT_CWD: serverDir };
  return { base, env, server: await startServer(env) };
}

beforeAll(async () => {
  const url = await freshDatabase();
  nodes.push(await startNode(url), await startNode(url));
  token = (await promisify(execFile)(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'ada@example.org'], { cwd: serverDir, env: nodes[0]?.env, encoding: 'utf8' })).stdout.trim();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) {
    await n.server.stop();
    rmSync(n.env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
  }
});

async function call(node: Node, method: string, path: string, body?: unknown) {
  const res = await fetch(`${node.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const metadata = { title: 'Flood extent maps', publication_date: '2024-09-01', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] };

describe('two nodes on one PostgreSQL', () => {
  it('serves on one node what the other wrote, and publishes a draft both publish at once exactly once', async () => {
    const [a, b] = nodes as [Node, Node];
    const draft = await call(a, 'POST', '/api/records', { metadata, files: { enabled: false } });
    expect(draft.status).toBe(201);
    const onB = await call(b, 'GET', `/api/records/${draft.json.id}/draft`);
    expect(onB.status).toBe(200);
    expect(onB.json.metadata.title).toBe('Flood extent maps');
    // The links each node returns are its own.
    expect(onB.json.links.self).toBe(`${b.base}/api/records/${draft.json.id}/draft`);

    const [pa, pb] = await Promise.all([call(a, 'POST', `/api/records/${draft.json.id}/draft/actions/publish`), call(b, 'POST', `/api/records/${draft.json.id}/draft/actions/publish`)]);
    expect([pa.status, pb.status].filter((s) => s === 202)).toHaveLength(1);
    const loser = pa.status === 202 ? pb : pa;
    expect([404, 409]).toContain(loser.status);
    expect(loser.json.status).toBe(loser.status);

    const versions = await call(b, 'GET', `/api/records/${draft.json.id}/versions`);
    expect(versions.json.hits.total).toBe(1);
    const published = await call(a, 'GET', `/api/records/${draft.json.id}`);
    expect(published.status).toBe(200);
    expect(published.json.versions).toMatchObject({ index: 1, is_latest: true });

    // The search index is in the database and written with the record: both nodes find it at once.
    for (const node of [a, b]) expect((await call(node, 'GET', '/api/records?q=flood')).json.hits.total).toBe(1);
    const edited = await call(b, 'POST', `/api/records/${draft.json.id}/versions`);
    expect(edited.status).toBe(201);
    const mine = await call(a, 'GET', '/api/user/records?q=flood');
    expect(mine.json.hits.hits.map((h: { id: string }) => h.id)).toContain(edited.json.id);
  });
});
