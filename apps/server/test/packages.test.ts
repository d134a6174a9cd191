import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const pkgMetadata = { title: 'Flood resilience package', publication_date: '2025', creators: metadata.creators };

describe('packages over HTTP', () => {
  it('creates a package draft with the package shape and link names', async () => {
    const { call, alice } = await makeApp();
    const res = await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false }, custom_fields: { a: 1 } } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'draft', is_draft: true, is_published: false, custom_fields: { a: 1 }, relationship: { resources: [] }, assistance_requests: [] });
    expect(res.json.metadata.resource_type.id).toBe('knowledge');
    expect(res.json.parent).toMatchObject({ type: 'package', communities: {} });
    expect(res.json.created).toMatch(/\+00:00$/);
    expect(Object.keys(res.json.links).sort()).toEqual(
      ['access_links', 'context_associate', 'context_dissociate', 'context_html', 'context_resources', 'files', 'files_import', 'publish', 'record', 'record_html', 'reserve_doi', 'resources', 'resources_import', 'review', 'self', 'self_html', 'self_iiif_manifest', 'self_iiif_sequence', 'versions'].sort(),
    );
    expect(res.json.links.context_resources).toBe(`http://krs.test/api/packages/context/${res.json.parent.id}/resources`);
  });

  it('expands the owners in the create-draft response, by id, never by e-mail', async () => {
    const { call, alice } = await makeApp();
    const res = await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata } });
    const owner = res.json.parent.access.owned_by[0].user;
    expect(res.json.expanded).toEqual({ parent: { access: { owned_by: [{ user: { id: owner, is_current_user: true } }] } } });
    expect(res.text).not.toContain('@example.org');
    expect((await call('GET', `/api/packages/${res.json.id}/draft`, { token: alice })).json.expanded).toBeUndefined();
  });

  it('reserves a DOI at the reserve_doi link under the configured prefix, kept by publish', async () => {
    const { call, alice, bob } = await makeApp({ doiPrefix: '10.5072' });
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false } } })).json;
    const path = pkg.links.reserve_doi.replace('http://krs.test', '');
    expect((await call('POST', path, { token: bob })).status).toBe(403);
    const reserved = await call('POST', path, { token: alice });
    expect(reserved.status).toBe(201);
    expect(reserved.json.pids.doi).toEqual({ identifier: `10.5072/${pkg.id}`, provider: 'krs' });
    expect((await call('POST', path, { token: alice })).json.pids.doi.identifier).toBe(`10.5072/${pkg.id}`);
    const published = await call('POST', `/api/packages/${pkg.id}/draft/actions/publish`, { token: alice });
    expect(published.json.pids).toMatchObject({ doi: { identifier: `10.5072/${pkg.id}` }, oai: { provider: 'oai' } });
  });

  it("lists a package's draft resources to its reviewer without people's e-mail addresses, though its owner listed them with them first", async () => {
    const { call, alice } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false } } })).json;
    const creators = [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', email: 'ada.obi@example.org' } }];
    const resource = (await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, creators }, files: { enabled: false } } })).json.id;
    await call('POST', `/api/packages/${pkg.id}/context/actions/associate`, { token: alice, json: { records: [{ id: resource }] } });
    await call('POST', `/api/packages/${pkg.id}/draft/resources`, { token: alice, json: { resources: [{ id: resource }] } });
    const path = `/api/packages/${pkg.id}/draft/resources`;
    const own = await call('GET', path, { token: alice });
    expect(own.text).toContain('ada.obi@example.org');
    const link = await call('POST', `/api/packages/${pkg.id}/access/links`, { token: alice, json: { permission: 'preview' } });
    const reviewed = await call('GET', `${path}?token=${encodeURIComponent(link.json.token)}`);
    expect(reviewed.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([resource]);
    expect(reviewed.text).not.toContain('ada.obi@example.org');
    expect((await call('GET', `${pkg.links.context_resources.replace('http://krs.test', '')}?token=${encodeURIComponent(link.json.token)}`)).text).not.toContain('ada.obi@example.org');
  });

  it("lets anonymous readers of a public package follow its context links, showing them only what they may read", async () => {
    const { call, alice } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false } } })).json;
    const shown = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    const unpublished = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/packages/${pkg.id}/context/actions/associate`, { token: alice, json: { records: [{ id: shown }, { id: unpublished }] } });
    await call('POST', `/api/packages/${pkg.id}/draft/resources`, { token: alice, json: { resources: [{ id: shown }] } });
    expect((await call('POST', `/api/packages/${pkg.id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const links = (await call('GET', `/api/packages/${pkg.id}`)).json.links;
    const context = await call('GET', links.context_resources.replace('http://krs.test', ''));
    expect(context.status).toBe(200);
    expect(context.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([shown]);
    const page = await call('GET', links.context_html.replace('http://krs.test', ''), { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(shown);
    expect(page.text).not.toContain(unpublished);
    // The owner still sees the draft in the context.
    expect((await call('GET', links.context_resources.replace('http://krs.test', ''), { token: alice })).json.hits.total).toBe(2);
  });

  it('reserves no DOI without a configured prefix, and says so', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id;
    const res = await call('POST', `/api/records/${id}/draft/pids/doi`, { token: alice });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('This service reserves no DOIs: no DOI prefix is configured.');
    expect((await call('GET', `/api/records/${id}/draft`, { token: alice })).json.pids).toEqual({});
  });

  it('associates, attaches, fails to publish for an invalid resource, then publishes atomically', async () => {
    const { call, alice } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false } } })).json;
    const bad = (await call('POST', '/api/records', { token: alice, json: { metadata: { title: 'Untitled' }, files: { enabled: false } } })).json.id;
    const good = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    expect((await call('POST', pkg.links.context_associate.replace('http://krs.test', ''), { token: alice, json: { records: [{ id: bad }, { id: good }] } })).status).toBe(204);
    const context = await call('GET', `/api/packages/context/${pkg.parent.id}/resources`, { token: alice });
    expect(context.json.hits.total).toBe(2);
    const attach = await call('POST', `/api/packages/${pkg.id}/draft/resources`, { token: alice, json: { resources: [{ id: bad }, { id: good }, { id: 'nope0-nope0' }] } });
    expect(attach.json.errors).toEqual([{ record: 'nope0-nope0', message: expect.any(String) }]);
    const failed = await call('POST', `/api/packages/${pkg.id}/draft/actions/publish`, { token: alice });
    expect(failed.status).toBe(400);
    expect(failed.json.errors.map((e: { field: string }) => e.field)).toContain(`resources.${bad}.metadata.creators`);
    expect((await call('GET', `/api/records/${good}`)).status).toBe(404);
    await call('PUT', `/api/records/${bad}/draft`, { token: alice, json: { metadata } });
    const published = await call('POST', `/api/packages/${pkg.id}/draft/actions/publish`, { token: alice });
    expect(published.status).toBe(202);
    expect(published.json).toMatchObject({ status: 'published', is_draft: false, pids: { oai: { provider: 'oai', identifier: `oai:krs.test:${pkg.id}` } } });
    expect(published.json.expires_at).toBeUndefined();
    expect((await call('GET', `/api/records/${good}`)).json.is_published).toBe(true);
    const resources = await call('GET', `/api/packages/${pkg.id}/resources`);
    expect(resources.json.hits.total).toBe(2);
    const v2 = await call('POST', `/api/packages/${pkg.id}/versions`, { token: alice });
    expect(v2.json.status).toBe('new_version_draft');
    expect((await call('POST', `/api/packages/${v2.json.id}/draft/actions/resources-import`, { token: alice })).status).toBe(204);
    expect((await call('GET', `/api/packages/${v2.json.id}/draft`, { token: alice })).json.relationship.resources).toHaveLength(2);
    const edit = await call('POST', `/api/packages/${pkg.id}/draft`, { token: alice });
    expect(edit.json).toMatchObject({ is_published: true, status: 'published', is_draft: true });
  });

  it('refuses to associate a published resource, changing nothing', async () => {
    const { call, alice } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata } })).json;
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const res = await call('POST', `/api/packages/${pkg.id}/context/actions/associate`, { token: alice, json: { records: [{ id }] } });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].field).toBe('records.0.id');
    expect((await call('GET', `/api/packages/context/${pkg.parent.id}/resources`, { token: alice })).json.hits.total).toBe(0);
  });

  it('searches packages and resources together with a record_type facet', async () => {
    const { call, alice } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: alice, json: { metadata: pkgMetadata, files: { enabled: false } } })).json;
    await call('POST', `/api/packages/${pkg.id}/draft/actions/publish`, { token: alice });
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: false } } })).json.id;
    await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice });
    const all = await call('GET', '/api/search');
    expect(all.json.hits.total).toBe(2);
    expect(all.json.aggregations.record_type.buckets.map((b: { key: string }) => b.key).sort()).toEqual(['package', 'resource']);
    const onlyPackages = await call('GET', '/api/search?record_type=package');
    expect(onlyPackages.json.hits.hits.map((h: { id: string }) => h.id)).toEqual([pkg.id]);
  });
});
