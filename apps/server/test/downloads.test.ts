/** File downloads over HTTP: conditional and range requests (RFC 9110), and every error as JSON. */
import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const TEXT = 'hello world';
const ETAG = '"md5:5eb63bbbe01eeed093cb22bb8f5acdc3"';

async function publishedFile() {
  const env = await makeApp();
  const { call, alice } = env;
  const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
  await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'notes.txt' }] });
  await call('PUT', `/api/records/${id}/draft/files/notes.txt/content`, { token: alice, body: TEXT, headers: { 'content-type': 'application/octet-stream' } });
  await call('POST', `/api/records/${id}/draft/files/notes.txt/commit`, { token: alice });
  expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
  const url = `/api/records/${id}/files/notes.txt/content`;
  const get = (headers: Record<string, string> = {}, method = 'GET') => call(method, url, { headers });
  const lastModified = (await get()).headers.get('last-modified') ?? '';
  return { ...env, id, get, lastModified };
}

describe('file downloads', () => {
  it('sends the whole file with its validators, and a HEAD the same headers without the bytes', async () => {
    const { get, lastModified } = await publishedFile();
    const full = await get();
    expect(full.status).toBe(200);
    expect(full.text).toBe(TEXT);
    expect(full.headers.get('etag')).toBe(ETAG);
    expect(full.headers.get('content-length')).toBe('11');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(lastModified).toBe('Sun, 01 Mar 2026 10:00:00 GMT');
    const head = await get({}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe('11');
    expect(head.headers.get('etag')).toBe(ETAG);
  });

  it('serves one range as 206 with Content-Range, and answers a range past the end with a JSON 416 naming the size', async () => {
    const { get } = await publishedFile();
    const part = await get({ range: 'bytes=-5' });
    expect(part.status).toBe(206);
    expect(part.text).toBe('world');
    expect(part.headers.get('content-range')).toBe('bytes 6-10/11');
    expect(part.headers.get('content-length')).toBe('5');
    // The whole file's digest would not be the body's.
    expect(part.headers.get('content-md5')).toBeNull();
    const outside = await get({ range: 'bytes=50-60' });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */11');
    expect(outside.json).toEqual({ status: 416, message: 'Range not satisfiable.' });
  });

  it('ignores several ranges, unknown units and invalid ranges: the whole file, 200', async () => {
    const { get } = await publishedFile();
    for (const range of ['bytes=0-1,4-5', 'lines=1-2', 'bytes=5-1']) {
      const res = await get({ range });
      expect(res.status, range).toBe(200);
      expect(res.text).toBe(TEXT);
      expect(res.headers.get('content-range')).toBeNull();
    }
  });

  it('applies the range only while If-Range still matches, by entity tag or by date', async () => {
    const { get, lastModified } = await publishedFile();
    expect((await get({ range: 'bytes=0-4', 'if-range': ETAG })).text).toBe('hello');
    expect((await get({ range: 'bytes=0-4', 'if-range': lastModified })).status).toBe(206);
    const stale = await get({ range: 'bytes=0-4', 'if-range': '"md5:0000"' });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(TEXT);
    expect((await get({ range: 'bytes=0-4', 'if-range': 'Sat, 28 Feb 2026 10:00:00 GMT' })).status).toBe(200);
  });

  it('answers 304 with the validators to a weak, listed or * If-None-Match, and to If-Modified-Since', async () => {
    const { get, lastModified } = await publishedFile();
    for (const headers of <Record<string, string>[]>[{ 'if-none-match': ETAG }, { 'if-none-match': `W/${ETAG}` }, { 'if-none-match': `"x", ${ETAG}` }, { 'if-none-match': '*' }, { 'if-modified-since': lastModified }]) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(ETAG);
      expect(res.headers.get('last-modified')).toBe(lastModified);
    }
    expect((await get({ 'if-none-match': '"md5:0000"' })).status).toBe(200);
    expect((await get({ 'if-modified-since': 'Sat, 28 Feb 2026 10:00:00 GMT' })).status).toBe(200);
  });

  it('answers a failed If-Match or If-Unmodified-Since with a JSON 412', async () => {
    const { get } = await publishedFile();
    expect((await get({ 'if-match': ETAG })).status).toBe(200);
    const failed = await get({ 'if-match': '"md5:0000"' });
    expect(failed.status).toBe(412);
    expect(failed.json).toMatchObject({ status: 412 });
    expect((await get({ 'if-unmodified-since': 'Sat, 28 Feb 2026 10:00:00 GMT' })).status).toBe(412);
  });

  it('answers a file without content yet with a JSON 400', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'empty.txt' }] });
    const res = await call('GET', `/api/records/${id}/draft/files/empty.txt/content`, { token: alice });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 400, message: 'File "empty.txt" has no content yet.' });
  });
});

describe('file keys over HTTP', () => {
  it('refuses a key with a lone surrogate with a JSON 400, and keeps the file list readable', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    const res = await call('POST', `/api/records/${id}/draft/files`, { token: alice, body: '[{"key": "bad\\ud800name.txt"}]', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ field: '0.key', messages: ['File key must be valid Unicode (it contains a lone surrogate).'] }]);
    expect((await call('GET', `/api/records/${id}/draft/files`, { token: alice })).status).toBe(200);
  });

  it('lists, downloads and deletes an entry stored with a lone surrogate before keys were checked', async () => {
    const { call, alice, repos } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'bad.txt' }] });
    await call('PUT', `/api/records/${id}/draft/files/bad.txt/content`, { token: alice, body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    const owner = { recordId: id, state: 'draft' } as const;
    const entry = await repos.files.get(owner, 'bad.txt');
    if (!entry) throw new Error('entry missing');
    await repos.files.delete(owner, 'bad.txt');
    await repos.files.save(owner, { ...entry, key: 'bad\ud800name.txt' });
    const list = await call('GET', `/api/records/${id}/draft/files`, { token: alice });
    expect(list.status).toBe(200);
    const links = list.json.entries[0].links;
    expect(links.self).toBe(`http://krs.test/api/records/${id}/draft/files/bad%EF%BF%BDname.txt`);
    const download = await call('GET', new URL(links.content).pathname, { token: alice });
    expect(download.status).toBe(200);
    expect(download.text).toBe('abc');
    expect(download.headers.get('content-disposition')).toContain("filename*=UTF-8''bad%EF%BF%BDname.txt");
    expect((await call('DELETE', new URL(links.self).pathname, { token: alice })).status).toBe(204);
    expect((await call('GET', `/api/records/${id}/draft/files`, { token: alice })).json.entries).toEqual([]);
  });

  it('accepts 255 emoji as a key and refuses 256', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    expect((await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: '😀'.repeat(255) }] })).status).toBe(201);
    expect((await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: '😀'.repeat(256) }] })).status).toBe(400);
  });
});

describe('metadata-only drafts over HTTP', () => {
  it('keeps files enabled and reports a draft error when files exist', async () => {
    const { call, alice } = await makeApp();
    const created = await call('POST', '/api/records', { token: alice, json: { metadata } });
    const id = created.json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'a.txt' }] });
    const saved = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata, files: { enabled: false } } });
    expect(saved.status).toBe(200);
    expect(saved.json.files.enabled).toBe(true);
    expect(saved.json.errors).toContainEqual({ field: 'files.enabled', messages: ['You must first delete all files to set the record to be metadata-only.'] });
  });
});
