/**
 * The fast path answers byte for byte as the normal path does, or leaves the request to it.
 * Two servers share one app and one core: the normal one (the adapter's listener alone) and one
 * with the fast path in front. Each request goes to the normal server once and to the fast one
 * twice (the first may be the one it keeps the answer of); the three answers must be the same
 * bytes, but for `Date` and a request id drawn at random. Writes go through the core directly, as another node's would.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createInMemorySearchIndex } from '@krs/domain/testing';
import { createFastPath, type FastPath } from '../src/fast-path/listener.ts';
import { createLogger } from '../src/ops/logger.ts';
import { makeApp, metadata } from './make-app.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok))));
});

async function listen(listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

/** The raw bytes of the answer to `request` (sent with `Connection: close`, read to the end). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((ok, fail) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (b) => chunks.push(b));
    socket.on('end', () => ok(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', fail);
    socket.write(request);
  });
}

/** The date, and a request id the server drew at random, differ from one answer to the next. */
const normalised = (answer: string) =>
  answer.replace(/\r\nDate: [^\r]*/, '\r\nDate: -').replace(/\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\r\n/, '\r\nx-request-id: random\r\n');

/**
 * Tokens the fast path is told no longer exist, as if removed on another node; the app itself is
 * not told. A removal is a commit: the tests make one beside it.
 */
const removedTokens = new Set<string>();
afterEach(() => removedTokens.clear());

async function setUp() {
  const lines: { [key: string]: unknown }[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as { [key: string]: unknown }) });
  const observed: unknown[] = [];
  const observe = (info: { method: string; route: string; status: number }) => void observed.push({ method: info.method, route: info.route, status: info.status });
  const search = createInMemorySearchIndex();
  const env = await makeApp({}, search, { ops: { logger, metrics: undefined } });
  const normalListener = getRequestListener(env.app.fetch);
  // The normal server's lines and counts come from the app's middleware; the fast path is given the same logger.
  const users = { ...env.core.users, authenticate: async (token: string) => (removedTokens.has(token) ? null : env.core.users.authenticate(token)) };
  const fast: FastPath = createFastPath({ records: env.core.records, users }, { logger, observe });
  const normalPort = await listen(normalListener);
  const fastPort = await listen(fast.listener(normalListener));
  const publish = async (extra: { [key: string]: unknown } = {}, file?: string) => {
    const draft = await env.call('POST', '/api/records', { token: env.alice, json: { metadata, files: { enabled: file !== undefined }, ...extra } });
    if (file !== undefined) {
      const files = `/api/records/${draft.json.id}/draft/files`;
      await env.call('POST', files, { token: env.alice, json: [{ key: 'notes.txt' }] });
      await env.call('PUT', `${files}/notes.txt/content`, { token: env.alice, body: file, headers: { 'content-type': 'application/octet-stream' } });
      expect((await env.call('POST', `${files}/notes.txt/commit`, { token: env.alice })).status).toBe(200);
    }
    expect((await env.call('POST', `/api/records/${draft.json.id}/draft/actions/publish`, { token: env.alice })).status).toBe(202);
    return String(draft.json.id);
  };
  /**
   * Sends the request to both servers; returns the answer and whether the fast path answered
   * the second time the fast server was asked.
   */
  const compare = async (path: string, headers: string[] = [], method = 'GET') => {
    const request = `${method} ${path} HTTP/1.1\r\nHost: krs.test\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`;
    const normal = normalised(await raw(normalPort, request));
    const first = normalised(await raw(fastPort, request));
    const before = fast.answered();
    const second = normalised(await raw(fastPort, request));
    expect(first).toBe(normal);
    expect(second).toBe(normal);
    return { answer: normal, fast: fast.answered() > before, status: Number(normal.split(' ')[1]) };
  };
  return { ...env, search, lines, observed, fast, fastPort, publish, compare };
}

