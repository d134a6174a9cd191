/** examples/load-package loads its sample repository and publishes it, through the API alone. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPackage } from '../../../examples/load-package/load-package.ts';
import { BASE, makeApp } from './make-app.ts';

const sample = join(import.meta.dirname, '..', '..', '..', 'examples', 'load-package', 'sample');

describe('the load-package example', () => {
  it('loads the sample package with its two resources, their files and DOIs, and publishes them together', async () => {
    const { app, call, alice } = await makeApp({ doiPrefix: '10.5072' });
    const published = await loadPackage(sample, { api: BASE, token: alice, fetch: async (url, init) => app.request(url, init) }, true);
    expect(published).toMatchObject({ status: 'published', is_published: true, pids: { doi: { identifier: `10.5072/${String(published['id'])}` } } });
    const resources = (await call('GET', `/api/packages/${String(published['id'])}/resources`)).json.hits.hits as { metadata: { title: string }; pids: { doi?: unknown }; files: { enabled: boolean } }[];
    expect(resources.map((r) => [r.metadata.title, r.files.enabled, r.pids.doi !== undefined]).sort()).toEqual([
      ['Field guide to flood mapping', false, false],
      ['Flood extents of the 2022 season', true, true],
    ]);
    const files = (await call('GET', `/api/packages/${String(published['id'])}/files`)).json.entries;
    expect(files.map((f: { key: string; mimetype: string }) => [f.key, f.mimetype])).toEqual([['overview.txt', 'text/plain']]);
  });
});
