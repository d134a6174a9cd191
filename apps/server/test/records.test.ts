import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { makeApp, metadata } from './make-app.ts';

describe('resource drafts over HTTP', () => {
  it('creates a draft with the spec shape, links and timestamp format', async () => {
    const { call, alice } = await makeApp();
    const res = await call('POST', '/api/records', { token: alice, json: { metadata } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.links).sort()).toEqual(['access_links', 'files', 'latest', 'latest_html', 'publish', 'reserve_doi', 'self', 'self_html', 'versions']);
    expect(res.json.links.self).toBe(`http://krs.test/api/records/${res.json.id}/draft`);
    expect(res.json.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    expect(res.json.expires_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    expect(res.json).toMatchObject({ is_published: false, versions: { index: 1, is_latest: false, is_latest_draft: true }, pids: {} });
    expect(res.json.id).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    expect(res.json.metadata.creators[0].person_or_org.name).toBe('Obi, Ada');
    expect(res.headers.get('etag')).toBe('"1"');
  });

  it('refuses a JSON body under a content coding with 415 and Accept-Encoding: identity, and stores nothing', async () => {
    const { call, alice } = await makeApp();
    const body = gzipSync(JSON.stringify({ metadata }));
    const gzipped = await call('POST', '/api/records', { token: alice, body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(gzipped.status).toBe(415);
    expect(gzipped.headers.get('accept-encoding')).toBe('identity');
    expect(gzipped.json.message).toMatch(/uncompressed/);
    expect((await call('GET', '/api/user/records', { token: alice })).json.hits.total).toBe(0);
    const identity = await call('POST', '/api/records', { token: alice, json: { metadata }, headers: { 'content-encoding': 'Identity' } });
    expect(identity.status).toBe(201);
  });

  it('answers client mistakes with JSON errors and the right status', async () => {
    const { call, alice } = await makeApp();
    expect((await call('POST', '/api/records', { json: {} })).status).toBe(401);
    const anonymous = await call('POST', '/api/records', { json: {} });
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call('POST', '/api/records', { token: 'not-a-token', json: {} })).status).toBe(401);
    const bad = await call('POST', '/api/records', { token: alice, body: '{oops', headers: { 'content-type': 'application/json' } });
    expect(bad.json).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
    expect((await call('POST', '/api/records', { token: alice, body: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const wrongType = await call('POST', '/api/records', { token: alice, json: { files: { enabled: 'yes' } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.errors[0].field).toBe('files.enabled');
    expect((await call('GET', '/api/records/zzzzz-zzzzz')).status).toBe(404);
    expect((await call('GET', '/api/records/zzzzz-zzzzz', { headers: { accept: 'text/html' } })).status).toBe(406);
    expect((await call('GET', '/api/nothing-here')).status).toBe(404);
  });

  it('reads a large body (parsed in slices) exactly as a small one: the same value, the same refusal of broken JSON', async () => {
    const { call, alice } = await makeApp();
    // Over 64 KiB: parsed in slices. 500 subjects make it large; one broken byte anywhere refuses it.
    const subjects = Array.from({ length: 500 }, (_, i) => ({ subject: `glacier mass balance ${'x'.repeat(120)} ${i}` }));
    const text = JSON.stringify({ metadata: { ...metadata, subjects } });
    expect(text.length).toBeGreaterThan(64 * 1024);
    const created = await call('POST', '/api/records', { token: alice, body: text, headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.json.metadata.subjects).toEqual(subjects);
    for (const broken of [text.slice(0, -1), text.replace('"subject"', '"subject" "'), `${text},`, text.replace('},{', '},,{')]) {
      const refused = await call('POST', '/api/records', { token: alice, body: broken, headers: { 'content-type': 'application/json' } });
      expect(refused.json).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
    }
  });

  it('answers a method a path does not take with 405 and Allow, and a path that does not exist with 404', async () => {
    const { call, alice } = await makeApp();
    const latest = await call('POST', '/api/records/abcde-12345/versions/latest', { token: alice, json: {} });
    expect(latest.status).toBe(405);
    expect(latest.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(latest.json).toEqual({ status: 405, message: 'Method not allowed.' });
    const draft = await call('PATCH', '/api/records/abcde-12345/draft', { token: alice, json: {} });
    expect(draft.status).toBe(405);
    expect(draft.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, POST, PUT');
    expect((await call('DELETE', '/api/records', { token: alice })).headers.get('allow')).toBe('GET, HEAD, OPTIONS, POST');
    const nowhere = await call('POST', '/api/records/abcde-12345/no-such-action', { token: alice, json: {} });
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ status: 404, message: 'Not found.' });
    // Whatever the body holds: it is not read for a route that does not exist.
    for (const body of ['{', '['.repeat(5000), JSON.stringify({ metadata: { title: 'x'.repeat(3_000_000) } })]) {
      const refused = await call('PUT', '/api/records/abcde-12345/versions/latest', { token: alice, body, headers: { 'content-type': 'application/json' } });
      expect([refused.status, refused.json]).toEqual([405, { status: 405, message: 'Method not allowed.' }]);
      const missing = await call('POST', '/api/no-such-thing', { body, headers: { 'content-type': 'application/json' } });
      expect([missing.status, missing.json]).toEqual([404, { status: 404, message: 'Not found.' }]);
    }
    // Routes are strict about a trailing slash: such a path does not exist under any method, so a
    // 405 whose Allow names the very method that was refused would send clients in a circle.
    for (const path of ['/api/records/', '/api/records/abcde-12345/', '/api/records/abcde-12345/versions/']) {
      const slashed = await call('GET', path, { token: alice });
      expect(slashed.status).toBe(404);
      expect(slashed.headers.get('allow')).toBeNull();
    }
  });

  it('keeps invalid metadata as draft errors and publishes only when valid', async () => {
    const { call, alice } = await makeApp();
    const created = await call('POST', '/api/records', { token: alice, json: { metadata: { title: 'No', unknown_field: 1 }, files: { enabled: false } } });
    expect(created.status).toBe(201);
    expect(created.json.errors.map((e: { field: string }) => e.field)).toContain('metadata.unknown_field');
    const id = created.json.id;
    const failed = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect(failed.status).toBe(400);
    expect(failed.json.message).toBe('A validation error occurred.');
    expect(failed.json.errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['metadata.title', 'metadata.publication_date', 'metadata.creators']),
    );
    const fixed = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { ...created.json, metadata } });
    expect(fixed.status).toBe(200);
    expect(fixed.json.errors).toBeUndefined();
    const stale = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    // `*` asks only that the draft exist (RFC 9110, 13.1.1), which it does.
    const any = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': '*' } });
    expect(any.status).toBe(200);
    // A list matches when any of its tags matches by strong comparison; a weak tag never does.
    const current = any.headers.get('etag') as string;
    const weak = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': `W/${current}` } });
    expect(weak.status).toBe(412);
    expect(weak.json).toMatchObject({ status: 412 });
    const noneListed = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': '"1", W/' + current + ', "x"' } });
    expect(noneListed.status).toBe(412);
    const listed = await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': `"1", ${current}` } });
    expect(listed.status).toBe(200);
    expect((await call('PUT', `/api/records/${id}/draft`, { token: alice, json: { metadata }, headers: { 'if-match': 'three' } })).status).toBe(400);
    const published = await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect(published.status).toBe(202);
    expect(published.json.is_published).toBe(true);
    expect(published.json.links.publish).toBeUndefined();
    expect(published.json.links.self).toBe(`http://krs.test/api/records/${id}`);
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(404);
  });

  it('edits, versions, lists versions and the latest version', async () => {
    const { app, call, alice, bob } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    expect((await call('POST', `/api/records/${id}/draft`, { token: bob })).status).toBe(403);
    const edit = await call('POST', `/api/records/${id}/draft`, { token: alice });
    expect(edit.status).toBe(201);
    expect(edit.json.is_published).toBe(false);
    expect((await call('DELETE', `/api/records/${id}/draft`, { token: alice })).status).toBe(204);
    const v2 = await call('POST', `/api/records/${id}/versions`, { token: alice });
    expect(v2.status).toBe(201);
    expect(v2.json.versions.index).toBe(2);
    expect(v2.json.parent.id).toBe(edit.json.parent.id);
    expect(v2.json.metadata.publication_date).toBeUndefined();
    await call('PUT', `/api/records/${v2.json.id}/draft`, { token: alice, json: { metadata } });
    await call('POST', `/api/records/${v2.json.id}/draft/actions/publish`, { token: alice });
    const versions = await call('GET', `/api/records/${id}/versions`);
    expect(versions.json.sortBy).toBe('version');
    expect(versions.json.hits.hits.map((h: { versions: { index: number } }) => h.versions.index)).toEqual([2, 1]);
    expect((await call('GET', `/api/records/${id}/versions/latest`)).json.id).toBe(v2.json.id);
    // HEAD goes to the app itself: the OpenAPI document (which `call` holds answers to) lists GETs.
    for (const path of [`/api/records/${id}`, '/api/records', `/api/records/${id}/versions`]) {
      expect((await call('GET', path)).headers.get('vary'), path).toBe('Accept');
      expect((await app.request(path, { method: 'HEAD' })).headers.get('vary'), `HEAD ${path}`).toBe('Accept');
    }
    expect((await app.request(`/api/records/${id}`, { method: 'HEAD' })).headers.get('link')).toContain('rel="cite-as"');
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata } });
    expect((await call('GET', `/api/records/${draft.json.id}/draft`, { token: alice })).headers.get('vary')).toBe('Accept');
    const unknownSort = await call('GET', `/api/records/${id}/versions?sort=unknown`);
    expect(unknownSort.status).toBe(400);
    expect(unknownSort.json.errors[0].field).toBe('_schema');
  });

  it('marks the edit draft of the latest published version as latest, and of an older one as not', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const edit = await call('POST', `/api/records/${id}/draft`, { token: alice });
    expect(edit.json.versions).toEqual({ index: 1, is_latest: true, is_latest_draft: true });
    expect((await call('GET', `/api/records/${id}/draft`, { token: alice })).json.versions.is_latest).toBe(true);
    await call('DELETE', `/api/records/${id}/draft`, { token: alice });
    const v2 = (await call('POST', `/api/records/${id}/versions`, { token: alice })).json;
    expect(v2.versions).toMatchObject({ index: 2, is_latest: false });
    await call('PUT', `/api/records/${v2.id}/draft`, { token: alice, json: { metadata } });
    await call('POST', `/api/records/${v2.id}/draft/actions/publish`, { token: alice });
    expect((await call('POST', `/api/records/${id}/draft`, { token: alice })).json.versions).toMatchObject({ index: 1, is_latest: false });
    expect((await call('POST', `/api/records/${v2.id}/draft`, { token: alice })).json.versions).toMatchObject({ index: 2, is_latest: true });
  });

  it("changes an older version's entity tag when its answer changes, as when a newer version is published", async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id as string;
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const before = await call('GET', `/api/records/${id}`);
    expect(before.json.versions.is_latest).toBe(true);
    const v2 = (await call('POST', `/api/records/${id}/versions`, { token: alice })).json.id as string;
    await call('PUT', `/api/records/${v2}/draft`, { token: alice, json: { metadata, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${v2}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const after = await call('GET', `/api/records/${id}`);
    expect(after.json.versions.is_latest).toBe(false);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // Unchanged answers keep their tag.
    expect((await call('GET', `/api/records/${id}`)).headers.get('etag')).toBe(after.headers.get('etag'));
  });

  it('answers a published version with 304 while If-None-Match names its current tag, and in full once its answer changed', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id as string;
    // A draft's tag is its revision alone, which its answer outgrows: never a 304.
    const draftTag = (await call('GET', `/api/records/${id}/draft`, { token: alice })).headers.get('etag') as string;
    expect((await call('GET', `/api/records/${id}/draft`, { token: alice, headers: { 'if-none-match': draftTag } })).status).toBe(200);
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const first = await call('GET', `/api/records/${id}`);
    const tag = first.headers.get('etag') as string;
    const again = await call('GET', `/api/records/${id}`, { headers: { 'if-none-match': `"other", W/${tag}` } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    expect(again.headers.get('vary')).toBe('Accept');
    expect((await call('GET', `/api/records/${id}`, { headers: { 'if-none-match': '*' } })).status).toBe(304);
    expect((await call('GET', `/api/records/${id}`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    // A field that cannot be read is ignored.
    expect((await call('GET', `/api/records/${id}`, { headers: { 'if-none-match': 'not a tag' } })).status).toBe(200);
    // A newer version changes this one's answer (versions.is_latest): the old tag no longer matches.
    const v2 = (await call('POST', `/api/records/${id}/versions`, { token: alice })).json.id as string;
    await call('PUT', `/api/records/${v2}/draft`, { token: alice, json: { metadata, files: { enabled: false } } });
    expect((await call('POST', `/api/records/${v2}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const changed = await call('GET', `/api/records/${id}`, { headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.json.versions.is_latest).toBe(false);
  });

  it('gives a published resource an OAI identifier, as packages have', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } });
    expect(draft.json.pids).toEqual({});
    expect(draft.json.expanded).toBeUndefined();
    const published = await call('POST', `/api/records/${draft.json.id}/draft/actions/publish`, { token: alice });
    expect(published.json.pids).toEqual({ oai: { provider: 'oai', identifier: `oai:krs.test:${draft.json.id}` } });
    expect((await call('GET', `/api/records/${draft.json.id}`)).json.pids.oai.identifier).toBe(`oai:krs.test:${draft.json.id}`);
  });

  it('serves the ui form for the vendor media type', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const res = await call('GET', `/api/records/${id}`, { headers: { accept: 'application/vnd.service.v1+json' } });
    expect(res.headers.get('content-type')).toContain('application/vnd.service.v1+json');
    expect(res.json.ui).toMatchObject({ publication_date_l10n_long: '1 June 2024', access_status: { id: 'metadata-only' }, version: 'v1' });
    const list = await call('GET', '/api/records', { headers: { accept: 'application/vnd.inveniordm.v1+json' } });
    expect(Object.keys(list.json).sort()).toEqual(['aggregations', 'hits']);
  });
});

describe('listings', () => {
  it('pages with absolute sorted links and validates parameters', async () => {
    const { call, alice } = await makeApp();
    for (let i = 0; i < 3; i++) {
      const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
      await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    }
    const page = await call('GET', '/api/records?size=2&q=landsat&page=1');
    expect(page.json.hits.total).toBe(3);
    expect(page.json.links.self).toBe('http://krs.test/api/records?page=1&q=landsat&size=2');
    expect(page.json.links.next).toBe('http://krs.test/api/records?page=2&q=landsat&size=2');
    expect(page.json.sortBy).toBe('bestmatch');
    expect((await call('GET', '/api/records?size=0')).status).toBe(400);
    expect((await call('GET', '/api/records?sort=sideways')).json.errors[0].field).toBe('_schema');
    expect((await call('GET', '/api/records?allversions=maybe')).status).toBe(400);
    expect((await call('GET', '/api/records?bbox=1,2,3')).status).toBe(400);
    expect((await call('GET', '/api/user/records')).status).toBe(401);
    const mine = await call('GET', '/api/user/records', { token: alice });
    expect(mine.json.sortBy).toBe('updated-desc');
    expect(mine.json.hits.total).toBe(3);
  });
});
