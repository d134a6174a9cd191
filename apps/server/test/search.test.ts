import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createSqliteSearchIndex } from '@krs/adapters';
import { createInMemorySearchIndex } from '@krs/domain/testing';
import { trustedProxies } from '../src/client-address.ts';
import { createSearchGate } from '../src/search-gate.ts';
import { makeApp, metadata } from './make-app.ts';

/** `(((urban OR x0) AND x1) OR x2) ...`, one group per level. */
function nested(levels: number, ops: readonly string[] = ['OR', 'AND']): string {
  let q = 'urban';
  for (let i = 0; i < levels; i++) q = `(${q} ${ops[i % ops.length]} x${i})`;
  return q;
}

const engines = [
  ['in-memory', () => createInMemorySearchIndex()],
  ['sqlite fts5', () => createSqliteSearchIndex(':memory:')],
] as const;

describe.each(engines)('GET /api/search with hostile queries (%s)', (_, makeIndex) => {
  async function published() {
    const app = await makeApp({}, makeIndex());
    const id = (await app.call('POST', '/api/records', { token: app.alice, json: { metadata, files: { enabled: false } } })).json.id;
    await app.call('POST', `/api/records/${id}/draft/actions/publish`, { token: app.alice });
    return { ...app, id };
  }
  const search = (call: Awaited<ReturnType<typeof published>>['call'], q: string) => call('GET', `/api/search?q=${encodeURIComponent(q)}`);

  it('answers twenty unclosed groups with a plain match of their words', async () => {
    const { call, id } = await published();
    const res = await search(call, '(urban '.repeat(20));
    expect(res.status).toBe(200);
    expect(res.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([id]);
    expect((await search(call, '(a '.repeat(20))).status).toBe(200);
  });

  it('answers a boolean query nested twenty levels deep', async () => {
    const { call } = await published();
    const res = await search(call, nested(20));
    expect(res.status).toBe(200);
    expect(res.json.hits.total).toBe(0);
    // Within the nesting bound the query keeps its meaning.
    expect((await search(call, nested(7, ['OR']))).json.hits.total).toBe(1);
  });

  it('answers many fuzzy and prefix terms, _exists_ and ranges', async () => {
    const { call } = await published();
    for (const q of [
      Array.from({ length: 40 }, (_, i) => `landsat${i}~`).join(' OR '),
      Array.from({ length: 40 }, (_, i) => `u${i}*`).join(' OR '),
      '_exists_:metadata.title AND _exists_:nothing.here',
      'metadata.publication_date:[2024 TO *] OR metadata.publication_date:{* TO 1900}',
      `${'"'.repeat(99)}${'['.repeat(99)}`,
    ]) {
      expect((await search(call, q)).status).toBe(200);
    }
    expect((await search(call, 'urbn~ AND metadata.publication_date:[2024-01 TO 2024-12]')).json.hits.total).toBe(1);
  });
});

describe('listings answered from kept hit texts', () => {
  it('show every edit, new version and access change at once, in the listing and the ui form alike', async () => {
    const app = await makeApp();
    const { call, alice } = app;
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const list = async (accept = 'application/json') => (await call('GET', '/api/records?size=10', { headers: { accept } })).json;
    const ui = 'application/vnd.inveniordm.v1+json';
    expect((await list()).hits.hits[0].metadata.title).toBe(metadata.title);
    expect((await list(ui)).hits.hits[0].ui).toBeDefined();

    await call('POST', `/api/records/${id}/draft`, { token: alice });
    await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata: { ...metadata, title: 'An edited title' }, files: { enabled: false } } });
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect((await list()).hits.hits[0].metadata.title).toBe('An edited title');
    expect((await list(ui)).hits.hits[0].metadata.title).toBe('An edited title');

    // A new draft of the parent changes what the published hit says of its versions.
    const before = (await list()).hits.hits[0];
    await call('POST', `/api/records/${id}/versions`, { token: alice });
    const after = (await list()).hits.hits[0];
    expect(after.id).toBe(id);
    expect(after).toEqual((await call('GET', `/api/records/${id}`)).json);
    expect(after).not.toEqual(before);
  });
});

