/**
 * Builds the core on the embedded stack (SQLite + local files + MiniSearch under the data dir).
 * Shared by the server and the CLI, which may run at the same time on the same data dir.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Core, type ProjectionReport, type ReindexProgress, type SearchHealth } from '@krs/domain';
import {
  createDb,
  createFsFileStorage,
  createNanoidIds,
  createSqlUnitOfWork,
  createSystemClock,
  migrateToLatest,
  readOrCreateSecretKey,
} from '@krs/adapters';
import type { ServerConfig } from './config.ts';
import { openEmbeddedSearch } from './search-engine.ts';

export interface Composed {
  core: Core;
  /** Resumes the search index from its saved state and catches up with the database, else rebuilds it. */
  warmSearch(onProgress?: (p: ReindexProgress) => void): Promise<{ loaded: boolean } & ProjectionReport>;
  /** Rebuilds the index from the database (ignoring any snapshot). */
  rebuildSearch(onProgress?: (p: ReindexProgress) => void): Promise<ProjectionReport>;
  /** Records the search index is missing because they could not be projected (each also logged as it happens). */
  searchHealth(): SearchHealth;
  saveSearchSnapshot(): Promise<void>;
  close(): Promise<void>;
}

export async function compose(config: ServerConfig): Promise<Composed> {
  mkdirSync(config.dataDir, { recursive: true });
  const handle = createDb(join(config.dataDir, 'krs.sqlite'));
  await migrateToLatest(handle.db);
  const { repos, uow } = createSqlUnitOfWork(handle.db);
  const search = openEmbeddedSearch(config.searchEngine, config.dataDir);
  // Any change committed after this instant is caught up on the next start.
  let watermark = new Date().toISOString();
  const core = createCore({
    repos,
    uow,
    storage: createFsFileStorage(join(config.dataDir, 'files')),
    search: search.index,
    clock: createSystemClock(),
    ids: createNanoidIds(),
    settings: { maxFileSize: config.maxFileSize, maxFiles: config.maxFiles, oaiHost: config.oaiHost,
      linkSecret: config.secretKey ?? readOrCreateSecretKey(join(config.dataDir, 'secret.key')),
      ...(config.doiPrefix ? { doiPrefix: config.doiPrefix } : {}) },
  });
  // One JSON line per record left out of the index, whether at start-up, on a write or in `krs reindex`.
  core.search.onSkip((s) => {
    process.stderr.write(`${JSON.stringify({ level: 'warn', event: 'search.record_skipped', id: s.id, parentId: s.parentId, reason: s.reason })}\n`);
  });
  return {
    core,
    async warmSearch(onProgress) {
      const since = await search.resume();
      watermark = new Date().toISOString();
      const report = await core.search.reindex(since === null ? { onProgress } : { since, onProgress });
      await search.checkpoint(watermark);
      return { loaded: since !== null, ...report };
    },
    async rebuildSearch(onProgress) {
      watermark = new Date().toISOString();
      const report = await core.search.reindex({ onProgress });
      await search.checkpoint(watermark);
      return report;
    },
    searchHealth: () => core.search.health(),
    async saveSearchSnapshot() {
      await search.persist(watermark);
    },
    async close() {
      search.close();
      await handle.close();
    },
  };
}
