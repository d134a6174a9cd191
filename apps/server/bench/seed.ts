/**
 * Fills a fresh data dir with generated published records through the core's own use cases
 * (create draft, publish), so the benchmark searches records exactly as the API stores them.
 * The search index is left empty: building it is part of what the benchmark measures.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Identity, type SearchIndex } from '@krs/domain';
import { createDb, createFsFileStorage, createPgDb, createNanoidIds, createSqlUnitOfWork, migrateToLatest } from '@krs/adapters';
import { generateRecords } from '../../../packages/adapters/bench/search-corpus.ts';

/** The index is built later, by the server, from the database. */
const noIndex: SearchIndex = {
  upsert: async () => undefined,
  remove: async () => undefined,
  keysOfParent: async () => [],
  search: async () => ({ total: 0, hits: [], aggregations: {} }),
  clear: async () => undefined,
  check: async () => undefined,
  stamp: () => null,
};

/** Into the data dir's SQLite file, or into the PostgreSQL database `databaseUrl` names (its index then built by `krs reindex`). */
export async function seedPublished(dataDir: string, n: number, onProgress?: (done: number) => void, databaseUrl?: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  // Throwaway data: a power cut here costs nothing worth an fsync per record.
  const handle = databaseUrl === undefined ? createDb(join(dataDir, 'krs.sqlite'), { durable: false }) : createPgDb(databaseUrl);
  await migrateToLatest(handle.db);
  const { repos, uow } = createSqlUnitOfWork(handle.db);
  let now = new Date().toISOString();
  const core = createCore({
    repos,
    uow,
    storage: createFsFileStorage(join(dataDir, 'files')),
    search: noIndex,
    clock: { now: () => now },
    ids: createNanoidIds(),
    settings: { maxFileSize: 1024 ** 3, maxFiles: 100, oaiHost: 'localhost', linkSecret: 'a test secret of some length' },
  });
  const owners: Identity[] = [];
  for (let i = 0; i < 50; i++) owners.push({ userId: (await core.users.create(`depositor${i}@example.org`)).id, linkIds: [] });
  const records = generateRecords(n);
  for (const [i, record] of records.entries()) {
    // Records keep their generated creation dates, so sorting by date means something.
    now = record.created;
    const who = owners[i % owners.length] as Identity;
    const draft = await core.records.createDraft(who, record.kind, {
      metadata: record.metadata,
      access: { record: record.restricted ? 'restricted' : 'public' },
      files: { enabled: false },
    });
    await core.records.publish(who, record.kind, draft.record.id);
    if ((i + 1) % 1000 === 0) onProgress?.(i + 1);
  }
  await handle.close();
}
