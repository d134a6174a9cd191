/**
 * The pages in a real browser (the Chromium that @sparticuz/chromium ships, driven by
 * playwright-core) against a real server process: a person searching, filtering, opening a
 * record, downloading its file, opening a package and a draft shared by link. Screenshots of each
 * step go to apps/server/test-output/ for people to look at.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';

const shots = join(serverDir, 'test-output');
let server: RealServer;
let browser: Browser;
let base = '';
let env: NodeJS.ProcessEnv;
let token = '';

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

const metadata = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  publication_date: '2024-09-01',
  resource_type: { id: 'dataset' },
  description: '<p>Derived from <b>Sentinel-1</b> backscatter.</p>',
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] }, affiliations: [{ name: 'University of Lagos' }] }],
  locations: { features: [{ geometry: { type: 'Point', coordinates: [6.2, 4.8] }, place: 'Niger delta' }] },
  ...extra,
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-pages-')), KRS_BASE_URL: base, INIT_CWD: serverDir };
  server = await startServer(env);
  token = (await runKrs(env, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
  browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

// A real browser through eight pages: 33 s alone on a machine with a load of 14, 60 s beside the rest of the suite there.
describe('the pages in a browser', { timeout: 180_000 }, () => {
  it('search, filter, open a record, download its file, open a package and a draft shared by link', async () => {
    // A record with a file, another without, a package holding the first, a draft shared by link.
    const rec = await api('POST', '/api/records', { metadata: metadata('Flood extent maps for the Niger delta') });
    await api('POST', `/api/records/${rec.id}/draft/files`, [{ key: 'readme.txt' }]);
    await api('PUT', `/api/records/${rec.id}/draft/files/readme.txt/content`, 'Flood extent, Niger delta.', { 'content-type': 'application/octet-stream' });
    await api('POST', `/api/records/${rec.id}/draft/files/readme.txt/commit`);
    // A Sentinel-2 band's name, as GEO's data cubes have them: long, with no space to break at.
    const band = 'S2A_MSIL2A_20200722T140051_N0214_R067_T20LKP_20200722T162024_cube_B02_10m.tif';
    await api('POST', `/api/records/${rec.id}/draft/files`, [{ key: band }]);
    await api('PUT', `/api/records/${rec.id}/draft/files/${band}/content`, 'x'.repeat(40 * 1024), { 'content-type': 'application/octet-stream' });
    await api('POST', `/api/records/${rec.id}/draft/files/${band}/commit`);
    const published = await api('POST', `/api/records/${rec.id}/draft/actions/publish`);
    const other = await api('POST', '/api/records', { metadata: metadata('Drought index for the Sahel', { resource_type: { id: 'publication' } }), files: { enabled: false } });
    await api('POST', `/api/records/${other.id}/draft/actions/publish`);
    const pkg = await api('POST', '/api/packages', { metadata: metadata('Flood response package'), files: { enabled: false } });
    const inContext = await api('POST', '/api/records', { metadata: metadata('Depth model for the delta'), files: { enabled: false } });
    await api('POST', `/api/packages/${pkg.id}/context/actions/associate`, { records: [{ id: inContext.id }] });
    await api('POST', `/api/packages/${pkg.id}/draft/resources`, { resources: [{ id: rec.id }, { id: inContext.id }] });
    const pkgDone = await api('POST', `/api/packages/${pkg.id}/draft/actions/publish`);
    const draft = await api('POST', '/api/records', { metadata: metadata('Unpublished flood model') });
    const link = await api('POST', `/api/records/${draft.id}/access/links`, { permission: 'preview' });

    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${base}/`);
    expect(await page.locator('h1').textContent()).toBe('Newest records');
    await shot(page, '1-home');

    await page.fill('#site-q', 'flood');
    await page.press('#site-q', 'Enter');
    await page.waitForURL(/\/search\?q=flood/);
    expect(await page.locator('ol.hits > li').count()).toBe(2);
    await shot(page, '2-search');

    await page.click('aside section:has(h2:has-text("Kind")) a:has-text("Knowledge Package")');
    await page.waitForURL(/record_type=/);
    expect(await page.locator('ol.hits > li').count()).toBe(1);
    expect(await page.locator('ol.hits h2').textContent()).toContain('Flood response package');
    await shot(page, '3-filtered');

    // Draw an area on the map: two clicks, first over Europe (nothing there), then around the Niger delta.
    await page.goto(`${base}/search?q=flood`);
    await page.click('summary:has-text("Draw the area on a map")');
    const picker = page.locator('input[type=image]');
    await picker.click({ position: { x: 240, y: 40 } });
    await page.waitForURL(/corner=/);
    await page.locator('input[type=image]').click({ position: { x: 290, y: 70 } });
    await page.waitForURL(/bbox=/);
    expect(await page.locator('ol.hits > li').count()).toBe(0);
    await page.locator('input[type=image]').click({ position: { x: 230, y: 100 } });
    await page.waitForURL(/corner=/);
    await page.locator('input[type=image]').click({ position: { x: 270, y: 130 } });
    await page.waitForURL(/bbox=-7\.5%2C15%2C22\.5%2C-7\.5/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('flood');
    expect(await page.locator('ol.hits > li').count()).toBe(2);
    await shot(page, '3b-area');

    await page.goto(published.links.self_html);
    expect(await page.locator('h1').textContent()).toBe('Flood extent maps for the Niger delta');
    expect(await page.locator('svg[role=img]').count()).toBe(1);
    await shot(page, '4-record');
    // Each file's size on one line beside the long name.
    const sizeLines = (await page.evaluate(`[...document.querySelectorAll('td.size')].map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return td.textContent + ': ' + range.getClientRects().length;
    })`)) as string[];
    expect(sizeLines.sort()).toEqual(['26 B: 1', '40 KiB: 1']);
    const href = await page.locator('a:has-text("readme.txt")').getAttribute('href');
    const downloaded = await page.request.get(href ?? '');
    expect(downloaded.status()).toBe(200);
    expect(await downloaded.text()).toBe('Flood extent, Niger delta.');

    // The citation: APA first, then Vancouver through the style switcher (a plain form, no script needed).
    expect(await page.locator('#h-citation + div').textContent()).toContain('(2024). Flood extent maps for the Niger delta');
    await page.selectOption('#citation-style', 'vancouver');
    await page.click('section.citation button:has-text("Show")');
    await page.waitForURL(/style=vancouver/);
    expect(await page.locator('#h-citation + div').textContent()).toContain('Flood extent maps for the Niger delta [Internet]');
    await shot(page, '4b-citation-vancouver');
    const bibtexHref = await page.locator('a:has-text("BibTeX")').getAttribute('href');
    const bibtex = await page.request.get(bibtexHref ?? '');
    expect(bibtex.headers()['content-type']).toBe('application/x-bibtex; charset=utf-8');
    expect(await bibtex.text()).toContain('title = {Flood extent maps for the {Niger} delta}');
    await page.click('a:has-text("DataCite XML")');
    expect(await page.content()).toContain('Flood extent maps for the Niger delta');

    await page.goto(pkgDone.links.self_html);
    await page.click('a:has-text("Flood extent maps for the Niger delta")');
    await page.waitForURL(new RegExp(`/records/${rec.id}$`));
    await page.goto(pkgDone.links.self_html);
    await shot(page, '5-package');
    // A reader landing on a resource the package manages finds the package and gets there; a
    // published resource only attached to the package is no part of its context, and says nothing.
    await page.goto(`${base}/records/${inContext.id}`);
    expect(await page.locator('p.part-of').textContent()).toBe('Part of Flood response package (Knowledge Package)');
    await shot(page, '5a-part-of');
    await page.click('p.part-of a');
    await page.waitForURL(new RegExp(`/packages/${pkg.id}$`));
    expect(await page.locator('h1').textContent()).toBe('Flood response package');
    await page.goto(published.links.self_html);
    expect(await page.locator('p.part-of').count()).toBe(0);
    await page.goto(pkgDone.links.self_html);
    // The context page of a public package is for anyone: its public resources.
    await page.click('a:has-text("Every resource of this package")');
    expect(await page.locator('h1').textContent()).toContain('Resources of the package “Flood response package”');
    expect(await page.locator('ol.hits h2').allTextContents()).toEqual(['Depth model for the delta']);
    // The owner's token as a header (pages have no sign-in of their own); one context only: the shipped Chromium runs single-process.
    const owner = page;
    await owner.setExtraHTTPHeaders({ authorization: `Bearer ${token}` });
    await owner.goto(pkgDone.links.self_html);
    await owner.click('a:has-text("Every resource of this package")');
    await owner.waitForURL(/\/context$/);
    expect(await owner.locator('h1').textContent()).toContain('Resources of the package “Flood response package”');
    expect(await owner.locator('ol.hits h2').allTextContents()).toEqual(['Depth model for the delta']);
    await shot(owner, '5b-context');
    // Searching from the context page stays within the context.
    await owner.fill('#q', 'nothing-like-this');
    await owner.click('form.search-form button');
    await owner.waitForURL(/\/context\?q=nothing-like-this/);
    expect(await owner.locator('ol.hits > li').count()).toBe(0);
    await owner.setExtraHTTPHeaders({});

    await page.goto(draft.links.self_html);
    expect(await page.locator('h1').textContent()).toBe('Sign-in or a link is needed');
    await page.goto(`${draft.links.self_html}?token=${encodeURIComponent(link.token)}`);
    expect(await page.locator('h1').textContent()).toBe('Unpublished flood model');
    expect(await page.locator('[role=status]').first().textContent()).toContain('Preview of a draft');
    await shot(page, '6-draft-preview');

    // Keyboard: the skip link is the first stop and leads to the content.
    await page.goto(`${base}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Skip to content');
    // A long unbroken title stays inside the page; a polygon wound as RFC 7946 winds it (outer ring
    // counter-clockwise), around the Gulf of Guinea, is drawn as its own area.
    const gulf = { type: 'Polygon', coordinates: [[[-5, -5], [15, -5], [15, 15], [-5, 15], [-5, -5]]] };
    const longTitle = `FloodExtentMapsNigerDelta${'Sentinel1Backscatter'.repeat(12)}`;
    const wide = await api('POST', '/api/records', { metadata: metadata(longTitle, { languages: [{ id: 'eng' }], subjects: ['flood mapping', 'synthetic aperture radar', 'Sentinel-1 backscatter', 'river deltas', 'change detection', 'machine learning for remote sensing', 'disaster risk reduction'].map((subject) => ({ subject })), locations: { features: [{ geometry: gulf, place: 'Gulf of Guinea' }] } }), files: { enabled: false } });
    const widePublished = await api('POST', `/api/records/${wide.id}/draft/actions/publish`);
    for (const url of [widePublished.links.self_html, `${base}/search?q=${wide.id}`]) {
      await page.goto(url);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), url).toBe(true);
    }
    await page.goto(widePublished.links.self_html);
    const area = await page.locator('figure.map svg path').boundingBox();
    const map = await page.locator('figure.map svg').boundingBox();
    // Twenty degrees of the map's 360, not the whole map filled.
    expect(area?.width ?? Infinity).toBeLessThan((map?.width ?? 0) / 10);
    // The long title leaves the details' labels their words whole ("Languages", not "Languag" over "es").
    const brokenLabels = await page.evaluate(`[...document.querySelectorAll('section[aria-labelledby=h-details] th')].flatMap((th) => {
      const text = th.firstChild, words = [], range = document.createRange();
      for (const m of text.textContent.matchAll(/\\S+/g)) {
        range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
        if (range.getClientRects().length > 1) words.push(m[0]);
      }
      return words;
    })`);
    expect(await page.locator('section[aria-labelledby=h-details] th').allTextContents()).toContain('Languages');
    expect(brokenLabels).toEqual([]);
    await shot(page, '7-long-title-and-area');
    await page.close();
  });

});
