import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function setUp() {
  const env = await makeApp();
  const { call, alice } = env;
  const page = async (path: string, token?: string) => {
    const res = await env.app.request(path, { headers: { ...html, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', location: res.headers.get('location'), text: await res.text() };
  };
  const publishRecord = async (over: Record<string, unknown> = {}, access?: unknown) => {
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, ...over }, ...(access ? { access } : {}) } });
    const id = draft.json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'notes.txt' }] });
    await call('PUT', `/api/records/${id}/draft/files/notes.txt/content`, { token: alice, body: 'hello', headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${id}/draft/files/notes.txt/commit`, { token: alice });
    const done = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect(done.status).toBe(202);
    return done.json as { id: string; links: Record<string, string>; parent: { id: string } };
  };
  return { ...env, page, publishRecord };
}

describe('pages behind the *_html links', () => {
  it('serves the landing page a published record links to: title, creators, description, files with download links', async () => {
    const { page, publishRecord } = await setUp();
    const rec = await publishRecord({ title: 'Glacier retreat <script>alert(1)</script>', description: '<p>Ice <b>loss</b> &amp; melt</p>' });
    const path = new URL(rec.links['self_html'] as string).pathname;
    expect(path).toBe(`/records/${rec.id}`);
    const res = await page(path);
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.text).toMatch(/^<!doctype html>/);
    // Text from the record is escaped; the sanitised description is kept as markup.
    expect(res.text).toContain('Glacier retreat &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('<p>Ice <b>loss</b> &amp; melt</p>');
    expect(res.text).toContain('Ada Obi');
    expect(res.text).toContain(`href="http://krs.test/api/records/${rec.id}/files/notes.txt/content"`);
    expect(res.text).toContain('5d41402abc4b2a76b9719d911017c592');
    expect(res.text).toMatch(/<main id="main">/);
  });

  it('names a related work by the title GEO gives it, beside its identifier, and by its identifier alone without one', async () => {
    const { page, publishRecord } = await setUp();
    const related_identifiers = [
      { identifier: 'https://example.org/sits-book', scheme: 'url', relation_type: { id: 'issupplementedby' }, title: 'sits package documentation', description: 'How to smooth classifications.' },
      { identifier: '10.1234/abc', scheme: 'doi', relation_type: { id: 'cites' } },
    ];
    const rec = await publishRecord({ related_identifiers });
    const text = (await page(`/records/${rec.id}`)).text;
    expect(text).toContain('Is supplemented by: <a href="https://example.org/sits-book">sits package documentation (https://example.org/sits-book)</a>; Cites: <a href="https://doi.org/10.1234/abc">10.1234/abc</a>');
  });

  it('links a related work only where its identifier opens in a browser', async () => {
    const { page, publishRecord } = await setUp();
    const related_identifiers = [
      { identifier: 'javascript:alert(1)', scheme: 'url', relation_type: { id: 'cites' } },
      { identifier: '978-3-16-148410-0', scheme: 'isbn', relation_type: { id: 'cites' } },
      { identifier: 'hdl:20.500.12345/678', scheme: 'handle', relation_type: { id: 'cites' } },
    ];
    const rec = await publishRecord({ related_identifiers });
    const text = (await page(`/records/${rec.id}`)).text;
    expect(text).toContain('Cites: javascript:alert(1); Cites: 978-3-16-148410-0; Cites: <a href="https://hdl.handle.net/20.500.12345/678">hdl:20.500.12345/678</a>');
    expect(text).not.toContain('href="javascript:');
  });

  it('tells reference managers, Google Scholar and link previews what the record is, in the head of its landing page only', async () => {
    const { page, publishRecord, call, alice } = await setUp();
    const creators = [
      { person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' }, affiliations: [{ name: 'Lagos Space Lab' }] },
      { person_or_org: { type: 'organizational', name: 'Delta Mapping Group' } },
    ];
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const rec = await publishRecord({
      title: 'Flood "extent" maps',
      creators,
      publication_date: '2024-09',
      publisher: 'Delta Observatory',
      subjects: [{ subject: 'floods' }, { subject: 'SAR' }],
      languages: [{ id: 'eng' }],
      description: `<p>Maps of <b>flooded</b> land &amp; water. ${words}</p>`,
    });
    const landing = rec.links['self_html'] as string;
    const head = (await page(new URL(landing).pathname)).text.split('</head>')[0] as string;
    const metas = [...head.matchAll(/<meta (?:name|property)="([^"]+)" content="([^"]*)"\/?>/g)].map(([, k, v]) => [k, v]);
    const one = (name: string) => metas.filter(([k]) => k === name).map(([, v]) => v);
    expect(one('citation_title')).toEqual(['Flood &quot;extent&quot; maps']);
    expect(one('citation_author')).toEqual(['Obi, Ada', 'Delta Mapping Group']);
    expect(one('citation_author_institution')).toEqual(['Lagos Space Lab']);
    expect(one('citation_publication_date')).toEqual(['2024/09']);
    expect(one('citation_publisher')).toEqual(['Delta Observatory']);
    expect(one('citation_keywords')).toEqual(['floods; SAR']);
    expect(one('citation_language')).toEqual(['eng']);
    expect(one('citation_abstract_html_url')).toEqual([landing]);
    expect(one('og:url')).toEqual([landing]);
    // The description as text, cut at a word near 300 characters.
    const [summary] = one('description');
    expect(summary).toMatch(/^Maps of flooded land &amp; water\. word0 word1 .* word\d+…$/);
    expect(summary!.length).toBeLessThanOrEqual(310);
    expect(one('og:description')).toEqual([summary]);
    expect(head).toContain(`<link rel="canonical" href="${landing}"/>`);
    expect(head).toContain(`<link rel="describedby" type="application/x-bibtex" href="${landing}/export/bibtex"/>`);
    // Without a PDF no citation_pdf_url; with one, its download address.
    expect(one('citation_pdf_url')).toEqual([]);
    const withPdf = await call('POST', '/api/records', { token: alice, json: { metadata } });
    const id = withPdf.json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'report.pdf' }] });
    await call('PUT', `/api/records/${id}/draft/files/report.pdf/content`, { token: alice, body: '%PDF-1.4', headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${id}/draft/files/report.pdf/commit`, { token: alice });
    const draftHead = (await page(`/uploads/${id}`, alice)).text.split('</head>')[0] as string;
    expect(draftHead).not.toContain('citation_');
    expect(draftHead).not.toContain('rel="canonical"');
    const done = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const pdfHead = (await page(`/records/${id}`)).text.split('</head>')[0] as string;
    expect(pdfHead).toContain(`<meta name="citation_pdf_url" content="${done.json.links['files'].replace(/\/files$/, '')}/files/report.pdf/content"/>`);
  });

  it('draws the locations of a record over a base map served once under a content-named path and cached for good, not inlined in every page', async () => {
    const { app, page, publishRecord } = await setUp();
    const rec = await publishRecord({ locations: { features: [{ geometry: { type: 'Point', coordinates: [6.2, 4.8] }, place: 'Niger delta' }] } });
    const landing = await page(`/records/${rec.id}`);
    const href = /<svg[^>]*role="img"[^>]*>.*?<image href="([^"]+)"/s.exec(landing.text)?.[1];
    expect(href).toMatch(/^http:\/\/krs\.test\/static\/world-map-[0-9a-f]{16}\.svg$/);
    // The location itself is drawn in the page; the coastlines are not.
    expect(landing.text).toMatch(/<circle cx="[\d.]+" cy="[\d.]+"/);
    expect(landing.text.length).toBeLessThan(20_000);
    const map = await app.request(new URL(href as string).pathname);
    expect(map.status).toBe(200);
    expect(map.headers.get('content-type')).toBe('image/svg+xml');
    expect(map.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const svg = await map.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg.length).toBeGreaterThan(20_000);
    // The area picker, an image of its own, still carries the coastlines itself.
    expect((await (await app.request('/search/area.svg?bbox=0,45,180,0')).text()).length).toBeGreaterThan(20_000);
  });

  it('redirects latest_html to the newest version and tells older versions a newer one exists', async () => {
    const { page, publishRecord, call, alice } = await setUp();
    const first = await publishRecord();
    const v2 = await call('POST', `/api/records/${first.id}/versions`, { token: alice });
    await call('PUT', `/api/records/${v2.json.id}/draft`, { token: alice, json: { metadata: { ...metadata, title: 'Second' }, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${v2.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const latest = await page(new URL(first.links['latest_html'] as string).pathname);
    expect(latest.status).toBe(302);
    expect(latest.location).toBe(`http://krs.test/records/${v2.json.id}`);
    expect((await page(`/records/${first.id}`)).text).toContain('A newer version exists');
    expect((await page(`/records/${v2.json.id}`)).text).not.toContain('A newer version exists');
  });

  it('gives restricted records and drafts the API decisions as pages: 401 anonymous, 403 others, 200 with a link token', async () => {
    const { page, publishRecord, call, alice, bob } = await setUp();
    const closed = await publishRecord({}, { record: 'restricted', files: 'restricted' });
    expect((await page(`/records/${closed.id}`)).status).toBe(401);
    const forbidden = await page(`/records/${closed.id}`, bob);
    expect(forbidden.status).toBe(403);
    expect(forbidden.type).toContain('text/html');
    expect((await page(`/records/${closed.id}`, alice)).status).toBe(200);
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Work in progress' } } });
    const preview = new URL(draft.json.links['self_html']).pathname;
    expect(preview).toBe(`/uploads/${draft.json.id}`);
    expect((await page(preview)).status).toBe(401);
    const link = await call('POST', `/api/records/${draft.json.id}/access/links`, { token: alice, json: { permission: 'preview' } });
    const shown = await page(`${preview}?token=${encodeURIComponent(link.json.token)}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Work in progress');
    expect(shown.text).toContain('Preview of a draft');
    expect((await page('/records/nope0-nope0')).status).toBe(404);
  });

  it('shows public metadata with restricted or embargoed files to everyone, its page and exports without the files', async () => {
    const { page, publishRecord, app, alice, bob } = await setUp();
    const restricted = await publishRecord({ title: 'Open metadata, closed files' }, { record: 'public', files: 'restricted' });
    const embargoed = await publishRecord({ title: 'Files under embargo' }, { record: 'public', files: 'public', embargo: { active: true, until: '2099-01-01', reason: 'review' } });
    for (const [rec, says, badge] of [
      [restricted, 'The files are restricted.', '<span>Restricted</span>'],
      [embargoed, 'The files are under embargo until 2099-01-01.', '<span>Embargoed until 2099-01-01</span>'],
    ] as const) {
      const download = `http://krs.test/api/records/${rec.id}/files/notes.txt/content`;
      for (const who of [undefined, bob]) {
        const landing = await page(`/records/${rec.id}`, who);
        expect(landing.status).toBe(200);
        expect(landing.text).toContain(says);
        // The badge tells the access status, not the record's alone ("Open access" before).
        expect(landing.text).toContain(badge);
        expect(landing.text).not.toContain('Open access');
        expect(landing.text).not.toContain(download);
        const jsonLd = await app.request(`/records/${rec.id}/export/json-ld`, { headers: who ? { authorization: `Bearer ${who}` } : {} });
        expect(jsonLd.status).toBe(200);
        expect(await jsonLd.json()).not.toHaveProperty('distribution');
        const byAccept = await app.request(`/api/records/${rec.id}`, { headers: { accept: 'application/ld+json' } });
        expect(byAccept.status).toBe(200);
      }
      // The download stays closed; its owner still sees and gets the files.
      expect((await app.request(download)).status).toBe(401);
      const own = await page(`/records/${rec.id}`, alice);
      expect(own.text).toContain(download);
      expect(own.text).not.toContain(says);
    }
  });

  it('shows a package with its resources and a context page of every resource across versions', async () => {
    const { page, publishRecord, call, alice } = await setUp();
    const resource = await publishRecord({ title: 'Resource inside' });
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'The package' }, files: { enabled: false } } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/resources`, { token: alice, json: { resources: [{ id: resource.id }] } })).status).toBe(200);
    // A resource the package holds in its context, published with it.
    const held = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Held resource' }, files: { enabled: false } } });
    await call('POST', `/api/packages/${pkg.json.id}/context/actions/associate`, { token: alice, json: { records: [{ id: held.json.id }] } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/resources`, { token: alice, json: { resources: [{ id: held.json.id }] } })).status).toBe(200);
    const done = await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice });
    expect(done.status).toBe(202);
    const landing = await page(new URL(done.json.links['self_html']).pathname);
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('The package');
    expect(landing.text).toContain(`href="http://krs.test/records/${resource.id}"`);
    // The context of a public package is listed to anyone, as GET .../context/{parent}/resources is:
    // each resource to those who may read it.
    const contextPath = new URL(done.json.links['context_html']).pathname;
    expect((await page(contextPath)).status).toBe(200);
    const context = await page(contextPath, alice);
    expect(context.status).toBe(200);
    expect(context.text).toContain('Resources of the package “The package”');
    // A search names the package a hit is part of; the package's own context page need not.
    expect((await page('/search?q=held')).text).toContain(`Part of <a href="http://krs.test/packages/${pkg.json.id}">The package</a>`);
    expect(context.text).toContain('Held resource');
    expect(context.text).not.toContain('Part of');
    const inContext = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Draft in the context' } } });
    const associated = await call('POST', `/api/packages/${pkg.json.id}/context/actions/associate`, { token: alice, json: { records: [{ id: inContext.json.id }] } });
    expect(associated.status).toBe(204);
    const withDraft = (await page(contextPath, alice)).text;
    expect(withDraft).toContain('Draft in the context');
    expect((await page(contextPath)).text).not.toContain('Draft in the context');
    // A draft is linked to its preview page, not to a landing page it does not have yet.
    expect(withDraft).toContain(`href="http://krs.test/uploads/${inContext.json.id}"`);
    // A new version's draft has an id of its own and links to the same context, for its owner.
    const next = await call('POST', `/api/packages/${pkg.json.id}/versions`, { token: alice });
    expect(next.status).toBe(201);
    const nextContext = new URL(next.json.links['context_html']).pathname;
    expect(nextContext).toBe(`/packages/${next.json.id}/context`);
    const ofNext = await page(nextContext, alice);
    expect(ofNext.status).toBe(200);
    expect(ofNext.text).toContain('Draft in the context');
    expect((await page(nextContext)).status).toBe(401);
    // So does a package never published, whose page is where the GEO Knowledge Hub has it (and where it was before).
    const fresh = await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'Not yet out' }, files: { enabled: false } } });
    expect(fresh.json.links['self_html']).toBe(`http://krs.test/uploads/packages/${fresh.json.id}`);
    for (const path of [`/uploads/packages/${fresh.json.id}`, `/packages/uploads/${fresh.json.id}`]) expect((await page(path, alice)).text, path).toContain('Not yet out');
    const freshContext = await page(new URL(fresh.json.links['context_html']).pathname, alice);
    expect(freshContext.status).toBe(200);
    expect(freshContext.text).toContain('Resources of the package “Not yet out”');
    expect((await page(`/packages/no-such-id/context`, alice)).status).toBe(404);
  });

  it("lets a browser opened on a restricted package's link follow every link of its pages, its resources and context included", async () => {
    const { page, call, alice } = await setUp();
    const closed = { record: 'restricted', files: 'restricted' };
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'Closed package' }, files: { enabled: false }, access: closed } });
    const resource = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Closed resource' }, files: { enabled: false }, access: closed } });
    await call('POST', `/api/packages/${pkg.json.id}/context/actions/associate`, { token: alice, json: { records: [{ id: resource.json.id }] } });
    await call('POST', `/api/packages/${pkg.json.id}/draft/resources`, { token: alice, json: { resources: [{ id: resource.json.id }] } });
    expect((await call('POST', `/api/packages/${pkg.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const v2 = await call('POST', `/api/packages/${pkg.json.id}/versions`, { token: alice });
    await call('PUT', `/api/packages/${v2.json.id}/draft`, { token: alice, json: { metadata: { ...metadata, title: 'Closed package, again' }, files: { enabled: false }, access: closed } });
    expect((await call('POST', `/api/packages/${v2.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const link = await call('POST', `/api/packages/${pkg.json.id}/access/links`, { token: alice, json: { permission: 'view' } });
    const token = encodeURIComponent(link.json.token);
    const hrefs = (text: string) => [...text.matchAll(/<a href="(http:\/\/krs\.test[^"]*)"/g)].map((m) => (m[1] as string).replaceAll('&amp;', '&'));
    // The first version's page: a newer version exists, its resource, its context, its versions.
    const landing = await page(`/packages/${pkg.json.id}?token=${token}`);
    expect(landing.status).toBe(200);
    const followed = hrefs(landing.text);
    expect(followed).toContain(`http://krs.test/records/${resource.json.id}?token=${token}`);
    expect(followed).toContain(`http://krs.test/packages/${pkg.json.id}/context?token=${token}`);
    const context = await page(`/packages/${pkg.json.id}/context?token=${token}`);
    expect(context.text).toContain('Closed resource');
    for (const href of [...followed, ...hrefs(context.text)]) {
      const res = await page(new URL(href).pathname + new URL(href).search);
      expect([200, 302], href).toContain(res.status);
    }
    // Without the link, the same pages stay closed.
    expect((await page(`/packages/${pkg.json.id}/context`)).status).toBe(401);
    expect((await page(`/records/${resource.json.id}`)).status).toBe(401);
  });

  it("hands a restricted record's link token on to every link of its page, the head's export links included", async () => {
    const { page, publishRecord, call, alice } = await setUp();
    const closed = await publishRecord({ title: 'Closed record' }, { record: 'restricted', files: 'restricted' });
    const link = await call('POST', `/api/records/${closed.id}/access/links`, { token: alice, json: { permission: 'view' } });
    const landing = await page(`/records/${closed.id}?token=${encodeURIComponent(link.json.token)}`);
    expect(landing.status).toBe(200);
    const hrefs = [...landing.text.matchAll(/<(?:a|link)\b[^>]*\bhref="(http:\/\/krs\.test[^"]*)"/g)].map((m) => (m[1] as string).replaceAll('&amp;', '&'));
    const exports = hrefs.filter((h) => h.includes('/export/'));
    expect(exports.length).toBeGreaterThan(8);
    for (const href of hrefs) {
      // The canonical address names the record itself: it answers 401 without the token, as the record does.
      if (href === `http://krs.test/records/${closed.id}`) continue;
      const res = await page(new URL(href).pathname + new URL(href).search);
      expect([200, 302], href).toContain(res.status);
    }
  });

  it("links a draft's preview page only where its owner finds something: the published versions, none before the first publication", async () => {
    const { page, call, publishRecord, alice } = await setUp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, title: 'Not out yet' } } });
    const published = await publishRecord({ title: 'Out' });
    const next = await call('POST', `/api/records/${published.id}/versions`, { token: alice });
    for (const id of [draft.json.id, next.json.id]) {
      const preview = await page(`/uploads/${id}`, alice);
      expect(preview.status).toBe(200);
      const hrefs = [...preview.text.matchAll(/<(?:a|link)\b[^>]*\bhref="(http:\/\/krs\.test[^"]*)"/g)].map((m) => (m[1] as string).replaceAll('&amp;', '&'));
      expect(hrefs).toContain(`http://krs.test/api/records/${id}/draft`);
      for (const href of hrefs) expect([200, 302], href).toContain((await page(new URL(href).pathname + new URL(href).search, alice)).status);
    }
    expect((await page(`/uploads/${draft.json.id}`, alice)).text).toContain('No version is published yet.');
    expect((await page(`/uploads/${next.json.id}`, alice)).text).toContain(`href="http://krs.test/api/records/${published.id}/versions"`);
  });

  it('shows the first 100 items of each long list and counts the rest, in the page and its JSON-LD; the exports keep every one', async () => {
    const { page, publishRecord, call } = await setUp();
    const rec = await publishRecord({
      creators: Array.from({ length: 120 }, (_, i) => ({ person_or_org: { type: 'personal', given_name: `Given${i}`, family_name: `Family${i}` } })),
      subjects: Array.from({ length: 150 }, (_, i) => ({ subject: `subject ${i}` })),
      related_identifiers: Array.from({ length: 130 }, (_, i) => ({ identifier: `https://example.org/${i}`, scheme: 'url', relation_type: { id: 'references' } })),
      locations: { features: Array.from({ length: 105 }, (_, i) => ({ place: `Place ${i}`, geometry: { type: 'Point', coordinates: [i, 0] } })) },
    });
    const text = (await page(`/records/${rec.id}`)).text;
    expect(text).toContain('Given99 Family99');
    expect(text).not.toContain('Given100 Family100');
    expect(text).toContain('and 20 more (every creator is in the exports)');
    expect(text).toContain('subject 99; and 50 more</td>');
    expect(text).toContain('References: <a href="https://example.org/99">https://example.org/99</a>; and 30 more</td>');
    expect(text).toContain('<li>Place 99</li><li>and 5 more</li>');
    // Every location is still on the map.
    expect(text).toContain('aria-label="World map showing 105 locations"');
    const jsonLd = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(text)?.[1] ?? '{}') as { creator: unknown[]; keywords: unknown[]; spatialCoverage: unknown[] };
    expect([jsonLd.creator.length, jsonLd.keywords.length, jsonLd.spatialCoverage.length]).toEqual([100, 100, 100]);
    const exported = (await call('GET', `/records/${rec.id}/export/json-ld`)).json as { creator: unknown[]; keywords: unknown[]; spatialCoverage: unknown[] };
    expect([exported.creator.length, exported.keywords.length, exported.spatialCoverage.length]).toEqual([120, 150, 105]);
    const dataCite = (await call('GET', `/records/${rec.id}/export/datacite-json`)).json as { creators: unknown[]; subjects: unknown[]; relatedIdentifiers: unknown[] };
    expect([dataCite.creators.length, dataCite.subjects.length, dataCite.relatedIdentifiers.length]).toEqual([120, 150, 130]);
  });

  it('lists a hit with its first five creators and the start of its description, however long both are', async () => {
    const { page, publishRecord } = await setUp();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' <b>x</b> ');
    await publishRecord({
      title: 'Long lists',
      creators: Array.from({ length: 300 }, (_, i) => ({ person_or_org: { type: 'personal', given_name: `G${i}`, family_name: `F${i}` } })),
      description: `<p>${words}</p>`,
    });
    const text = (await page('/search?q=lists')).text;
    expect(text).toContain('G0 F0; G1 F1; G2 F2; G3 F3; G4 F4 et al.');
    expect(text).not.toContain('G5 F5');
    const shown = words.replaceAll(' <b>x</b> ', ' x ').slice(0, 300);
    expect(text).toContain(`<p>${shown}…</p>`);
  });

  it('searches with the API query language, facets as links that keep the query, and answers bad parameters with a 400 page', async () => {
    const { page, publishRecord } = await setUp();
    await publishRecord({ title: 'Flood maps of the delta' });
    await publishRecord({ title: 'Drought index' });
    const found = await page('/search?q=flood');
    expect(found.status).toBe(200);
    expect(found.text).toContain('Flood maps of the delta');
    expect(found.text).not.toContain('Drought index');
    expect(found.text).toContain('href="http://krs.test/search?q=flood&amp;resource_type=dataset"');
    const filtered = await page('/search?q=flood&resource_type=dataset');
    expect(filtered.text).toContain('aria-current="true"');
    const home = await page('/');
    expect(home.text).toContain('Drought index');
    expect(home.text).toContain('Flood maps of the delta');
    const bad = await page('/search?bbox=1,2,3');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('bbox must be four numbers');
    const badSize = await page('/search?size=0');
    expect(badSize.status).toBe(400);
  });

  it('draws the search area from two clicks on the map, keeping the rest of the search', async () => {
    const { page, app } = await setUp();
    const first = await app.request('/search?q=flood&sort=newest&page=3&at.x=240&at.y=120');
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('http://krs.test/search?q=flood&sort=newest&corner=0%2C0');
    const second = await app.request('/search?q=flood&sort=newest&corner=0%2C0&at.x=480&at.y=60');
    expect(second.headers.get('location')).toBe('http://krs.test/search?q=flood&sort=newest&bbox=0%2C45%2C180%2C0');
    const drawn = await page('/search?q=flood&sort=newest&bbox=0%2C45%2C180%2C0');
    expect(drawn.status).toBe(200);
    expect(drawn.text).toContain('<details class="area-picker" open="">');
    expect(drawn.text).toContain('src="http://krs.test/search/area.svg?bbox=0%2C45%2C180%2C0"');
    // The picker's form carries the search along, so the next click keeps it.
    expect(drawn.text).toContain('<input type="hidden" name="q" value="flood"/>');
    const svg = await app.request('/search/area.svg?bbox=0,45,180,0&corner=10,10');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const body = await svg.text();
    expect(body).toContain('<rect x="360" y="90" width="360" height="90"');
    expect(body).toContain('<circle');
    // A box across the antimeridian is drawn as its two halves.
    expect((await (await app.request('/search/area.svg?bbox=170,10,-170,-10')).text()).match(/fill-opacity/g)).toHaveLength(2);
    expect((await page('/search?at.x=abc&at.y=1')).status).toBe(400);
  });

  it('links every page, stylesheet, map, form and redirect under a base URL with a path prefix, never path-only', async () => {
    // A proxy serves krs at http://krs.test/krs/ and hands it the paths without the prefix.
    const base = 'http://krs.test/krs';
    const { app, call, alice } = await makeApp({}, undefined, { baseUrl: base });
    const located = { ...metadata, locations: { features: [{ geometry: { type: 'Point', coordinates: [6.2, 4.8] }, place: 'Niger delta' }] } };
    const rec = await call('POST', '/api/records', { token: alice, json: { metadata: located, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${rec.json.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const pkg = await call('POST', '/api/packages', { token: alice, json: { metadata: { ...metadata, title: 'A package' }, files: { enabled: false } } });
    const get = (path: string) => app.request(path, { headers: html });
    const pages = ['/', '/search?q=urban', `/search?corner=0,0&bbox=0,45,180,0`, `/records/${rec.json.id}`, `/packages/${pkg.json.id}/context`, '/no/such/page'];
    for (const path of pages) {
      const text = await (await get(path)).text();
      const refs = [...text.matchAll(/\b(?:href|src|action)="([^"#][^"]*)"/g)].map((m) => (m[1] as string).replaceAll('&amp;', '&'));
      expect(refs.length, path).toBeGreaterThan(3);
      for (const ref of refs) {
        if (ref.startsWith('https://')) continue;
        expect(ref.startsWith(`${base}/`), `${ref} on ${path}`).toBe(true);
        const res = await get(ref.slice(base.length));
        expect([200, 302], `${ref} on ${path}`).toContain(res.status);
      }
    }
    const click = await get('/search?q=urban&at.x=240&at.y=120');
    expect(click.status).toBe(303);
    expect(click.headers.get('location')).toBe(`${base}/search?q=urban&corner=0%2C0`);
  });

  it('answers unknown pages with an HTML 404 for browsers, while API paths keep JSON errors; serves its stylesheet', async () => {
    const { page, app } = await setUp();
    const missing = await page('/no/such/page');
    expect(missing.status).toBe(404);
    expect(missing.type).toContain('text/html');
    const api = await app.request('/api/nothing', { headers: html });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
    const css = await app.request('/static/krs.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
  });
});
