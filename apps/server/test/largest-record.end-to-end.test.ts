/**
 * The largest and deepest metadata the documented limits allow, through a real server process:
 * stored, published, read, searched, carried over a restart and a `krs reindex`. What is past a
 * limit is refused with a 400 naming the field, and the service keeps serving.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_LIMITS } from '@krs/domain';

const serverDir = resolve(import.meta.dirname, '..');
const tsx = join(serverDir, 'node_modules', '.bin', 'tsx');
let server: ChildProcess;
let base = '';
let env: NodeJS.ProcessEnv;

const cli = (...args: string[]) => execFileSync(tsx, ['src/cli.ts', ...args], { cwd: serverDir, env, encoding: 'utf8' }).trim();

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startServer(): Promise<ChildProcess> {
  const child = spawn(tsx, ['src/main.ts'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not start')), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on')) {
        clearTimeout(timer);
        ok();
      }
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
  return child;
}

async function stopServer(child: ChildProcess): Promise<void> {
  await new Promise<void>((ok) => {
    child.on('exit', () => ok());
    child.kill('SIGTERM');
  });
}

async function http(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-limits-')), KRS_BASE_URL: base, INIT_CWD: serverDir };
  server = await startServer();
});

afterAll(async () => {
  if (server.exitCode === null) await stopServer(server);
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

/** Every list at or near its limit, the deepest legal geometry, and as much text as fits the total. */
function largestLegalMetadata() {
  const ring = (lon: number, n: number) => {
    const points = Array.from({ length: n - 1 }, (_, k) => [lon + Math.cos((2 * Math.PI * k) / (n - 1)), Math.sin((2 * Math.PI * k) / (n - 1))]);
    return [...points, points[0]];
  };
  const perFeature = METADATA_LIMITS.maxPositions / 10;
  const features = Array.from({ length: 10 }, (_, f) => ({
    place: `Place ${f}`,
    identifiers: [{ scheme: 'geonames', identifier: String(2988507 + f) }],
    geometry: { type: 'GeometryCollection', geometries: [{ type: 'MultiPolygon', coordinates: [[ring(f * 10, perFeature)]] }] },
  }));
  const creators = Array.from({ length: 3_000 }, (_, i) => ({
    person_or_org: { type: 'personal', given_name: `Given${i}`, family_name: `Family${i}`, email: `p${i}@example.org`, identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
    affiliations: [{ name: `Institute ${i % 100}` }],
  }));
  return {
    title: `Zanzibarite survey ${'t'.repeat(METADATA_LIMITS.maxText - 30)}`,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    description: `<p>${'Lorem ipsum <em>dolor</em> sit amet. '.repeat(Math.floor((METADATA_LIMITS.maxHtml - 10) / 37))}</p>`,
    creators,
    subjects: Array.from({ length: METADATA_LIMITS.maxList }, (_, i) => ({ subject: `subject ${i}` })),
    related_identifiers: Array.from({ length: 1_000 }, (_, i) => ({ identifier: `https://example.org/${i}`, scheme: 'url', relation_type: { id: 'references' }, title: `Link ${i}` })),
    funding: [{ funder: { name: 'Fund' }, award: { number: '1', title: { en: 'Award' }, identifiers: [{ scheme: 'url', identifier: 'https://example.org/a' }] } }],
    locations: { features },
  };
}

describe('the largest legal record over real HTTP', () => {
  it('is stored, published, read and searched, across a restart and a reindex; what is past a limit is a 400', async () => {
    const token = cli('tokens', 'create', '--user', 'ada@example.org');
    const draft = await http('POST', '/api/records', token, { metadata: largestLegalMetadata(), files: { enabled: false } });
    expect(draft.status).toBe(201);
    expect(draft.json.errors).toBeUndefined();
    const published = await http('POST', `/api/records/${draft.json.id}/draft/actions/publish`, token);
    expect(published.json.errors).toBeUndefined();
    expect(published.status).toBe(202);

    const deep = JSON.parse(`${'['.repeat(3500)}${']'.repeat(3500)}`);
    const other = await http('POST', '/api/records', token, { metadata: { title: 'Deep', funding: [{ funder: { name: 'x' }, award: deep }] } });
    expect(other.status).toBe(400);
    expect(other.json.errors[0].field).toMatch(/^metadata\.funding\.0\.award\.0/);
    const escaped = await http('POST', '/api/records', token, { metadata: { description: '<'.repeat(METADATA_LIMITS.maxHtml) } });
    expect(escaped.status).toBe(400);
    expect(escaped.json.errors).toEqual([{ field: 'metadata.description', messages: [expect.stringContaining('once sanitised')] }]);

    const check = async () => {
      const record = await http('GET', `/api/records/${draft.json.id}`, null);
      expect(record.status).toBe(200);
      expect(record.json.metadata.creators).toHaveLength(3_000);
      expect(record.json.metadata.locations.features[9].geometry.type).toBe('GeometryCollection');
      const found = await http('GET', '/api/records?q=Zanzibarite', null);
      expect(found.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([draft.json.id]);
      const inBox = await http('GET', '/api/records?bbox=89,1,91,-1', null);
      expect(inBox.json.hits.total).toBe(1);
    };
    await check();
    await stopServer(server);
    server = await startServer();
    await check();
    expect(cli('reindex')).toMatch(/records reindexed/);
    await check();
  });
});
