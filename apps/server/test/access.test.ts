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

describe('embargo over HTTP', () => {
  const DAY = 24 * 3600 * 1000;

  async function embargoedRecord(app: Awaited<ReturnType<typeof makeApp>>, until: string | null) {
    const { call, alice } = app;
    const draft = await call('POST', '/api/records', {
      token: alice,
      json: { metadata, access: { record: 'public', files: 'public', embargo: { active: true, until, reason: 'Under review' } } },
    });
    const id = draft.json.id as string;
    await call('POST', `/api/records/${id}/draft/files`, { token: alice, json: [{ key: 'data.csv' }] });
    await call('PUT', `/api/records/${id}/draft/files/data.csv/content`, { token: alice, body: 'a,b\n', headers: { 'content-type': 'application/octet-stream' } });
    await call('POST', `/api/records/${id}/draft/files/data.csv/commit`, { token: alice });
    return { id, draft };
  }

  it('needs a real date when active: a draft error, and publish refuses', async () => {
    const app = await makeApp();
    const { id, draft } = await embargoedRecord(app, null);
    expect(draft.json.errors).toContainEqual({ field: 'access.embargo.until', messages: ['An active embargo needs the date it lifts.'] });
    const publish = await app.call('POST', `/api/records/${id}/draft/actions/publish`, { token: app.alice });
    expect(publish.status).toBe(400);
    expect(publish.json.errors).toContainEqual({ field: 'access.embargo.until', messages: ['An active embargo needs the date it lifts.'] });
    const bad = await app.call('PUT', `/api/records/${id}/draft`, { token: app.alice, json: { metadata, access: { embargo: { active: true, until: '2026-02-30' } } } });
    expect(bad.json.errors).toContainEqual({ field: 'access.embargo.until', messages: ['Not a valid date (YYYY-MM-DD).'] });
  });

  it('closes the files to all but owners and link holders until its day, then lifts by itself', async () => {
    const app = await makeApp();
    const { call, alice, bob, clock, core } = app;
    const { id } = await embargoedRecord(app, '2026-03-10');
    expect((await call('POST', `/api/records/${id}/draft/actions/publish`, { token: alice })).status).toBe(202);
    const record = await call('GET', `/api/records/${id}`);
    expect(record.status).toBe(200);
    expect(record.json.access.status).toBe('embargoed');
    const content = `/api/records/${id}/files/data.csv/content`;
    expect((await call('GET', content)).status).toBe(401);
    expect((await call('GET', content, { token: bob })).status).toBe(403);
    expect((await call('GET', content, { token: alice })).status).toBe(200);
    const link = await call('POST', `/api/records/${id}/access/links`, { token: alice, json: { permission: 'view' } });
    expect((await call('GET', `${content}?token=${encodeURIComponent(link.json.token)}`)).status).toBe(200);
    expect((await call('GET', '/api/records?access_status=embargoed')).json.hits.total).toBe(1);

    clock.advance(10 * DAY);
    expect((await call('GET', content)).text).toBe('a,b\n');
    const lifted = await call('GET', `/api/records/${id}`);
    expect(lifted.json.access).toMatchObject({ status: 'open', files: 'public', embargo: { active: false, until: '2026-03-10' } });
    // The sweep writes the lift down, and search follows.
    expect(await core.records.liftLapsedEmbargoes()).toBe(1);
    expect(await core.records.liftLapsedEmbargoes()).toBe(0);
    expect((await call('GET', '/api/records?access_status=open')).json.hits.total).toBe(1);
    expect((await call('GET', '/api/records?access_status=embargoed')).json.hits.total).toBe(0);
  });
});