describe('the fast path', () => {
  it('answers an anonymous GET and HEAD of a public record as the normal path does, with the same request line', async () => {
    const { publish, compare, lines, ...env } = await setUp();
    const id = await publish();
    for (const headers of [[], ['Accept: application/json'], ['Accept: */*'], ['X-Request-Id: client-chosen-1'], ['User-Agent: wrk', 'Accept-Encoding: gzip'], ['Accept: */*', 'Accept-Language: *', 'Sec-Fetch-Mode: cors', 'User-Agent: node', 'Accept-Encoding: gzip, deflate'],
      // Behind a load balancer, as docs/deploy.md runs the nodes.
      ['X-Forwarded-For: 203.0.113.7', 'X-Forwarded-Proto: https', 'X-Real-IP: 203.0.113.7', 'Via: 1.1 lb']]) {
      const got = await compare(`/api/records/${id}`, headers);
      expect(got).toMatchObject({ status: 200, fast: true });
      expect(got.answer).toMatch(/\r\netag: "\d+\.\d+"\r\n/);
      expect(got.answer).toMatch(/\r\nlink: <[^\r]*describedby/);
    }
    expect(await compare(`/api/records/${id}`, [], 'HEAD')).toMatchObject({ status: 200, fast: true });
    const pkg = await env.call('POST', '/api/packages', { token: env.alice, json: { metadata: { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators }, files: { enabled: false } } });
    expect((await env.call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: env.alice })).status).toBe(202);
    expect(await compare(`/api/packages/${pkg.json.id}`)).toMatchObject({ status: 200, fast: true });
    // Request lines alike, but for their timing: the client's id, route, path, status and bytes.
    const ofClient = lines.filter((l) => l['req_id'] === 'client-chosen-1').map(({ time: _t, duration_ms: _d, ...rest }) => rest);
    expect(ofClient).toHaveLength(3);
    expect(ofClient[1]).toEqual(ofClient[0]);
    expect(ofClient[2]).toEqual(ofClient[0]);
    expect(ofClient[0]).toMatchObject({ route: '/api/records/:id', path: `/api/records/${id}`, status: 200, method: 'GET' });
  });

  it("answers a file entry and a small file's content, GET and HEAD, as the normal path does", async () => {
    const { publish, compare, lines } = await setUp();
    const id = await publish({}, 'Flood extent, Niger delta. '.repeat(30));
    for (const path of [`/api/records/${id}/files/notes.txt`, `/api/records/${id}/files/notes.txt/content`]) {
      expect(await compare(path, ['X-Request-Id: file-1'])).toMatchObject({ status: 200, fast: true });
      expect(await compare(path, [], 'HEAD')).toMatchObject({ status: 200, fast: true });
      expect(await compare(path, ['If-None-Match: "x"'])).toMatchObject({ fast: false });
      expect(await compare(path, ['Range: bytes=0-9'])).toMatchObject({ fast: false });
      expect(await compare(path, ['Accept: application/ld+json'])).toMatchObject({ fast: false });
    }
    const ofClient = lines.filter((l) => l['req_id'] === 'file-1').map(({ time: _t, duration_ms: _d, ...rest }) => rest);
    expect(ofClient.map((l) => l['route'])).toEqual([...Array(3).fill('/api/records/:id/files/:key'), ...Array(3).fill('/api/records/:id/files/:key/content')]);
    expect(ofClient[2]).toEqual(ofClient[0]);
    expect(ofClient[5]).toEqual(ofClient[3]);
    const restricted = await publish({ access: { record: 'public', files: 'restricted' } }, 'closed');
    const embargoed = await publish({ access: { record: 'public', files: 'restricted', embargo: { active: true, until: '2027-01-01', reason: null } } }, 'later');
    for (const other of [restricted, embargoed]) {
      expect(await compare(`/api/records/${other}/files/notes.txt/content`)).toMatchObject({ status: 401, fast: false });
      expect(await compare(`/api/records/${other}/files/notes.txt`)).toMatchObject({ status: 401, fast: false });
    }
    expect(await compare(`/api/records/${id}/files/other.txt`)).toMatchObject({ status: 404, fast: false });
  });

  it('counts what it answers in the metrics under the same labels', async () => {
    const { publish, compare, observed } = await setUp();
    const id = await publish();
    expect((await compare(`/api/records/${id}`)).fast).toBe(true);
    expect(observed).toEqual([{ method: 'GET', route: '/api/records/:id', status: 200 }]);
  });

  it('leaves to the normal path what it is not sure of', async () => {
    const { publish, compare, alice } = await setUp();
    const id = await publish();
    const restricted = await publish({ access: { record: 'restricted', files: 'restricted' } });
    const embargoed = await publish({ access: { record: 'public', files: 'restricted', embargo: { active: true, until: '2027-01-01', reason: null } } });
    const open = await compare(`/api/records/${id}`);
    expect(open.fast).toBe(true);
    const declined: [string, string[], string?][] = [
      [`/api/records/${id}`, ['If-None-Match: "1"']],
      [`/api/records/${id}`, ['Origin: https://elsewhere.example']],
      [`/api/records/${id}`, ['Accept: application/ld+json']],
      [`/api/records/${id}`, ['Accept: application/vnd.inveniordm.v1+json']],
      [`/api/records/${id}`, ['Accept: text/html']],
      [`/api/records/${id}`, [`Authorization: Bearer ${alice}`]],
      [`/api/records/${id}`, ['Cookie: session=1']],
      [`/api/records/${id}`, ['Range: bytes=0-10']],
      [`/api/records/${id}?style=apa`, []],
      [`/api/records/${id}?token=x`, []],
      [`/api/records/${id}/`, []],
      [`/api/records/${restricted}`, []],
      [`/api/records/${restricted}`, [`Authorization: Bearer ${alice}`]],
      [`/api/records/${embargoed}`, []],
      [`/api/records/${id}/draft`, [`Authorization: Bearer ${alice}`]],
      ['/api/records/no-such-id', []],
      [`/api/packages/${id}`, []],
      [`/api/records/${id}`, [], 'POST'],
      [`/api/records/${id}`, [], 'OPTIONS'],
    ];
    for (const [path, headers, method] of declined) {
      const got = await compare(path, headers, method);
      expect({ path, headers, method, fast: got.fast }).toEqual({ path, headers, method, fast: false });
    }
    expect((await compare(`/api/records/${embargoed}`)).answer).toContain('"embargoed"');
  });

  it("never answers a resource's JSON or landing page with a stale package after the package is published, versioned, edited or left", async () => {
    const { compare, core, call, alice } = await setUp();
    const packageMetadata = { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators };
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: packageMetadata, files: { enabled: false } } })).json;
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/packages/${pkg.id}/context/actions/associate`, { token: alice, json: { records: [{ id }] } });
    await call('POST', `/api/packages/${pkg.id}/draft/resources`, { token: alice, json: { resources: [{ id }] } });
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const owner = { userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] };
    const both = async () => [await compare(`/api/records/${id}`), await compare(`/records/${id}`)];
    for (const got of await both()) expect(got).toMatchObject({ status: 200, fast: true });
    expect((await both()).map((g) => g.answer.includes('Flood resilience package'))).toEqual([false, false]);

    await core.records.publish(owner, 'package', pkg.id);
    for (const got of await both()) {
      expect(got).toMatchObject({ status: 200, fast: true });
      expect(got.answer).toContain(pkg.id);
    }
    expect((await both())[1]?.answer).toContain('Flood resilience package');

    const next = (await core.records.newVersion(owner, 'package', pkg.id)).record.id;
    await core.records.updateDraft(owner, 'package', next, { metadata: { ...packageMetadata, title: 'Second edition' }, files: { enabled: false } });
    await core.records.publish(owner, 'package', next);
    for (const got of await both()) expect(got.answer).toContain(next);
    expect((await both())[1]?.answer).toContain('Second edition');

    await core.records.edit(owner, 'package', next);
    await core.records.updateDraft(owner, 'package', next, { metadata: { ...packageMetadata, title: 'Second edition, corrected' }, files: { enabled: false } });
    await core.records.publish(owner, 'package', next);
    expect((await both())[1]?.answer).toContain('Second edition, corrected');

    await core.packages.dissociate(owner, pkg.id, [id]);
    for (const got of await both()) {
      expect(got).toMatchObject({ status: 200, fast: true });
      expect(got.answer).not.toContain(next);
      expect(got.answer).not.toContain('Part of');
    }
  });

  it('never answers from a kept answer after an edit, a new version, an access link or an access change', async () => {
    const { publish, compare, core } = await setUp();
    const id = await publish();
    const owner = { userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] };
    const answers = [(await compare(`/api/records/${id}`)).answer];

    await core.records.edit(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', id, { metadata: { ...metadata, title: 'A title edited elsewhere' }, files: { enabled: false } });
    await core.records.publish(owner, 'resource', id);
    const edited = await compare(`/api/records/${id}`);
    expect(edited).toMatchObject({ fast: true });
    expect(edited.answer).toContain('A title edited elsewhere');
    answers.push(edited.answer);

    const next = await core.records.newVersion(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', next.record.id, { metadata, files: { enabled: false } });
    await core.records.publish(owner, 'resource', next.record.id);
    const superseded = await compare(`/api/records/${id}`);
    expect(superseded.answer).toContain('"is_latest":false');
    answers.push(superseded.answer);

    await core.accessLinks.create(owner, 'resource', id, { permission: 'view' });
    const linked = await compare(`/api/records/${id}`);
    answers.push(linked.answer);
    expect(new Set(answers).size).toBe(answers.length);

    await core.records.edit(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', id, { metadata, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } });
    await core.records.publish(owner, 'resource', id);
    const closed = await compare(`/api/records/${id}`);
    expect(closed).toMatchObject({ status: 401, fast: false });
  });

  it('answers requests arriving together from a read made after they arrived, so none misses a commit made before it was sent', async () => {
    const { publish, compare, core, fast, fastPort } = await setUp();
    const id = await publish();
    const owner = { userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] };
    await compare(`/api/records/${id}`);
    const request = `GET /api/records/${id} HTTP/1.1\r\nHost: krs.test\r\nConnection: close\r\n\r\n`;
    const together = () => Promise.all(Array.from({ length: 8 }, () => raw(fastPort, request)));
    for (const title of ['Edited while others read', 'Edited once more']) {
      await core.records.edit(owner, 'resource', id);
      await core.records.updateDraft(owner, 'resource', id, { metadata: { ...metadata, title }, files: { enabled: false } });
      await core.records.publish(owner, 'resource', id);
      for (const answer of await together()) expect(answer).toContain(title);
      const before = fast.answered();
      const again = await together();
      expect(fast.answered() - before).toBe(again.length);
      for (const answer of again) expect(answer).toContain(title);
    }
  });

  it('answers requests pipelined on one connection in the order they were sent', async () => {
    const { publish, compare, fast, fastPort } = await setUp();
    const id = await publish({}, 'Flood extent, Niger delta. '.repeat(30));
    const paths = [`/api/records/${id}`, `/api/records/${id}/files/notes.txt`, `/api/records/${id}`, `/api/records/${id}/files/notes.txt/content`];
    const alone = [];
    for (const path of paths) alone.push((await compare(path)).answer);
    const before = fast.answered();
    const pipelined = await raw(fastPort, paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: krs.test\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
    expect(fast.answered() - before).toBe(paths.length);
    const answers = normalised(pipelined.replace(/\r\nDate: [^\r]*/g, '\r\nDate: -')).split(/(?=HTTP\/1\.1 )/).map((a) => normalised(a).replace('Connection: keep-alive\r\nKeep-Alive: timeout=5', 'Connection: close'));
    expect(answers).toEqual(alone);
  });

  it("answers an anonymous reader's GET and HEAD of a public resource's landing page as the normal path does", async () => {
    const { publish, compare, lines } = await setUp();
    const id = await publish({}, 'Flood extent, Niger delta.');
    const browser = ['Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'Accept-Language: en-GB,en;q=0.5', 'Accept-Encoding: gzip, deflate, br', 'Upgrade-Insecure-Requests: 1', 'Sec-Fetch-Dest: document'];
    for (const headers of [[], browser, [...browser, 'X-Request-Id: page-1']]) {
      const got = await compare(`/records/${id}`, headers);
      expect(got).toMatchObject({ status: 200, fast: true });
      expect(got.answer).toContain('<title>Urban heat islands from Landsat | Knowledge Records</title>');
      expect(got.answer).toContain('notes.txt');
      expect(got.answer).toMatch(/\r\nlink: <[^\r]*cite-as/);
    }
    expect(await compare(`/records/${id}`, [], 'HEAD')).toMatchObject({ status: 200, fast: true });
    const ofClient = lines.filter((l) => l['req_id'] === 'page-1').map(({ time: _t, duration_ms: _d, ...rest }) => rest);
    expect(ofClient).toHaveLength(3);
    expect(ofClient[2]).toEqual(ofClient[0]);
    expect(ofClient[0]).toMatchObject({ route: '/records/:id', path: `/records/${id}`, status: 200, method: 'GET' });
  });

  it("leaves to the normal path a landing page whose answer depends on more than the version and its parent", async () => {
    const { publish, compare, alice, call } = await setUp();
    const id = await publish();
    const restricted = await publish({ access: { record: 'restricted', files: 'restricted' } });
    const embargoed = await publish({ access: { record: 'public', files: 'restricted', embargo: { active: true, until: '2027-01-01', reason: null } } });
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators }, files: { enabled: false } } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    expect((await compare(`/records/${id}`)).fast).toBe(true);
    const declined: [string, string[]][] = [
      [`/records/${id}?style=apa`, []],
      [`/records/${id}?token=x`, []],
      [`/records/${id}`, [`Authorization: Bearer ${alice}`]],
      [`/records/${id}`, ['Cookie: session=1']],
      [`/records/${id}`, ['If-None-Match: "1"']],
      [`/records/${id}/latest`, []],
      [`/records/${restricted}`, []],
      [`/records/${embargoed}`, []],
      // A package's page lists its resources, which other records' writes change.
      [`/packages/${pkg.json.id}`, []],
      [`/uploads/${draft.json.id}`, [`Authorization: Bearer ${alice}`]],
      ['/records/no-such-id', []],
    ];
    for (const [path, headers] of declined) {
      const got = await compare(path, headers);
      expect({ path, headers, fast: got.fast }).toEqual({ path, headers, fast: false });
    }
  });

  it('never answers a kept landing page after an edit, a new version or an access change', async () => {
    const { publish, compare, core } = await setUp();
    const id = await publish();
    const owner = { userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] };
    const page = `/records/${id}`;
    expect(await compare(page)).toMatchObject({ status: 200, fast: true });

    // Each change is made through the core, as another node would: the first request after it
    // (compared with the normal path's answer) must not be the page kept before it.
    await core.records.edit(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', id, { metadata: { ...metadata, title: 'A title edited elsewhere' }, files: { enabled: false } });
    await core.records.publish(owner, 'resource', id);
    const edited = await compare(page);
    expect(edited).toMatchObject({ status: 200, fast: true });
    expect(edited.answer).toContain('A title edited elsewhere');

    const next = await core.records.newVersion(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', next.record.id, { metadata, files: { enabled: false } });
    await core.records.publish(owner, 'resource', next.record.id);
    const superseded = await compare(page);
    expect(superseded).toMatchObject({ status: 200, fast: true });
    expect(superseded.answer).toContain('A newer version exists.');
    expect(edited.answer).not.toContain('A newer version exists.');

    await core.records.edit(owner, 'resource', id);
    await core.records.updateDraft(owner, 'resource', id, { metadata, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } });
    await core.records.publish(owner, 'resource', id);
    expect(await compare(page)).toMatchObject({ status: 401, fast: false });
  });

  it('answers an anonymous listing, GET and HEAD, as the normal path does, with the same request line', async () => {
    const { publish, compare, lines, call, alice } = await setUp();
    for (let i = 0; i < 3; i++) await publish();
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators }, files: { enabled: false } } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    for (const path of ['/api/records?size=10', '/api/records', '/api/records?size=2&page=2', '/api/records?q=heat&sort=newest&resource_type=dataset', '/api/packages', '/api/search?q=flood', '/api/search?allversions=true&size=1']) {
      const got = await compare(path, ['X-Request-Id: listing-1']);
      expect({ path, ...got }).toMatchObject({ path, status: 200, fast: true });
      expect(JSON.parse(got.answer.slice(got.answer.indexOf('\r\n\r\n') + 4))).toHaveProperty('hits.total');
    }
    expect(await compare('/api/records?size=10', [], 'HEAD')).toMatchObject({ status: 200, fast: true });
    const ofClient = lines.filter((l) => l['req_id'] === 'listing-1').map(({ time: _t, duration_ms: _d, ...rest }) => rest);
    expect(ofClient).toHaveLength(21);
    expect(ofClient[2]).toEqual(ofClient[0]);
    expect(ofClient[0]).toMatchObject({ route: '/api/records', path: '/api/records', status: 200, method: 'GET' });
    expect(ofClient.map((l) => l['route'])).toContain('/api/packages');
    expect(ofClient.map((l) => l['route'])).toContain('/api/search');
  });

  it('leaves to the normal path a listing it is not sure of', async () => {
    const { publish, compare, alice, core } = await setUp();
    const id = await publish();
    const link = await core.accessLinks.create({ userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] }, 'resource', id, { permission: 'view' });
    expect((await compare('/api/records?size=10')).fast).toBe(true);
    const declined: [string, string[]][] = [
      [`/api/records?token=${link.token}`, []],
      [`/api/records?size=10&token=${link.token}`, []],
      [`/api/records?size=10&%74oken=${link.token}`, []],
      ['/api/records?size=10&token', []],
      ['/api/records?size=10', [`Authorization: Bearer ${alice}`]],
      ['/api/records?size=10', ['Cookie: session=1']],
      ['/api/records?size=10', ['Accept: application/vnd.inveniordm.v1+json']],
      ['/api/records?size=10', ['Origin: https://elsewhere.example']],
      ['/api/records?size=abc', []],
      ['/api/records?size=10#top', []],
      ['/api/records/?size=10', []],
      ['/api/user/records', [`Authorization: Bearer ${alice}`]],
    ];
    for (const [path, headers] of declined) {
      const got = await compare(path, headers);
      expect({ path, headers, fast: got.fast }).toEqual({ path, headers, fast: false });
    }
  });

  it('never answers a kept listing after a publish, an edit, a new version, an access change, or a write to the records or the index alone', async () => {
    const { publish, compare, core, repos, search } = await setUp();
    const id = await publish();
    const owner = { userId: (await core.records.get({ userId: null, linkIds: [] }, 'resource', id)).parent.ownerId, linkIds: [] };
    const listing = '/api/records?size=10';
    const total = (answer: string) => (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { hits: { total: number } }).hits.total;
    expect(total((await compare(listing)).answer)).toBe(1);
    // Each change is made through the core (or below it), as another node or process would: the
    // first request after it is compared with the normal path's answer, so it must not be the
    // answer kept before the change.
    const changes: [string, () => Promise<unknown>, (answer: string) => void][] = [
      ['a publish', () => publish(), (answer) => expect(total(answer)).toBe(2)],
      [
        'an edit',
        async () => {
          await core.records.edit(owner, 'resource', id);
          await core.records.updateDraft(owner, 'resource', id, { metadata: { ...metadata, title: 'A title edited elsewhere' }, files: { enabled: false } });
          await core.records.publish(owner, 'resource', id);
        },
        (answer) => expect(answer).toContain('A title edited elsewhere'),
      ],
      [
        'a new version',
        async () => {
          const next = await core.records.newVersion(owner, 'resource', id);
          await core.records.updateDraft(owner, 'resource', next.record.id, { metadata, files: { enabled: false } });
          await core.records.publish(owner, 'resource', next.record.id);
        },
        (answer) => expect(answer).not.toContain('A title edited elsewhere'),
      ],
      ['an access link', () => core.accessLinks.create(owner, 'resource', id, { permission: 'view' }), () => undefined],
      [
        'a parent written without a projection',
        async () => {
          const { parent } = await core.records.get(owner, 'resource', id);
          await repos.records.saveParent({ ...parent, ownerId: 'owner-elsewhere', revisionId: parent.revisionId + 1 }, parent.revisionId);
        },
        (answer) => expect(answer).toContain('owner-elsewhere'),
      ],
      [
        'a restriction',
        async () => {
          const other = await publish();
          await core.records.edit(owner, 'resource', other);
          await core.records.updateDraft(owner, 'resource', other, { metadata, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } });
          await core.records.publish(owner, 'resource', other);
        },
        (answer) => expect(total(answer)).toBe(2),
      ],
      ['a document dropped from the index alone', async () => search.remove(await search.keysOfParent((await core.records.get(owner, 'resource', id)).parent.id)), (answer) => expect(total(answer)).toBe(1)],
    ];
    for (const [change, make, check] of changes) {
      await make();
      const got = await compare(listing);
      expect({ change, ...got }).toMatchObject({ change, status: 200, fast: true });
      check(got.answer);
    }
  });

  it("answers an owner's GET and HEAD of a draft as the normal path does, per user, with the same request line", async () => {
    const { compare, lines, alice, bob, call } = await setUp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    const path = `/api/records/${draft.json.id}/draft`;
    const mine = await compare(path, [`Authorization: Bearer ${alice}`, 'X-Request-Id: draft-1']);
    expect(mine).toMatchObject({ status: 200, fast: true });
    expect(mine.answer).toMatch(/\r\netag: "\d+"\r\n/);
    expect(await compare(path, [`Authorization: Bearer ${alice}`], 'HEAD')).toMatchObject({ status: 200, fast: true });
    expect(await compare(path, [`Authorization: Bearer ${alice}`, 'Accept: application/json', 'User-Agent: wrk'])).toMatchObject({ status: 200, fast: true });
    // Another user is refused every time: refusals are never kept, and answers are kept per user.
    expect(await compare(path, [`Authorization: Bearer ${bob}`])).toMatchObject({ status: 403, fast: false });
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators }, files: { enabled: false } } });
    expect(await compare(`/api/packages/${pkg.json.id}/draft`, [`Authorization: Bearer ${alice}`])).toMatchObject({ status: 200, fast: true });
    const ofClient = lines.filter((l) => l['req_id'] === 'draft-1').map(({ time: _t, duration_ms: _d, ...rest }) => rest);
    expect(ofClient).toHaveLength(3);
    expect(ofClient[2]).toEqual(ofClient[0]);
    expect(ofClient[0]).toMatchObject({ route: '/api/records/:id/draft', path, status: 200, method: 'GET' });
  });

  it('leaves to the normal path a draft GET it is not sure of', async () => {
    const { compare, alice, call } = await setUp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    const path = `/api/records/${draft.json.id}/draft`;
    expect((await compare(path, [`Authorization: Bearer ${alice}`])).fast).toBe(true);
    const declined: [string, string[]][] = [
      [path, []],
      [path, [`Authorization: bearer ${alice}`]],
      [path, [`Authorization: Bearer  ${alice}`]],
      [path, ['Authorization: Bearer not-a-token']],
      [path, [`Authorization: Bearer ${alice}`, 'Cookie: session=1']],
      [path, [`Authorization: Bearer ${alice}`, 'If-None-Match: "1"']],
      [path, [`Authorization: Bearer ${alice}`, 'Accept: application/vnd.inveniordm.v1+json']],
      [`${path}?token=x`, [`Authorization: Bearer ${alice}`]],
      [`/api/packages/${draft.json.id}/draft`, [`Authorization: Bearer ${alice}`]],
      ['/api/records/no-such-id/draft', [`Authorization: Bearer ${alice}`]],
    ];
    for (const [p, headers] of declined) {
      const got = await compare(p, headers);
      expect({ p, headers, fast: got.fast }).toEqual({ p, headers, fast: false });
    }
  });

  it('never answers a kept draft after an edit, an access change, its deletion, or to a token that is gone', async () => {
    const { compare, core, alice, bob, call } = await setUp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    const id = String(draft.json.id);
    const path = `/api/records/${id}/draft`;
    const owner = { userId: String(draft.json.parent.access.owned_by[0].user), linkIds: [] };
    const ask = (token: string) => compare(path, [`Authorization: Bearer ${token}`]);
    const answers = [(await ask(alice)).answer];

    await core.records.updateDraft(owner, 'resource', id, { metadata: { ...metadata, title: 'A title edited elsewhere' }, files: { enabled: false } });
    const edited = await ask(alice);
    expect(edited).toMatchObject({ status: 200, fast: true });
    expect(edited.answer).toContain('A title edited elsewhere');
    answers.push(edited.answer);

    // An access link changes the parent: its answer is built again.
    const link = await core.accessLinks.create(owner, 'resource', id, { permission: 'edit' });
    const linked = await ask(alice);
    expect(linked).toMatchObject({ status: 200, fast: true });
    answers.push(linked.answer);
    expect(new Set(answers.map((a) => a.replace(/\r\nx-request-id: [^\r]*/, ''))).size).toBe(answers.length);
    // A link holder's answer depends on the link, which may expire: it is never kept.
    expect(await compare(`${path}?token=${link.token}`, [`Authorization: Bearer ${bob}`])).toMatchObject({ status: 200, fast: false });

    // Removing a token is a commit to the store, as every write is (here another user's creation
    // stands for it): the token is looked up again, and refused.
    removedTokens.add(alice);
    await core.users.create('carol@example.org');
    expect(await ask(alice)).toMatchObject({ status: 200, fast: false });
    removedTokens.clear();
    await core.users.create('dave@example.org');
    expect(await ask(alice)).toMatchObject({ status: 200, fast: true });

    await core.records.deleteDraft(owner, 'resource', id);
    expect(await ask(alice)).toMatchObject({ status: 404, fast: false });
  });
});
