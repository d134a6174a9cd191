/**
 * What crawlers and browsers on other origins meet, on a real server process: robots.txt names
 * the sitemap, whose every page answers 200 in HTML, and file content streamed through the Node
 * adapter still carries the cross-origin headers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { metadata } from './make-app.ts';

let server: RealServer;
let base = '';
let env: NodeJS.ProcessEnv;
let token = '';

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-outside-')), KRS_BASE_URL: base, INIT_CWD: serverDir, KRS_LOG_LEVEL: 'warn' };
  await runKrs(env, 'users', 'create', 'ada@example.org');
  token = (await runKrs(env, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
  server = await startServer(env);
});

afterAll(async () => {
  await server.stop();
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${token}` });

async function publish(kind: 'records' | 'packages', withFile = false): Promise<string> {
  const json = { 'content-type': 'application/json', ...auth() };
  const draft = await fetch(`${base}/api/${kind}`, { method: 'POST', headers: json, body: JSON.stringify({ metadata, files: { enabled: withFile } }) });
  const id = ((await draft.json()) as { id: string }).id;
  if (withFile) {
    const files = `${base}/api/${kind}/${id}/draft/files`;
    await (await fetch(files, { method: 'POST', headers: json, body: JSON.stringify([{ key: 'a.csv' }]) })).text();
    await (await fetch(`${files}/a.csv/content`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', ...auth() }, body: 'x,y\n1,2\n' })).text();
    await (await fetch(`${files}/a.csv/commit`, { method: 'POST', headers: auth() })).text();
  }
  const published = await fetch(`${base}/api/${kind}/${id}/draft/actions/publish`, { method: 'POST', headers: auth() });
  expect(published.status).toBe(202);
  await published.text();
  return id;
}

describe('outside clients of a running server', () => {
  it('robots.txt names the sitemap, and every page the sitemap lists answers 200 in HTML', async () => {
    const ids = [await publish('records', true), await publish('records'), await publish('packages')];
    const robots = await (await fetch(`${base}/robots.txt`)).text();
    const sitemapUrl = /^Sitemap: (\S+)$/m.exec(robots)?.[1];
    expect(sitemapUrl).toBe(`${base}/sitemap.xml`);
    const sitemap = await fetch(sitemapUrl as string);
    expect(sitemap.status).toBe(200);
    const doc = new XMLParser({ isArray: (name) => name === 'url' }).parse(await sitemap.text()) as { urlset: { url: { loc: string }[] } };
    const pages = doc.urlset.url.map((u) => u.loc);
    expect(pages).toHaveLength(ids.length);
    for (const page of pages) {
      const res = await fetch(page);
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type'), page).toMatch(/^text\/html/);
      await res.text();
    }
  });

  it('lets a page on another origin read a file it downloads, and answers its preflight', async () => {
    const id = await publish('records', true);
    const origin = { origin: 'https://client.example' };
    const content = await fetch(`${base}/api/records/${id}/files/a.csv/content`, { headers: origin });
    expect(await content.text()).toBe('x,y\n1,2\n');
    expect(content.headers.get('access-control-allow-origin')).toBe('*');
    expect(content.headers.get('access-control-expose-headers')).toMatch(/ETag/);
    const preflight = await fetch(`${base}/api/records/${id}/files/a.csv/content`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'range, if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
