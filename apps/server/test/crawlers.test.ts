import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { BASE, makeApp, metadata } from './make-app.ts';

const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'url' || name === 'sitemap' });
const locs = (text: string, element: 'urlset' | 'sitemapindex'): { loc: string; lastmod: string }[] => {
  const doc = xml.parse(text) as Record<string, Record<string, { loc: string; lastmod: string }[]>>;
  return doc[element]?.[element === 'urlset' ? 'url' : 'sitemap'] ?? [];
};

async function setUp(urlsPerFile: number) {
  const app = await makeApp({}, undefined, { crawlers: { urlsPerFile } });
  const { call, alice, clock } = app;
  const publish = async (kind: 'records' | 'packages', access: 'public' | 'restricted' = 'public') => {
    const id = (await call('POST', `/api/${kind}`, { token: alice, json: { metadata, access: { record: access, files: access }, files: { enabled: false } } })).json.id as string;
    expect((await call('POST', `/api/${kind}/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    clock.advance(1000);
    return id;
  };
  return { ...app, publish };
}

describe('robots.txt and sitemap.xml', () => {
  it('names the sitemap in robots.txt and keeps crawlers out of the API but file content', async () => {
    const { call } = await makeApp();
    const robots = await call('GET', '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = robots.text.split('\n');
    expect(lines).toContain(`Sitemap: ${BASE}/sitemap.xml`);
    expect(lines).toContain('Disallow: /api/');
    expect(lines).toContain('Allow: /api/records/*/files/*/content');
  });

  it('lists the page of every public record and package at its latest version, with lastmod', async () => {
    const { call, alice, publish } = await setUp(50_000);
    const resource = await publish('records');
    const pkg = await publish('packages');
    const hidden = await publish('records', 'restricted');
    // A new version takes the place of the first.
    const v2 = (await call('POST', `/api/records/${resource}/versions`, { token: alice })).json.id as string;
    await call('PUT', `/api/records/${v2}/draft`, { token: alice, json: { metadata, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${v2}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const sitemap = await call('GET', '/sitemap.xml');
    expect(sitemap.status).toBe(200);
    expect(sitemap.headers.get('content-type')).toMatch(/^application\/xml/);
    const urls = locs(sitemap.text, 'urlset');
    expect(urls.map((u) => u.loc).sort()).toEqual([`${BASE}/packages/${pkg}`, `${BASE}/records/${v2}`].sort());
    expect(urls.map((u) => u.loc)).not.toContain(`${BASE}/records/${hidden}`);
    for (const u of urls) expect(u.lastmod).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('becomes an index of parts past the per-file bound, the parts together listing every page once', async () => {
    const { call, publish } = await setUp(2);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await publish(i % 2 === 0 ? 'records' : 'packages'));
    const index = await call('GET', '/sitemap.xml');
    expect(index.status).toBe(200);
    const parts = locs(index.text, 'sitemapindex');
    expect(parts).toHaveLength(3);
    const listed: string[] = [];
    for (const part of parts) {
      expect(part.loc.startsWith(`${BASE}/sitemap.xml?after=`)).toBe(true);
      const answer = await call('GET', part.loc.slice(BASE.length));
      expect(answer.status).toBe(200);
      const urls = locs(answer.text, 'urlset');
      expect(urls.length).toBeLessThanOrEqual(2);
      // A part is dated by its newest page.
      expect(part.lastmod).toBe(urls.map((u) => u.lastmod).sort().at(-1));
      listed.push(...urls.map((u) => u.loc));
    }
    expect(listed.sort()).toEqual(ids.map((id, i) => `${BASE}/${i % 2 === 0 ? 'records' : 'packages'}/${id}`).sort());
    expect((await call('GET', '/sitemap.xml?after=not-a-position')).status).toBe(400);
    // The index is made again once records change, not answered as it was.
    expect((await call('GET', '/sitemap.xml')).text).toBe(index.text);
    ids.push(await publish('records'), await publish('records'));
    expect(locs((await call('GET', '/sitemap.xml')).text, 'sitemapindex')).toHaveLength(4);
  });

  it('makes one sitemap walk at a time: another request meanwhile is told to come back, and the turn is free again once the walk is read', async () => {
    const { app, call, publish } = await setUp(2);
    for (let i = 0; i < 3; i++) await publish('records');
    const parts = locs((await call('GET', '/sitemap.xml')).text, 'sitemapindex');
    const held = await app.request(parts[0]?.loc.slice(BASE.length) as string);
    expect(held.status).toBe(200);
    const waiting = await call('GET', parts[1]?.loc.slice(BASE.length) as string);
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe('5');
    expect(waiting.json).toMatchObject({ status: 503 });
    // The index itself is cut from the order alone and answers meanwhile.
    expect((await call('GET', '/sitemap.xml')).status).toBe(200);
    expect(locs(await held.text(), 'urlset')).toHaveLength(2);
    expect((await call('GET', parts[1]?.loc.slice(BASE.length) as string)).status).toBe(200);
  });

  it('answers HEAD for a sitemap without making its walk, so a GET right after it is answered', async () => {
    const { app, call, publish } = await setUp(2);
    for (let i = 0; i < 3; i++) await publish('records');
    const part = locs((await call('GET', '/sitemap.xml')).text, 'sitemapindex')[0]?.loc.slice(BASE.length) as string;
    for (const path of [part, '/sitemap.xml']) {
      const head = await app.request(path, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/xml; charset=utf-8', '']);
    }
    expect((await call('GET', part)).status).toBe(200);
  });
});
