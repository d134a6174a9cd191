import { createCore, type CoreSettings, type Identity } from '../src/index.ts';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '../src/testing/index.ts';

/** `storageDated: 'start'`: the storage dates blobs as S3 does objects uploaded in parts. */
export function makeCore(options: { storageDated?: 'start' | 'end'; settings?: Partial<CoreSettings> } = {}) {
  const { repos, uow } = createInMemoryRepositories();
  const clock = createFixedClock('2026-01-01T00:00:00.000Z');
  const storage = createInMemoryFileStorage(() => clock.now(), { dated: options.storageDated ?? 'end' });
  const search = createInMemorySearchIndex();
  const core = createCore({
    repos,
    uow,
    storage,
    search,
    clock,
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024 * 1024, maxFiles: 3, oaiHost: 'krs.test', linkSecret: 'a test secret of some length', ...options.settings },
  });
  return { core, repos, storage, search, clock };
}

export const as = (userId: string): Identity => ({ userId, linkIds: [] });
export const anon: Identity = { userId: null, linkIds: [] };

export const validMetadata = {
  title: 'Flood mapping in the Niger delta',
  publication_date: '2025-03-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
};

export async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(text);
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}
