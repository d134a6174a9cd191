/**
 * Start-up and `krs reindex` with records already stored that the search index cannot take or
 * that nest far too deep: a real server process over a data dir whose rows are edited directly.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@krs/adapters';
import { compiledEnv, freePort, krsArgs, serverDir, startServer, type RealServer } from './real-server.ts';

let env: NodeJS.ProcessEnv;
let base = '';
let dataDir = '';
let server: RealServer | null = null;

const cli = (...args: string[]) => spawnSync(...krsArgs(...args), { cwd: serverDir, env: compiledEnv(env), encoding: 'utf8' });

async function http(method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const metadata = (title: string) => ({
  title,
  publication_date: '2024-09-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
});

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'krs-unprojectable-'));
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir, KRS_SEARCH_ENGINE: 'sqlite' };
});

afterAll(async () => {
  if (server) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('records the search index cannot take', () => {
  it('are skipped and reported at start-up and by krs reindex while every other record is served', async () => {
    const token = cli('tokens', 'create', '--user', 'ada@example.org').stdout.trim();
    server = await startServer(env, { captureStderr: true });
    const published: { id: string; parent: string }[] = [];
    for (const title of ['Sea ice extent', 'Glacier velocity field', 'Glacier lake outbursts']) {
      const draft = await http('POST', '/api/records', token, { metadata: metadata(title), files: { enabled: false } });
      expect(draft.status).toBe(201);
      const done = await http('POST', `/api/records/${draft.json.id}/draft/actions/publish`, token);
      expect(done.status).toBe(202);
      published.push({ id: done.json.id, parent: done.json.parent.id });
    }
    await server.stop();
    server = null;

    const [deep, corrupt, healthy] = published as [(typeof published)[number], (typeof published)[number], (typeof published)[number]];
    // Straight into the rows, as stored before such metadata was refused (or damaged since).
    const levels = 3500;
    const funding = `${'{"nested":['.repeat(levels)}{"award":"zeppelin"}${']}'.repeat(levels)}`;
    const handle = createDb(join(dataDir, 'krs.sqlite'));
    const row = await handle.db.selectFrom('record').select('data').where('id', '=', deep.id).executeTakeFirstOrThrow();
    const data = JSON.parse(row.data) as { metadata: Record<string, unknown> };
    data.metadata['funding'] = '<deep>';
    await handle.db.updateTable('record').set({ data: JSON.stringify(data).replace('"<deep>"', funding) }).where('id', '=', deep.id).execute();
    await handle.db.updateTable('record').set({ data: '{"metadata": ' }).where('id', '=', corrupt.id).execute();
    await handle.close();
    // No saved index state: the start-up rebuilds from every row.
    for (const f of ['search.sqlite', 'search.sqlite-wal', 'search.sqlite-shm', 'search-state.json']) rmSync(join(dataDir, f), { force: true });

    server = await startServer(env, { captureStderr: true });
    const found = await http('GET', '/api/records?q=glacier&sort=newest', null);
    expect(found.status, server.log()).toBe(200);
    expect(found.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([healthy.id]);
    // The deep record is indexed (its deep part left out); only the unreadable one is skipped.
    const skipped = server.log().split('\n').filter((l) => l.includes('search.record_skipped'));
    expect(skipped.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ level: 'warn', id: corrupt.parent, parentId: corrupt.parent })]);
    expect(server.log()).toMatch(/1 records skipped/);

    const reindex = cli('reindex');
    expect(reindex.status).toBe(1);
    expect(reindex.stdout).toMatch(/^3 records reindexed, 1 skipped/);
    expect(reindex.stdout).toContain(corrupt.parent);
    // The server still answers, from the index the command rebuilt.
    expect((await http('GET', '/api/records?q=glacier', null)).json.hits.total).toBe(1);
  }, 120_000);
});
