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

/**
 * Records stored at once into PostgreSQL: each record is two transactions (create, publish), each
 * a round trip and a flush of the log, so one writer leaves both the server and this process
 * waiting most of the time (10,000 records took 78 s one at a time, 25 s with 8 writers). SQLite
 * has one writer whatever the number of callers.
 */
const PG_WRITERS = 8;

/**
 * Into the data dir's SQLite file, or into the PostgreSQL database `databaseUrl` names (its index
 * then built by `krs reindex`), by `writers` concurrent callers of the use cases (each with a clock
 * of its own, so each record keeps its generated dates).
 */
export async function seedPublished(
  dataDir: string,
  n: number,
  onProgress?: (done: number) => void,
  databaseUrl?: string,
  writers = databaseUrl === undefined ? 1 : PG_WRITERS,
): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  // Throwaway data: a power cut here costs nothing worth an fsync per record.
  const handle = databaseUrl === undefined ? createDb(join(dataDir, 'krs.sqlite'), { durable: false }) : createPgDb(databaseUrl, { maxConnections: writers });
  await migrateToLatest(handle.db);
  const { repos, uow } = createSqlUnitOfWork(handle.db);
  const storage = createFsFileStorage(join(dataDir, 'files'));
  const writer = () => {
    const clock = { at: new Date().toISOString() };
    const core = createCore({
      repos,
      uow,
      storage,
      search: noIndex,
      clock: { now: () => clock.at },
      ids: createNanoidIds(),
      settings: { maxFileSize: 1024 ** 3, maxFiles: 100, oaiHost: 'localhost', linkSecret: 'a test secret of some length' },
    });
    return { core, clock };
  };
  const first = writer();
  const owners: Identity[] = [];
  for (let i = 0; i < 50; i++) owners.push({ userId: (await first.core.users.create(`depositor${i}@example.org`)).id, linkIds: [] });
  const records = generateRecords(n);
  let next = 0;
  let done = 0;
  const store = async ({ core, clock }: ReturnType<typeof writer>) => {
    while (next < records.length) {
      const i = next++;
      const record = records[i] as (typeof records)[number];
      // Records keep their generated creation dates, so sorting by date means something.
      clock.at = record.created;
      const who = owners[i % owners.length] as Identity;
      const draft = await core.records.createDraft(who, record.kind, {
        metadata: record.metadata,
        access: { record: record.restricted ? 'restricted' : 'public' },
        files: { enabled: false },
      });
      await core.records.publish(who, record.kind, draft.record.id);
      if (++done % 1000 === 0) onProgress?.(done);
    }
  };
  await Promise.all([store(first), ...Array.from({ length: Math.max(0, writers - 1) }, () => store(writer()))]);
  await handle.close();
}