describe('a listing page too large to read', () => {
  it('is refused with a 400 on size before any record is read, every listing alike; a smaller page is answered', async () => {
    // 40 KiB a page here stands for the 32 MiB of a real server: each record below is about 7 KiB.
    const { call, alice } = await makeApp({ maxPageBytes: 40 * 1024 });
    const description = 'glacier '.repeat(800);
    for (let i = 0; i < 8; i++) {
      const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: `Large ${i}`, description }, files: { enabled: false } } });
      expect((await call('POST', `/api/records/${draft.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    }
    for (const path of ['/api/records?size=8', '/api/search?q=glacier&size=8', '/api/user/records?size=8']) {
      const refused = await call('GET', path, { token: alice });
      expect(refused.status, path).toBe(400);
      expect(refused.json.errors).toEqual([{ field: 'size', messages: [expect.stringMatching(/^The records of this page hold \d+ KiB, more than the 40 KiB one page may read; ask for fewer/)] }]);
      const smaller = await call('GET', path.replace('size=8', 'size=4'), { token: alice });
      expect(smaller.status, path).toBe(200);
      expect(smaller.json.hits.hits).toHaveLength(4);
    }
  });
});

describe('searches taking turns over HTTP', () => {
  it('holds a search while its address has its searches running, refuses it past its waiting ones with 429, and answers it once a place is free', async () => {
    const gate = createSearchGate({ perClient: 1, total: 4, maxWaiting: 1, costlyMs: null });
    const { call } = await makeApp({}, createInMemorySearchIndex(), { searchGate: gate });
    // A search of this address (app.request has none: every request is the same client) in progress.
    const running = await gate.enter(undefined);
    let answered = false;
    const waiting = call('GET', '/api/search?q=flood').then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    expect(gate.counts()).toEqual({ running: 1, waiting: 1 });
    const refused = await call('GET', '/api/records?q=flood');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json.message).toMatch(/searches waiting/);
    // Reading a record by id is not a search: it never waits.
    expect((await call('GET', '/api/records/zzzzz-zzzzz')).status).toBe(404);
    running?.();
    expect((await waiting).status).toBe(200);
    expect(gate.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it('holds a search of a costly shape while another runs, and lets plain searches by', async () => {
    const gate = createSearchGate({ perClient: 4, total: 8, maxWaiting: 8, costlyMs: null });
    const { call } = await makeApp({}, createInMemorySearchIndex(), { searchGate: gate });
    const running = await gate.enter('203.0.113.1', undefined, true);
    let answered = false;
    const fuzzy = call('GET', '/api/search?q=glacier~').then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    expect((await call('GET', '/api/search?q=glacier')).status).toBe(200);
    expect((await call('GET', '/api/records?q=flood%20mapping')).status).toBe(200);
    running?.();
    expect((await fuzzy).status).toBe(200);
  });

  it('counts searches through a trusted reverse proxy under the client X-Forwarded-For names, and ignores the header from anyone else', async () => {
    const served: Server[] = [];
    const serve = async (trusted: boolean) => {
      const gate = createSearchGate({ perClient: 1, total: 4, maxWaiting: 1, costlyMs: null });
      const { app } = await makeApp({}, createInMemorySearchIndex(), { searchGate: gate, ...(trusted ? { trustedProxies: trustedProxies(['127.0.0.1']) } : {}) });
      const server = createServer(getRequestListener(app.fetch));
      served.push(server);
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      const { port } = server.address() as AddressInfo;
      const search = (forwardedFor: string) =>
        new Promise<number>((ok, fail) => {
          const req = request({ port, host: '127.0.0.1', path: '/api/search?q=flood', headers: { 'x-forwarded-for': forwardedFor } }, (res) => {
            res.resume();
            res.on('end', () => ok(res.statusCode ?? 0));
          });
          req.on('error', fail);
          req.end();
        });
      return { gate, search };
    };
    try {
      // Behind the proxy: one client's searches wait and are refused past its bound; another's run.
      const proxied = await serve(true);
      const held = await proxied.gate.enter('203.0.113.9');
      const waiting = proxied.search('203.0.113.9');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(proxied.gate.counts()).toEqual({ running: 1, waiting: 1 });
      expect(await proxied.search('198.51.100.1, 203.0.113.9')).toBe(429);
      expect(await proxied.search('198.51.100.1')).toBe(200);
      held?.();
      expect(await waiting).toBe(200);

      // Not trusted: the header names no one, and the connection's address is the client.
      const direct = await serve(false);
      const peer = await direct.gate.enter('127.0.0.1');
      const queued = direct.search('203.0.113.9');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await direct.search('198.51.100.1')).toBe(429);
      peer?.();
      expect(await queued).toBe(200);
    } finally {
      await Promise.all(served.map((server) => new Promise((ok) => server.close(ok))));
    }
  });
});
