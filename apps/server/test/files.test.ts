import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createBodyBudget } from '../src/body-budget.ts';
import { makeApp, metadata } from './make-app.ts';

async function draftWithFile(content = 'hello world') {
  const env = await makeApp();
  const { call, alice } = env;
  const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
  await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'notes.txt' }] });
  await call('PUT', `/api/records/${id}/draft/files/notes.txt/content`, {
    token: alice,
    body: content,
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(content.length) },
  });
  return { ...env, id };
}

describe('files over HTTP', () => {
  it('walks start -> upload -> commit with absolute links and the committed fields', async () => {
    const { call, alice, id } = await draftWithFile();
    const committed = await call('POST', `/api/records/${id}/draft/files/notes.txt/commit`, { token: alice });
    expect(committed.status).toBe(200);
    expect(committed.json).toMatchObject({ key: 'notes.txt', status: 'completed', checksum: 'md5:5eb63bbbe01eeed093cb22bb8f5acdc3', size: 11, mimetype: 'text/plain', storage_class: 'L' });
    expect(committed.json.links.content).toBe(`http://krs.test/api/records/${id}/draft/files/notes.txt/content`);
    expect(committed.json.bucket_id).toMatch(/-/);
    const list = await call('GET', `/api/records/${id}/draft/files`, { token: alice });
    expect(list.json.entries).toHaveLength(1);
    expect(list.json.links.self).toBe(`http://krs.test/api/records/${id}/draft/files`);
  });

  it('refuses an upload under a content coding with 415, keeping the entry pending and empty', async () => {
    const { call, alice, id } = await draftWithFile();
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'data.csv' }] });
    const gzipped = await call('PUT', `/api/records/${id}/draft/files/data.csv/content`, {
      token: alice,
      body: gzipSync('a,b\n1,2\n'),
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
    });
    expect(gzipped.status).toBe(415);
    expect(gzipped.headers.get('accept-encoding')).toBe('identity');
    const entry = await call('GET', `/api/records/${id}/draft/files/data.csv`, { token: alice });
    expect(entry.json.status).toBe('pending');
    expect(entry.json.size).toBeUndefined();
  });

  it('serves downloads with the spec headers, ranges and conditional requests', async () => {
    const { call, alice, id } = await draftWithFile();
    await call('POST', `/api/records/${id}/draft/files/notes.txt/commit`, { token: alice });
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const full = await call('GET', `/api/records/${id}/files/notes.txt/content`);
    expect(full.text).toBe('hello world');
    expect(full.headers.get('etag')).toBe('"md5:5eb63bbbe01eeed093cb22bb8f5acdc3"');
    expect(full.headers.get('content-md5')).toBe('5eb63bbbe01eeed093cb22bb8f5acdc3');
    expect(full.headers.get('content-disposition')).toContain('attachment');
    expect(full.headers.get('x-content-type-options')).toBe('nosniff');
    const part = await call('GET', `/api/records/${id}/files/notes.txt/content`, { headers: { range: 'bytes=6-' } });
    expect(part.status).toBe(206);
    expect(part.text).toBe('world');
    expect(part.headers.get('content-range')).toBe('bytes 6-10/11');
    expect((await call('GET', `/api/records/${id}/files/notes.txt/content`, { headers: { range: 'bytes=50-60' } })).status).toBe(416);
    const cached = await call('GET', `/api/records/${id}/files/notes.txt/content`, { headers: { 'if-none-match': full.headers.get('etag') ?? '' } });
    expect(cached.status).toBe(304);
  });

  it('refuses bad keys, duplicates, a wrong content-length, commit twice and uploads after commit', async () => {
    const { call, alice, id } = await draftWithFile();
    expect((await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: '../x' }] })).status).toBe(400);
    expect((await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: { key: 'notes.txt' } })).status).toBe(400);
    expect((await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: { key: 'single.txt' } })).status).toBe(201);
    const mismatch = await call('PUT', `/api/records/${id}/draft/files/single.txt/content`, {
      token: alice,
      body: 'abc',
      headers: { 'content-type': 'application/octet-stream', 'content-length': '10' },
    });
    expect(mismatch.status).toBe(400);
    expect((await call('POST', `/api/records/${id}/draft/files/single.txt/commit`, { token: alice })).status).toBe(400);
    await call('POST', `/api/records/${id}/draft/files/notes.txt/commit`, { token: alice });
    expect((await call('PUT', `/api/records/${id}/draft/files/notes.txt/content`, { token: alice, body: 'x', headers: { 'content-type': 'application/octet-stream' } })).status).toBe(400);
    expect((await call('GET', `/api/records/${id}/draft/files/missing.txt`, { token: alice })).status).toBe(404);
    expect((await call('DELETE', `/api/records/${id}/draft/files/single.txt`, { token: alice })).status).toBe(204);
  });

  it('refuses an upload over the size limit with 413 and keeps nothing', async () => {
    const { call, alice, id } = await draftWithFile();
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'big.bin' }] });
    const big = await call('PUT', `/api/records/${id}/draft/files/big.bin/content`, { token: alice, body: 'x'.repeat(2048), headers: { 'content-type': 'application/octet-stream' } });
    expect(big.status).toBe(413);
    expect((await call('GET', `/api/records/${id}/draft/files/big.bin`, { token: alice })).json.status).toBe('pending');
  });

  it('answers 403 when files are disabled', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    const res = await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.txt' }] });
    expect(res.json).toEqual({ status: 403, message: 'Files are not enabled.' });
  });

  it('answers an empty list of uploads on a metadata-only draft 201 with no entries, as loaders that start every record\'s uploads expect', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    const res = await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [] });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ enabled: false, entries: [] });
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
  });

  it('refuses an upload while others hold the memory uploads may use (503, Retry-After), and takes it once they are done', async () => {
    const budget = createBodyBudget({ total: 1000, perClient: null });
    const { app, call, alice } = await makeApp({}, undefined, { bodyBudget: budget, uploadBufferBytes: (length) => Math.min(length ?? 800, 800) });
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.bin' }, { key: 'b.bin' }] });
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const slow = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
    const first = app.request(`/api/records/${id}/draft/files/a.bin/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/octet-stream', 'content-length': '900' },
      body: slow,
      duplex: 'half',
    } as RequestInit);
    send.enqueue(new Uint8Array(100));
    while (budget.held() === 0) await new Promise((r) => setTimeout(r, 1));
    const upload = (key: string) =>
      call('PUT', `/api/records/${id}/draft/files/${key}/content`, { token: alice, body: 'x'.repeat(900), headers: { 'content-type': 'application/octet-stream', 'content-length': '900' } });
    const refused = await upload('b.bin');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({ status: 503, message: expect.stringContaining('try again shortly') });
    send.enqueue(new Uint8Array(800));
    send.close();
    expect((await first).status).toBe(200);
    expect(budget.held()).toBe(0);
    expect((await upload('b.bin')).status).toBe(200);
  });

  it('refuses a download while others hold the memory transfers may use (503, Retry-After, in JSON), and serves it once the first is read', async () => {
    const budget = createBodyBudget({ total: 1000, perClient: null });
    const { app, call, alice } = await makeApp({}, undefined, { bodyBudget: budget, downloadBufferBytes: (length) => Math.min(length, 800) });
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.bin' }] });
    await call('PUT', `/api/records/${id}/draft/files/a.bin/content`, { token: alice, body: 'x'.repeat(900), headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${id}/draft/files/a.bin/commit`, { token: alice });
    const download = () => app.request(`/api/records/${id}/draft/files/a.bin/content`, { headers: { authorization: `Bearer ${alice}` } });
    const first = await download();
    expect(first.status).toBe(200);
    // Its body not read yet: what it may hold is still counted.
    expect(budget.held()).toBe(800);
    const refused = await download();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ status: 503, message: expect.stringContaining('try again shortly') });
    expect((await first.text()).length).toBe(900);
    expect(budget.held()).toBe(0);
    const served = await download();
    expect(served.status).toBe(200);
    expect((await served.text()).length).toBe(900);
  });
});

