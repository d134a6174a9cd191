import { describe, expect, it } from 'vitest';
import { makeApp, metadata } from './make-app.ts';

const deep = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

describe('metadata limits over HTTP', () => {
  it('answers a body past a limit 400 with field errors, and keeps nothing', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata } });
    const refused = await call('PUT', `/api/records/${draft.json.id}/draft`, { token: alice, json: { metadata: { ...metadata, funding: [deep(3500)] } } });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/larger than the documented limits/);
    expect(refused.json.errors).toHaveLength(1);
    expect(refused.json.errors[0].field).toMatch(/^metadata\.funding\.0(\.0)+$/);
    const after = await call('GET', `/api/records/${draft.json.id}/draft`, { token: alice });
    expect(after.json.revision_id).toBe(draft.json.revision_id);
    expect(after.json.metadata.funding).toBeUndefined();

    const escaped = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, description: '<'.repeat(60_000) } } });
    expect(escaped.status).toBe(400);
    expect(escaped.json.errors).toEqual([{ field: 'metadata.description', messages: [expect.stringMatching(/once sanitised/)] }]);
    const order = await call('POST', '/api/records', { token: alice, json: { metadata, files: { enabled: true, order: Array.from({ length: 1000 }, (_, i) => `f${i}`) } } });
    expect(order.status).toBe(400);
    expect(order.json.errors.map((e: { field: string }) => e.field)).toEqual(['files.order']);
  });

  it('refuses hostile bodies by their shape while they arrive, before parsing them', async () => {
    const { call, alice } = await makeApp();
    const nested = `{"metadata": {"funding": [{"award": ${'['.repeat(5 * 1024 * 1024)}`;
    const deepBody = await call('POST', '/api/records', { token: alice, body: nested, headers: { 'content-type': 'application/json' } });
    expect(deepBody.status).toBe(400);
    expect(deepBody.json.errors).toEqual([{ field: `metadata.funding.0.award${'.0'.repeat(13)}`, messages: ['Nested deeper than 16 levels.'] }]);
    const many = `{"metadata": {"funding": [${Array(1_000_000).fill('{}').join(',')}]}}`;
    const manyBody = await call('POST', '/api/records', { token: alice, body: many, headers: { 'content-type': 'application/json' } });
    expect(manyBody.status).toBe(400);
    expect(manyBody.json.errors[0].field).toBe('_schema');
    const order = await call('POST', '/api/records', { token: alice, json: { files: { enabled: true, order: Array.from({ length: 500_000 }, (_, i) => `f${i}`) } } });
    expect(order.status).toBe(400);
    expect(order.json.errors).toEqual([{ field: 'files.order', messages: [expect.stringMatching(/list items/)] }]);
    const long = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, description: '<p>flood</p>'.repeat(800_000) } } });
    expect(long.status).toBe(400);
    expect(long.json.errors).toEqual([{ field: 'metadata.description', messages: ['Longer than any member may be (100000 characters).'] }]);
    expect((await call('GET', '/api/user/records', { token: alice })).json.hits.total).toBe(0);
  });

  it('lists every problem that blocks publishing when a draft is saved, keeping what was sent', async () => {
    const { call, alice } = await makeApp();
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { title: 'ab' } } });
    expect(draft.status).toBe(201);
    expect(draft.json.metadata.title).toBe('ab');
    expect(draft.json.errors.map((e: { field: string }) => e.field)).toEqual(['metadata.title', 'metadata.publication_date', 'metadata.creators']);
  });

  it('shows a person\'s e-mail to the record\'s editors only', async () => {
    const { call, alice, bob } = await makeApp();
    const creators = [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', email: 'ada@example.org' } }];
    const draft = await call('POST', '/api/records', { token: alice, json: { metadata: { ...metadata, creators }, files: { enabled: false } } });
    expect(draft.json.metadata.creators[0].person_or_org.email).toBe('ada@example.org');
    const published = await call('POST', `/api/records/${draft.json.id}/draft/actions/publish`, { token: alice });
    expect(published.status).toBe(202);
    for (const token of [undefined, bob, alice]) {
      const read = await call('GET', `/api/records/${draft.json.id}`, { token });
      expect(read.text).not.toContain('ada@example.org');
    }
    const hits = await call('GET', '/api/records?q=Obi', {});
    expect(hits.json.hits.total).toBe(1);
    expect(hits.text).not.toContain('ada@example.org');
    expect((await call('GET', '/api/records?q=ada@example.org', {})).json.hits.total).toBe(0);
    const edit = await call('POST', `/api/records/${draft.json.id}/draft`, { token: alice });
    expect(edit.json.metadata.creators[0].person_or_org.email).toBe('ada@example.org');
  });
});
