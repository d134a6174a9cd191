/**
 * Every link krs returns, followed as its readers follow it: a real server behind a proxy that
 * serves it under a path prefix, filled through the API with every state the spec names, then
 * walked from its JSON answers, pages, sitemap and OAI-PMH as an anonymous reader, the owner,
 * another signed-in user and the holder of each kind of access link.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';

let server: RealServer;
let proxy: Server;
let base = '';
let env: NodeJS.ProcessEnv;

/** A reverse proxy that serves krs at `/krs/` and hands it the paths without the prefix. */
function prefixProxy(port: number, upstream: number): Promise<Server> {
  const s = createServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith('/krs/') && url !== '/krs') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`outside the prefix: ${url}`);
      return;
    }
    const up = request({ host: '127.0.0.1', port: upstream, path: url.slice('/krs'.length) || '/', method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  return new Promise((ok) => s.listen(port, '127.0.0.1', () => ok(s)));
}

beforeAll(async () => {
  const [port, proxyPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${proxyPort}/krs`;
  env = { ...process.env, PORT: String(port), KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-links-')), KRS_BASE_URL: base, KRS_DOI_PREFIX: '10.5072', INIT_CWD: serverDir };
  [server, proxy] = await Promise.all([startServer(env), prefixProxy(proxyPort, port)]);
});

afterAll(async () => {
  await server.stop();
  await new Promise((ok) => proxy.close(ok));
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

interface Reader {
  name: string;
  bearer?: string;
  /** An access-link token: presented on every request the reader makes from a JSON link, kept by pages on theirs. */
  token?: string;
  starts: string[];
}

interface Found {
  name: string;
  url: string;
  kind: 'json' | 'html' | 'xml' | 'text' | 'header';
  from: string;
  /** As written in a page, before it was resolved against the page's address. */
  raw?: string;
  type?: string;
}

/** A 1x1 PNG: its width and height are read at commit, so it becomes a IIIF canvas. */
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));

/** Links the API names for a write: they must exist (GET answers 405), not be followed. */
const ACTIONS = new Set(['publish', 'commit', 'files_import', 'resources_import', 'context_associate', 'context_dissociate', 'reserve_doi']);
/**
 * Links the spec gives a draft whose targets answer 404 by API-DECISIONS (`GET /{id}/versions`
 * answers as `GET /{id}`): of a draft never published, those that exist only after publication;
 * of a new version's draft, `versions` (its own id is not published yet).
 */
const AFTER_PUBLICATION = new Set(['versions', 'latest', 'latest_html', 'record', 'record_html']);
const NEW_VERSION_DRAFT = new Set(['versions']);
const JSON_LINKS = new Set(['self', 'latest', 'versions', 'files', 'access_links', 'record', 'resources', 'context_resources', 'requests', 'next', 'prev']);

function linksIn(text: string, type: string, from: string): Found[] {
  const found: Found[] = [];
  if (new URL(from).pathname.endsWith('/api/openapi.json')) {
    // The API description's only link is its server; its schemas name `links` members, not links.
    for (const s of (JSON.parse(text) as { servers: { url: string }[] }).servers) found.push({ name: 'server', url: s.url, kind: 'json', from });
  } else if (type.includes('json')) {
    const visit = (v: unknown, key: string): void => {
      if (Array.isArray(v)) v.forEach((x) => visit(x, key));
      else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'links' && x !== null && typeof x === 'object' && !Array.isArray(x)) {
            for (const [name, url] of Object.entries(x)) if (typeof url === 'string') found.push({ name, url, kind: 'json', from });
          } else visit(x, k);
        }
      } else if (typeof v === 'string' && v.startsWith(base)) found.push({ name: `@${key}`, url: v, kind: 'json', from });
    };
    visit(JSON.parse(text), '');
  } else if (type.includes('html')) {
    for (const m of text.matchAll(/<(a|link|form|script|img)\b([^>]*?)\b(href|src|action)="([^"]*)"[^>]*>/g)) {
      const [tag, attributes, , raw] = [m[1] as string, m[0], m[3], (m[4] as string).replaceAll('&amp;', '&')];
      // The canonical address names the record (for a link holder: without the token); fragments stay on the page.
      if (raw.startsWith('#') || /rel="canonical"/.test(attributes)) continue;
      let url = new URL(raw, from).toString();
      if (tag === 'form') {
        // Submitted as a browser would, with the form's hidden fields (a link holder's token among them).
        const u = new URL(raw, from);
        const body = text.slice(m.index, text.indexOf('</form>', m.index));
        for (const input of body.matchAll(/<input\b[^>]*\bname="([^"]*)"[^>]*>/g)) u.searchParams.set(input[1] as string, (/\bvalue="([^"]*)"/.exec(input[0])?.[1] ?? 'x').replaceAll('&amp;', '&'));
        url = u.toString();
      }
      const typed = /\btype="([^"]*)"/.exec(attributes)?.[1];
      found.push({ name: `${tag}@href`, url, raw, kind: 'html', from, ...(tag === 'a' || tag === 'link' ? (typed ? { type: typed } : {}) : {}) });
    }
    // The JSON-LD a landing page embeds for dataset search engines: its URLs (files' content among them) too.
    for (const m of text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)) found.push(...linksIn(m[1] as string, 'application/json', from));
  } else if (type.includes('xml')) {
    for (const m of text.matchAll(/https?:\/\/[^\s<>"']+/g)) if (m[0].startsWith(base)) found.push({ name: 'xml', url: m[0].replaceAll('&amp;', '&'), kind: 'xml', from });
  } else if (type.includes('text/plain')) {
    for (const m of text.matchAll(/https?:\/\/\S+/g)) found.push({ name: 'text', url: m[0], kind: 'text', from });
  }
  return found;
}

/** GET as the reader, following redirects; the final status, its content type and body (text kinds only). */
async function follow(url: string, reader: Reader, addToken: boolean) {
  const u = new URL(url);
  if (reader.token !== undefined && addToken && !u.searchParams.has('token')) u.searchParams.set('token', reader.token);
  const headers: Record<string, string> = reader.bearer ? { authorization: `Bearer ${reader.bearer}` } : {};
  let at = u.toString();
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(at, { headers, redirect: 'manual' });
    const type = res.headers.get('content-type') ?? '';
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.arrayBuffer();
      at = new URL(location, at).toString();
      continue;
    }
    const body = /json|html|xml|text\/plain/.test(type) ? await res.text() : (await res.arrayBuffer(), '');
    return { status: res.status, type, body, at, link: res.headers.get('link') };
  }
  throw new Error(`${url}: more than 5 redirects`);
}

/** Walks from the reader's starts; returns what went wrong, one line per link. */
async function walk(reader: Reader, settled: { neverPublished: string[]; newVersionDrafts: string[]; filesClosed: string[] }): Promise<{ problems: string[]; followed: number }> {
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue: Found[] = reader.starts.map((s) => ({ name: 'start', url: `${base}${s}`, kind: 'json', from: 'start' }));
  const searchPage = `${new URL(base).pathname}/search`;
  let followed = 0;
  while (queue.length > 0) {
    const link = queue.shift() as Found;
    const where = `${reader.name}: ${link.name} ${link.url} (from ${link.from})`;
    if (link.name === 'server') {
      if (link.url !== base) problems.push(`${where}: the OpenAPI server is not the base URL`);
      continue;
    }
    if (link.kind === 'json' && !link.url.startsWith(`${base}/`)) problems.push(`${where}: not absolute on the base URL`);
    // Relative to the page (the API docs' assets) stays under the prefix; from the host's root it leaves it.
    if (link.raw !== undefined && /^\/(?!\/)/.test(link.raw)) problems.push(`${where}: written ${link.raw}, path-only`);
    if (!link.url.startsWith(`${base}/`)) {
      if (new URL(link.url).origin === new URL(base).origin) problems.push(`${where}: outside the base URL`);
      continue;
    }
    if (/[^:]\/\//.test(link.url)) problems.push(`${where}: doubled slash`);
    const action = ACTIONS.has(link.name);
    // A page's link is followed even where an API link to the same place was: only the API's may answer 404 by decision.
    const key = `${action} ${link.kind} ${link.url.replace(/[?&]token=[^&]*/, '')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    followed++;
    const res = await follow(link.url, reader, link.kind !== 'html');
    const of = (ids: string[]) => ids.some((id) => link.url.includes(`/${id}/`) || link.url.endsWith(`/${id}`));
    const afterPublication = (AFTER_PUBLICATION.has(link.name) && of(settled.neverPublished)) || (NEW_VERSION_DRAFT.has(link.name) && of(settled.newVersionDrafts));
    // A public record's restricted files: its `files` link refuses those who may not read them.
    const filesRefused = link.name === 'files' && reader.name !== 'owner' && of(settled.filesClosed);
    const allowed =
      action ? [405]
      // The edit action's link (POST): GET reads the edit draft if there is one.
      : link.name === 'draft' ? [200, 401, 403, 404]
      : link.name === 'access_links' && reader.name !== 'owner' ? [401, 403]
      // Drafts are published directly: no review request to read (InvenioRDM answers 404 alike).
      : link.name === 'review' ? [404]
      : afterPublication ? [404]
      : filesRefused ? [401, 403]
      : [200, 206];
    if (!allowed.includes(res.status)) problems.push(`${where}: ${res.status}, wanted ${allowed.join(' or ')}`);
    if (res.status !== 200) continue;
    if (link.name.endsWith('_html') && !res.type.startsWith('text/html')) problems.push(`${where}: ${res.type}`);
    if (link.kind === 'json' && JSON_LINKS.has(link.name) && !res.type.includes('json')) problems.push(`${where}: ${res.type}`);
    if (link.type !== undefined && !res.type.startsWith(link.type)) problems.push(`${where}: ${res.type}, the link says ${link.type}`);
    // A search page's links are followed from the reader's starts only: facets, sorts and pages multiply without end.
    const deep = new URL(res.at).pathname === searchPage && link.from !== 'start';
    for (const next of linksIn(res.body, res.type, res.at)) if (!(deep && next.url.startsWith(`${base}/search`))) queue.push(next);
    for (const m of (res.link ?? '').matchAll(/<([^>]+)>/g)) queue.push({ name: 'Link', url: m[1] as string, kind: 'header', from: res.at });
  }
  return { problems: [...new Set(problems)], followed };
}

describe('every link krs returns, for every reader', () => {
  it('answers each reader who got a link as the spec says, under a base URL with a path prefix', async () => {
    const [owner, other] = await Promise.all(
      ['owner@example.org', 'other@example.org'].map(async (user) => (await runKrs(env, 'tokens', 'create', '--user', user)).stdout.trim()),
    );
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const json = body !== undefined && !(body instanceof Uint8Array);
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${owner}`, ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : (body as Uint8Array) }),
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      return text ? JSON.parse(text) : null;
    };
    const metadata = (title: string) => ({
      title,
      publication_date: '2024-09-01',
      resource_type: { id: 'dataset' },
      creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
      locations: { features: [{ geometry: { type: 'Point', coordinates: [6.2, 4.8] }, place: 'Niger delta' }] },
    });
    const draft = async (collection: 'records' | 'packages', title: string, files: boolean, access?: unknown): Promise<string> =>
      (await call('POST', `/api/${collection}`, { metadata: metadata(title), files: { enabled: files }, ...(access ? { access } : {}) })).id;
    const upload = async (id: string, key: string, content: string | Uint8Array, collection: 'records' | 'packages' = 'records') => {
      await call('POST', `/api/${collection}/${id}/draft/files`, [{ key }]);
      await call('PUT', `/api/${collection}/${id}/draft/files/${encodeURIComponent(key)}/content`, typeof content === 'string' ? new TextEncoder().encode(content) : content, { 'content-type': 'application/octet-stream' });
      await call('POST', `/api/${collection}/${id}/draft/files/${encodeURIComponent(key)}/commit`);
    };
    const publish = (collection: 'records' | 'packages', id: string) => call('POST', `/api/${collection}/${id}/draft/actions/publish`);
    const closed = { record: 'restricted', files: 'restricted' };

    const neverPublished = await draft('records', 'Never published', false);
    const metadataOnly = await draft('records', 'Published, metadata only', false);
    await publish('records', metadataOnly);
    const withFiles = await draft('records', 'Published with files', true);
    await upload(withFiles, 'extent.csv', 'lon,lat\n6.2,4.8\n');
    await upload(withFiles, 'notes été #1.txt', 'notes');
    await publish('records', withFiles);
    await call('POST', `/api/records/${withFiles}/draft`);
    const newVersion = (await call('POST', `/api/records/${metadataOnly}/versions`)).id as string;
    const restricted = await draft('records', 'Restricted', true, closed);
    await upload(restricted, 'secret.txt', 'secret');
    await publish('records', restricted);
    const restrictedDraft = await draft('records', 'Restricted draft', true, closed);
    await upload(restrictedDraft, 'draft.txt', 'draft');
    const packageDraft = await draft('packages', 'Package draft', false);
    const attached = await draft('records', 'Attached to the package draft', false);
    await call('POST', `/api/packages/${packageDraft}/context/actions/associate`, { records: [{ id: attached }] });
    await call('POST', `/api/packages/${packageDraft}/draft/resources`, { resources: [{ id: attached }, { id: metadataOnly }] });
    const filesClosed = await draft('records', 'Public, with restricted files', true, { record: 'public', files: 'restricted' });
    await upload(filesClosed, 'closed.txt', 'closed');
    await publish('records', filesClosed);
    const packagePublished = await draft('packages', 'Published package', true);
    // An image: the package's IIIF manifest gets a canvas, its annotation and the image's content.
    await upload(packagePublished, 'figure 1.png', PNG, 'packages');
    const inContext = await draft('records', 'In the published package', true);
    await upload(inContext, 'data.csv', 'a,b\n1,2\n');
    await call('POST', `/api/packages/${packagePublished}/context/actions/associate`, { records: [{ id: inContext }] });
    await call('POST', `/api/packages/${packagePublished}/draft/resources`, { resources: [{ id: inContext }, { id: withFiles }] });
    await publish('packages', packagePublished);
    const token = async (collection: string, id: string, permission: string) => (await call('POST', `/api/${collection}/${id}/access/links`, { permission })).token as string;
    const packageParent = (await call('GET', `/api/packages/${packageDraft}/draft`)).parent.id as string;

    const everyone = [
      '/',
      '/search?q=published',
      '/api/records',
      '/api/packages',
      '/api/search?size=3',
      '/api/records?allversions=true&size=2',
      '/sitemap.xml',
      '/robots.txt',
      '/oai2d?verb=ListRecords&metadataPrefix=oai_dc',
      '/api/openapi.json',
      '/api/docs',
      '/api/vocabularies/resourcetypes?size=2',
      `/api/records/${withFiles}/versions`,
      `/api/packages/${packagePublished}`,
    ];
    const drafts: [string, string][] = [neverPublished, withFiles, newVersion, restrictedDraft, attached].map((id) => ['records', id]);
    drafts.push(['packages', packageDraft]);
    const readers: Reader[] = [
      { name: 'anonymous', starts: everyone },
      { name: 'owner', bearer: owner, starts: [...everyone, '/api/user/records', '/api/user/packages', `/api/packages/context/${packageParent}/resources`, `/api/records/${restricted}`, ...drafts.map(([c, id]) => `/api/${c}/${id}/draft`)] },
      // Signed in, seeing what anonymous readers see and nothing of the owner's: the same walk, from fewer starts.
      { name: 'other user', bearer: other, starts: ['/api/user/records', '/api/user/packages', '/api/search?size=3', `/records/${withFiles}`] },
      { name: 'view link', token: await token('records', restricted, 'view'), starts: [`/api/records/${restricted}`, `/records/${restricted}`] },
      { name: 'preview link', token: await token('records', restrictedDraft, 'preview'), starts: [`/api/records/${restrictedDraft}/draft`, `/uploads/${restrictedDraft}`] },
      { name: 'edit link', token: await token('records', restrictedDraft, 'edit'), starts: [`/api/records/${restrictedDraft}/draft`, `/uploads/${restrictedDraft}`] },
      { name: 'package view link', token: await token('packages', packagePublished, 'view'), starts: [`/api/packages/${packagePublished}`, `/packages/${packagePublished}`] },
    ];
    const problems: string[] = [];
    let followed = 0;
    for (const reader of readers) {
      const walked = await walk(reader, { neverPublished: [neverPublished, restrictedDraft, attached, packageDraft], newVersionDrafts: [newVersion], filesClosed: [filesClosed] });
      problems.push(...walked.problems);
      followed += walked.followed;
    }
    expect(problems).toEqual([]);
    // The walk reached records, drafts, files, pages, exports, listings, OAI-PMH and the sitemap.
    expect(followed).toBeGreaterThan(500);
  });
});