describe('access links over HTTP', () => {
  it('creates, lists, patches and deletes links; tokens grant access through ?token=', async () => {
    const { call, alice, bob } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, access: { record: 'restricted' } } })).json.id;
    const created = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'preview' } });
    expect(created.status).toBe(201);
    expect(created.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(created.json.expires_at).toBeNull();
    expect((await call('GET', `/api/records/${id}/draft?token=${created.json.token}`)).status).toBe(200);
    expect((await call('GET', `/api/records/${id}/draft`, { token: bob })).status).toBe(403);
    expect((await call('GET', `/api/records/${id}/access/links`, { token: alice })).json.hits.total).toBe(1);
    expect((await call('GET', `/api/records/${id}/access/links`, { token: bob })).status).toBe(403);
    expect((await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'admin' } })).json.errors[0].field).toBe('permission');
    const patched = await call('PATCH', `/api/records/${id}/access/links/${created.json.id}`, { token: alice, json: { permission: 'edit' } });
    expect(patched.json.permission).toBe('edit');
    expect((await call('DELETE', `/api/records/${id}/access/links/${created.json.id}`, { token: alice })).status).toBe(204);
    expect((await call('GET', `/api/records/${id}/access/links/${created.json.id}`, { token: alice })).status).toBe(404);
    expect((await call('GET', `/api/records/${id}/draft?token=${created.json.token}`)).status).toBe(401);
  });

});
