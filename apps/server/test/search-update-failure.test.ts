import { describe, expect, it } from 'vitest';
import { createCore, type SearchIndex } from '@krs/domain';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '@krs/domain/testing';
import { createApp } from '../src/app.ts';
import { metadata } from './make-app.ts';

/** An app whose search index fails every update while `failing` is set, as a full disk or a bad document would. */
async function makeApp() {
  const { repos, uow } = createInMemoryRepositories();
  const inner = createInMemorySearchIndex();
  const state = { failing: false };
  const search: SearchIndex = {
    ...inner,
    async upsert(docs) {
      if (state.failing) throw new RangeError('Maximum call stack size exceeded');
      return inner.upsert(docs);
    },
  };
  const core = createCore({
    repos,
    uow,
    storage: createInMemoryFileStorage(),
    search,
    clock: createFixedClock('2026-03-01T10:00:00.000Z'),
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 5, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
  const app = createApp(core, { baseUrl: 'http://krs.test' });
  const token = (await core.users.createToken('alice@example.org')).token;
  const call = async (method: string, path: string, json?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await app.request(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { core, call, state };
}

describe('a write whose search index update fails', () => {
  it('answers the write as committed, keeps the change, and reports the record as missing from the index', async () => {
    const { core, call, state } = await makeApp();
    const created = await call('POST', '/api/records', { metadata, files: { enabled: false } });
    expect(created.status).toBe(201);
    state.failing = true;
    const put = await call('PUT', `/api/records/${created.json.id}/draft`, { metadata: { ...metadata, title: 'Renamed while the index fails' } });
    expect(put.status).toBe(200);
    expect(put.json.metadata.title).toBe('Renamed while the index fails');
    expect((await call('GET', `/api/records/${created.json.id}/draft`)).json.metadata.title).toBe('Renamed while the index fails');
    // The write's answer does not wait for the index: the report follows once its projection has ended.
    await core.search.settled();
    expect(core.search.health()).toMatchObject({ skipped: 1, records: [{ id: created.json.id }] });

    const published = await call('POST', `/api/records/${created.json.id}/draft/actions/publish`);
    expect(published.status).toBe(202);
    expect((await call('GET', `/api/records/${created.json.id}`)).json.metadata.title).toBe('Renamed while the index fails');

    // Once the index works again, the next projection of the record catches it up.
    state.failing = false;
    await core.search.reindex({ since: '2000-01-01T00:00:00.000Z' });
    expect(core.search.health().skipped).toBe(0);
    expect((await call('GET', '/api/records?q=renamed')).json.hits.total).toBe(1);
  });
});
