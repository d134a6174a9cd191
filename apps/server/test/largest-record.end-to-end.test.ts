/**
 * The largest and deepest metadata the documented limits allow, through a real server process:
 * stored, published, read, searched, carried over a restart and a `krs reindex`. What is past a
 * limit is refused with a 400 naming the field, and the service keeps serving.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_LIMITS } from '@krs/domain';
import { largestLegalMetadata } from '@krs/domain/testing';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';

let server: RealServer;
let base = '';
let env: NodeJS.ProcessEnv;

// Not execFileSync: a blocked event loop does not see the server close an idle kept-alive
// connection (after 5 s), and the next fetch would be sent on it ("other side closed").
const cli = async (...args: string[]) => (await runKrs(env, ...args)).stdout.trim();

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
  server = await startServer(env);
});

afterAll(async () => {
  await server.stop();
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

describe('the largest legal record over real HTTP', () => {
  it('is stored, published, read and searched, across a restart and a reindex; what is past a limit is a 400', async () => {
    const token = await cli('tokens', 'create', '--user', 'ada@example.org');
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
    // Refused as it arrives, after the reading has paused between several 256 KiB stretches; the
    // rest of the body is read and dropped, and the answer comes on the same connection.
    const overlong = await http('POST', '/api/records', token, `{"metadata":{"title":"Long","description":"${'a'.repeat(3 * 1024 * 1024)}"}}`);
    expect(overlong.status).toBe(400);
    expect(overlong.json.errors[0].field).toMatch(/description/);

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
    await server.stop();
    server = await startServer(env);
    await check();
    expect(await cli('reindex')).toMatch(/records reindexed/);
    await check();
  });
});
