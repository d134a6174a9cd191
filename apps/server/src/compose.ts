/**
 * Builds the core on the embedded stack (SQLite + local files + MiniSearch under the data dir).
 * Shared by the server and the CLI, which may run at the same time on the same data dir.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Core } from '@krs/domain';
import {
  createDb,
  createFsFileStorage,
  createMiniSearchIndex,
  createNanoidIds,
  createSqlUnitOfWork,
  createSystemClock,
  migrateToLatest,
} from '@krs/adapters';
import type { ServerConfig } from './config.ts';

export interface Composed {
  core: Core;
  close(): Promise<void>;
}

export async function compose(config: ServerConfig): Promise<Composed> {
  mkdirSync(config.dataDir, { recursive: true });
  const handle = createDb(join(config.dataDir, 'krs.sqlite'));
  await migrateToLatest(handle.db);
  const { repos, uow } = createSqlUnitOfWork(handle.db);
  const core = createCore({
    repos,
    uow,
    storage: createFsFileStorage(join(config.dataDir, 'files')),
    search: createMiniSearchIndex(),
    clock: createSystemClock(),
    ids: createNanoidIds(),
    settings: { maxFileSize: config.maxFileSize, maxFiles: config.maxFiles, oaiHost: new URL(config.baseUrl).host },
  });
  return { core, close: handle.close };
}
