import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

describe('OPTIONS and cross-origin requests', () => {
  it('answers OPTIONS 204 with Allow on every routed path, and 404 where nothing is routed', async () => {
    const { call } = await makeApp();
    const cases: [string, string][] = [
      ['/api/records', 'GET, HEAD, OPTIONS, POST'],
      ['/api/records/abcde-12345/draft', 'DELETE, GET, HEAD, OPTIONS, POST, PUT'],
      ['/api/records/abcde-12345/versions/latest', 'GET, HEAD, OPTIONS'],
      ['/records/abcde-12345', 'GET, HEAD, OPTIONS'],
      ['/oai2d', 'GET, HEAD, OPTIONS, POST'],
    ];
    for (const [path, allow] of cases) {
      const res = await call('OPTIONS', path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('allow'), path).toBe(allow);
      expect(res.text, path).toBe('');
    }
    const nowhere = await call('OPTIONS', '/api/nothing-here');
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ status: 404, message: 'Not found.' });
    // A 405 names OPTIONS among the methods the path takes.
    expect((await call('PATCH', '/api/records/abcde-12345/versions/latest', { json: {} })).headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('answers a browser preflight for the API from any origin, without credentials', async () => {
    const { call } = await makeApp();
    const res = await call('OPTIONS', '/api/records/abcde-12345/draft', {
      headers: { origin: 'https://client.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type, if-match' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')?.split(',')).toEqual(expect.arrayContaining(['PUT', 'GET', 'DELETE', 'POST']));
    const allowedHeaders = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowedHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'if-match', 'if-none-match', 'range']));
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('lets a cross-origin script read the API answer and its validators and links, errors included', async () => {
    const { call, alice } = await makeApp();
    const origin = { origin: 'https://client.example' };
    const created = await call('POST', '/api/records', { token: alice, json: { metadata }, headers: origin });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (created.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    expect(exposed).toEqual(expect.arrayContaining(['etag', 'link', 'location', 'content-range', 'last-modified']));
    const refused = await call('GET', `/api/records/${created.json.id}/draft`, { headers: origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    // File content too, streamed as it is.
    await call('POST', `/api/records/${created.json.id}/draft/files`, { token: alice, json: [{ key: 'a.txt' }] });
    await call('PUT', `/api/records/${created.json.id}/draft/files/a.txt/content`, { token: alice, body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${created.json.id}/draft/files/a.txt/commit`, { token: alice });
    const content = await call('GET', `/api/records/${created.json.id}/draft/files/a.txt/content`, { token: alice, headers: origin });
    expect(content.text).toBe('abc');
    expect(content.headers.get('access-control-allow-origin')).toBe('*');
    // The HTML pages are not part of the API.
    expect((await call('GET', '/', { headers: origin })).headers.get('access-control-allow-origin')).toBeNull();
  });
});
