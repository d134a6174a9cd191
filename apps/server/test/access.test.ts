import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

async function publishedRestricted(app: Awaited<ReturnType<typeof makeApp>>) {
  const { call, alice } = app;
  const draft = await call('POST', '/api/records', { token: alice, json: { metadata, access: { record: 'restricted', files: 'restricted' }, files: { enabled: false } } });
  const id = draft.json.id as string;
  expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
  return id;
}

describe('access over HTTP', () => {
  it('answers the versions list exactly as the record: 401 anonymous, 403 others, 404 unknown, 200 with a link', async () => {
    const app = await makeApp();
    const { call, alice, bob } = app;
    const id = await publishedRestricted(app);
    for (const path of [`/api/records/${id}`, `/api/records/${id}/versions`]) {
      expect((await call('GET', path)).status, path).toBe(401);
      expect((await call('GET', path, { token: bob })).status, path).toBe(403);
      expect((await call('GET', path, { token: alice })).status, path).toBe(200);
    }
    expect((await call('GET', '/api/records/zzzzz-zzzzz/versions')).status).toBe(404);
    const link = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'view' } });
    const versions = await call('GET', `/api/records/${id}/versions?token=${encodeURIComponent(link.json.token)}`);
    expect(versions.status).toBe(200);
    expect(versions.json.hits.total).toBe(1);
  });

  it('answers 403 to a preview-link holder who tries to change the draft, 401 to a forged token', async () => {
    const { call, alice } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    const link = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'preview' } });
    const token = encodeURIComponent(link.json.token);
    expect((await call('GET', `/api/records/${id}/draft?token=${token}`)).status).toBe(200);
    expect((await call('PUT', `/api/records/${id}/draft?token=${token}`, { json: { metadata } })).status).toBe(403);
    const forged = encodeURIComponent(`${link.json.id}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect((await call('GET', `/api/records/${id}/draft?token=${forged}`)).status).toBe(401);
  });

  it('shows the same derived token on every read of a link, and never keeps it in the store', async () => {
    const { call, alice, repos } = await makeApp();
    const id = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    const created = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'view' } });
    const again = await call('GET', `/api/records/${id}/access/links/${created.json.id}`, { token: alice });
    expect(again.json.token).toBe(created.json.token);
    const parentId = (await repos.records.getDraft(id))!.parentId;
    expect(JSON.stringify(await repos.records.getParent(parentId))).not.toContain(created.json.token.split('.')[1]);
    // Deleting the link revokes its token.
    expect((await call('DELETE', `/api/records/${id}/access/links/${created.json.id}`, { token: alice })).status).toBe(204);
    expect((await call('GET', `/api/records/${id}/draft?token=${encodeURIComponent(created.json.token)}`)).status).toBe(401);
  });

  it('associates a resource named twice in one body once, and refuses one the caller only edits through a link', async () => {
    const { call, alice, bob } = await makeApp();
    const pkg = (await call('POST', '/api/packages', { token: bob, json: { metadata } })).json.id as string;
    const bobs = (await call('POST', '/api/records', { token: bob, json: { metadata } })).json.id as string;
    const twice = await call('POST', `/api/packages/${pkg}/context/actions/associate`, { token: bob, json: { records: [{ id: bobs }, { id: bobs }] } });
    expect(twice.status).toBe(204);
    const alices = (await call('POST', '/api/records', { token: alice, json: { metadata } })).json.id as string;
    const link = await call('POST', `/api/records/${alices}/access/links`, { token: alice, json: { permission: 'edit' } });
    const refused = await call('POST', `/api/packages/${pkg}/context/actions/associate?token=${encodeURIComponent(link.json.token)}`, {
      token: bob,
      json: { records: [{ id: alices }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([{ field: 'records.0.id', messages: ['Only the owner of a resource can associate it with a package.'] }]);
  });
});
