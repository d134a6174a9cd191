import { createCore, type SearchIndex } from '@krs/domain';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '@krs/domain/testing';
import { createApp, type AppConfig } from '../src/app.ts';
import type { OpenApiDocument } from '../src/openapi/document.ts';
import { conformance } from './openapi-conformance.ts';

export const BASE = 'http://krs.test';

export async function makeApp(
  settings: Partial<{ maxFileSize: number; maxFiles: number; doiPrefix: string; maxPageBytes: number }> = {},
  search: SearchIndex = createInMemorySearchIndex(),
  config: Omit<AppConfig, 'baseUrl'> & { baseUrl?: string } = {},
) {
  const { repos, uow } = createInMemoryRepositories();
  const clock = createFixedClock('2026-03-01T10:00:00.000Z');
  const core = createCore({
    repos,
    uow,
    storage: createInMemoryFileStorage(),
    search,
    clock,
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 5, oaiHost: 'krs.test', linkSecret: 'a test secret of some length', ...settings },
  });
  const app = createApp(core, { baseUrl: BASE, ...config });
  // Every answer a test gets through `call` is held to the OpenAPI document.
  const conforms = conformance((await (await app.request('/api/openapi.json')).json()) as OpenApiDocument);
  const alice = (await core.users.createToken('alice@example.org')).token;
  const bob = (await core.users.createToken('bob@example.org')).token;
  type Init = { token?: string; json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> };
  const call = async (method: string, path: string, init: Init = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers['authorization'] = `Bearer ${init.token}`;
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    const answer = { status: res.status, headers: res.headers, text, json };
    const problems = conforms(method, path, answer);
    if (problems.length > 0) throw new Error(`The answer departs from the OpenAPI document: ${problems.join('; ')}`);
    return answer;
  };
  return { app, core, repos, clock, alice, bob, call };
}

export const metadata = {
  title: 'Urban heat islands from Landsat',
  publication_date: '2024-06-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
};
