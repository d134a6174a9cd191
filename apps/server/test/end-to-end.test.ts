/**
 * The service as its users meet it: a real server process on a temp data dir, a token from the
 * krs CLI, and plain HTTP following the links the server returns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';

let server: RealServer;
let base = '';
let env: NodeJS.ProcessEnv;

// Asynchronous on purpose: a blocked event loop would keep fetch from retiring keep-alive sockets
// the server has timed out, and the next request would meet a closed socket.
const cli = async (...args: string[]) => (await runKrs(env, ...args)).stdout.trim();

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-e2e-')), KRS_BASE_URL: base, INIT_CWD: serverDir };
  server = await startServer(env);
});

afterAll(async () => {
  await server.stop();
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

type Res = { status: number; json: any; headers: Headers; text: string };

async function http(method: string, url: string, token: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const h: Record<string, string> = { ...headers };
  if (token) h['authorization'] = `Bearer ${token}`;
  let payload: string | undefined;
  if (typeof body === 'string') payload = body;
  else if (body !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(url.startsWith('http') ? url : `${base}${url}`, { method, headers: h, body: payload });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers, text };
}

const metadata = {
  title: 'Flood extent maps for the Niger delta',
  publication_date: '2024-09-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] } }],
  locations: { features: [{ geometry: { type: 'Point', coordinates: [6.2, 4.8] }, place: 'Niger delta' }] },
};

describe('end to end over real HTTP', () => {
  it('walks draft -> upload -> publish -> edit -> new version -> access link, then packages, and survives a restart', async () => {
    const token = await cli('tokens', 'create', '--user', 'ada@example.org');
    expect(token).toMatch(/^\S{20,}$/);
    const other = await cli('tokens', 'create', '--user', 'bob@example.org', '--name', 'laptop');

    const gkh = resolve(serverDir, '../../packages/domain/test/fixtures/vocabularies');
    expect(await cli('vocabularies', 'import', 'target_audiences', join(gkh, 'custom/target_audience.yaml'))).toMatch(/^3 target_audiences entries imported$/);
    expect(await cli('vocabularies', 'import', 'licenses', join(gkh, 'licenses/licenses.csv'))).toMatch(/entries imported$/);
    await expect(cli('vocabularies', 'import', 'colours', 'x.yaml')).rejects.toThrow();
    // A deposit form reads what was imported, without a token, following the paging links to the end.
    const audiences: string[] = [];
    for (let next: string | undefined = '/api/vocabularies/targetaudiencestypes?size=2'; next !== undefined; ) {
      const page = await http('GET', next, null);
      expect(page.status).toBe(200);
      audiences.push(...page.json.hits.hits.map((h: { id: string }) => h.id));
      next = page.json.links.next;
    }
    expect(audiences).toHaveLength(3);
    expect((await http('GET', '/api/vocabularies/targetaudiencestypes?suggest=earth%20obs%20ana', null)).json.hits.hits.map((h: { id: string }) => h.id)).toEqual(['tu-geo-eoanalyst']);

    const draft = await http('POST', '/api/records', token, { metadata: { ...metadata, target_audiences: [{ id: 'tu-geo-eoanalyst' }], rights: [{ id: 'cc-by-4.0' }] } });
    expect(draft.json.errors).toBeUndefined();
    expect(draft.json.metadata.target_audiences[0].title.en).toBe('Earth Observation Analyst');
    expect(draft.status).toBe(201);
    const started = await http('POST', draft.json.links.files, token, [{ key: 'extent.csv' }]);
    const entry = started.json.entries[0];
    const csv = 'lon,lat,flooded\n6.2,4.8,1\n';
    expect((await http('PUT', entry.links.content, token, csv, { 'content-type': 'application/octet-stream' })).status).toBe(200);
    const committed = await http('POST', entry.links.commit, token);
    expect(committed.json).toMatchObject({ status: 'completed', size: csv.length, mimetype: 'text/csv' });
    const published = await http('POST', draft.json.links.publish, token);
    expect(published.status).toBe(202);
    const record = await http('GET', published.json.links.self, null);
    expect(record.json.versions).toMatchObject({ index: 1, is_latest: true });
    const files = await http('GET', record.json.links.files, null);
    expect((await http('GET', files.json.entries[0].links.content, null)).text).toBe(csv);
    expect((await http('GET', `/api/records?bbox=0,10,10,0`, null)).json.hits.total).toBe(1);
    expect((await http('GET', `/api/records?bbox=20,10,30,0`, null)).json.hits.total).toBe(0);

    const edit = await http('POST', `/api/records/${record.json.id}/draft`, token);
    expect(edit.status).toBe(201);
    await http('PUT', edit.json.links.self, token, { ...edit.json, metadata: { ...metadata, title: 'Flood extent maps, corrected' } });
    expect((await http('POST', edit.json.links.publish, token)).json.metadata.title).toBe('Flood extent maps, corrected');

    const v2 = await http('POST', record.json.links.versions, token);
    expect(v2.json.versions.index).toBe(2);
    expect((await http('POST', `/api/records/${v2.json.id}/draft/actions/files-import`, token)).status).toBe(201);
    await http('PUT', v2.json.links.self, token, { metadata: { ...metadata, publication_date: '2025' } });
    expect((await http('POST', v2.json.links.publish, token)).status).toBe(202);
    expect((await http('GET', record.json.links.latest, null)).json.id).toBe(v2.json.id);

    const restricted = await http('POST', '/api/records', token, { metadata, access: { record: 'restricted' }, files: { enabled: false } });
    const link = await http('POST', restricted.json.links.access_links, token, { permission: 'edit' });
    expect(link.status).toBe(201);
    expect((await http('GET', restricted.json.links.self, other)).status).toBe(403);
    expect((await http('GET', `${restricted.json.links.self}?token=${link.json.token}`, other)).status).toBe(200);
    expect((await http('POST', `${restricted.json.links.publish}?token=${link.json.token}`, other)).status).toBe(202);

    const pkg = await http('POST', '/api/packages', token, { metadata: { title: 'Niger delta flood package', publication_date: '2025', creators: metadata.creators }, files: { enabled: false } });
    const r1 = (await http('POST', '/api/records', token, { metadata: { title: 'Draft without creators' }, files: { enabled: false } })).json;
    const r2 = (await http('POST', '/api/records', token, { metadata, files: { enabled: false } })).json;
    expect((await http('POST', pkg.json.links.context_associate, token, { records: [{ id: r1.id }, { id: r2.id }] })).status).toBe(204);
    const attached = await http('POST', pkg.json.links.resources, token, { resources: [{ id: r1.id }, { id: record.json.id }] });
    expect(attached.json.errors).toEqual([]);
    const failed = await http('POST', pkg.json.links.publish, token);
    expect(failed.status).toBe(400);
    expect(failed.json.errors.map((e: { field: string }) => e.field)).toContain(`resources.${r1.id}.metadata.creators`);
    await http('PUT', r1.links.self, token, { metadata });
    const pkgPublished = await http('POST', pkg.json.links.publish, token);
    expect(pkgPublished.status).toBe(202);
    expect((await http('GET', pkgPublished.json.links.resources, null)).json.hits.total).toBe(2);
    const pkgV2 = await http('POST', pkgPublished.json.links.versions, token);
    expect(pkgV2.json.status).toBe('new_version_draft');
    expect((await http('POST', pkgV2.json.links.resources_import, token)).status).toBe(204);
    await http('PUT', pkgV2.json.links.self, token, { metadata: { title: 'Niger delta flood package', publication_date: '2026', creators: metadata.creators } });
    expect((await http('POST', pkgV2.json.links.publish, token)).status).toBe(202);
    expect((await http('GET', '/api/search?q=niger', null)).json.aggregations.record_type.buckets.length).toBe(2);

    // A discarded draft leaves its uploaded bytes behind until `krs gc` sweeps them; shared ones stay.
    const scratch = await http('POST', '/api/records', token, { metadata });
    const scratchEntry = (await http('POST', scratch.json.links.files, token, [{ key: 'scratch.bin' }])).json.entries[0];
    await http('PUT', scratchEntry.links.content, token, 'scratch bytes', { 'content-type': 'application/octet-stream' });
    expect((await http('DELETE', scratch.json.links.self, token)).status).toBe(204);
    expect(await cli('gc', '--grace-minutes', '0')).toMatch(/^removed 1 unreferenced blobs \(13 bytes\) and 0 interrupted uploads \(0 bytes\), kept 1; ended 0 uploads untouched for the grace period$/);
    expect((await http('GET', files.json.entries[0].links.content, null)).text).toBe(csv);
    await expect(cli('gc', '--grace-minutes', 'soon')).rejects.toThrow();

    const ids = (page: any) => page.hits.hits.map((h: { id: string }) => h.id);
    const before = (await http('GET', '/api/search?q=flood&sort=newest', null)).json;
    expect(await cli('reindex')).toMatch(/records reindexed/);
    await server.stop();
    server = await startServer(env);
    const afterSnapshot = (await http('GET', '/api/search?q=flood&sort=newest', null)).json;
    expect(afterSnapshot.hits.total).toBe(before.hits.total);
    expect(ids(afterSnapshot)).toEqual(ids(before));
    await server.stop();
    const dataDir = env['KRS_DATA_DIR'] ?? '';
    for (const f of ['search.sqlite-wal', 'search.sqlite-shm']) rmSync(join(dataDir, f), { force: true });
    writeFileSync(join(dataDir, 'search.sqlite'), 'not a database at all');
    writeFileSync(join(dataDir, 'search-state.json'), '{"truncated');
    server = await startServer(env);
    expect(ids((await http('GET', '/api/search?q=flood&sort=newest', null)).json)).toEqual(ids(before));
  });

  it('refuses a token revoked with the krs command at once, and keeps the user\'s others', async () => {
    const kept = await cli('tokens', 'create', '--user', 'rev@example.org', '--name', 'laptop');
    const lost = await cli('tokens', 'create', '--user', 'rev@example.org', '--name', 'ci');
    expect((await http('GET', '/api/user/records', lost)).status).toBe(200);
    const listed = JSON.parse(await cli('tokens', 'list', '--user', 'rev@example.org', '--json'));
    expect(listed.tokens.map((t: { name: string }) => t.name)).toEqual(['laptop', 'ci']);
    expect(JSON.stringify(listed)).not.toContain(lost);

    const revoked = JSON.parse(await cli('tokens', 'revoke', '--user', 'rev@example.org', '--name', 'ci', '--json'));
    expect(revoked.revoked).toEqual([listed.tokens[1]]);
    const refused = await http('GET', '/api/user/records', lost);
    expect(refused.status).toBe(401);
    expect((await http('GET', '/api/user/records', kept)).status).toBe(200);
    // None left of that name: nothing revoked, no error.
    expect(await cli('tokens', 'revoke', '--user', 'rev@example.org', '--name', 'ci')).toBe('');
    await expect(cli('tokens', 'revoke', '--user', 'rev@example.org')).rejects.toThrow();
  });
});
