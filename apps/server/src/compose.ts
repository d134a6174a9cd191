/**
 * Builds the core on the embedded stack (SQLite + local files + MiniSearch under the data dir),
 * or with file content in S3 when `KRS_STORAGE` says so (docs/storage.md).
 * Shared by the server and the CLI, which may run at the same time on the same data dir.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCore, type Core, type FileStorage, type ProjectionReport, type ReindexProgress, type SearchHealth } from '@krs/domain';
import {
  countRecords,
  createDb,
  createFsFileStorage,
  fsReadBufferBytes,
  fsWriteBufferBytes,
  createPgDb,
  createPostgresSearchSchema,
  openS3FileStorage,
  withSmallBlobCache,
  createNanoidIds,
  createNodeDigest,
  createSqlUnitOfWork,
  createSqliteRowReader,
  createSystemClock,
  migrateToLatest,
  readOrCreateSecretKey,
  type DbHandle,
  type DbOptions,
} from '@krs/adapters';
import type { ServerConfig, StoreTimeouts } from './config.ts';
import type { Metrics, RecordCounts } from './ops/metrics.ts';
import { openEmbeddedSearch, openPostgresSearch } from './search-engine.ts';

export interface Composed {
  core: Core;
  /** Resumes the search index from its saved state and catches up with the database, else rebuilds it. */
  warmSearch(onProgress?: (p: ReindexProgress) => void): Promise<{ loaded: boolean } & ProjectionReport>;
  /** Rebuilds the index from the database (ignoring any snapshot). */
  rebuildSearch(onProgress?: (p: ReindexProgress) => void): Promise<ProjectionReport>;
  /** Records the search index is missing because they could not be projected (each also logged as it happens). */
  searchHealth(): SearchHealth;
  saveSearchSnapshot(): Promise<void>;
  countRecords(): Promise<RecordCounts>;
  /** The database handle, for an online backup. */
  db: DbHandle;
  /** Where blobs live on disk, for a backup; null when they are in S3. */
  filesRoot: string | null;
  /** Bytes the storage holds in memory for one upload of this length (unknown: undefined). */
  uploadBufferBytes(expectedLength?: number): number;
  /** Bytes the storage holds in memory for one download of this length while its client has not taken them. */
  downloadBufferBytes(length: number): number;
  close(): Promise<void>;
}

export interface ComposeOptions {
  /** Measures database statements, search operations and stored bytes. */
  metrics?: Metrics | null;
  /**
   * Answers repeated reads of small blobs from memory: for serving. Off for the operator's
   * commands, whose reads (`krs verify`) must see what is on disk now.
   */
  cacheSmallBlobs?: boolean;
  /**
   * Bounds each PostgreSQL statement by the config's timeouts: for serving. The operator's
   * commands (reindex, copy, verify) and the migrations run unbounded, as long as their work takes.
   */
  boundStatements?: boolean;
}

export interface OpenedStorage {
  storage: FileStorage;
  filesRoot: string | null;
  writeBufferBytes(expectedLength?: number): number;
  readBufferBytes(length: number): number;
  close(): void;
}

export async function openStorage(config: Pick<ServerConfig, 'storage' | 'dataDir' | 'storeTimeouts'>): Promise<OpenedStorage> {
  if (config.storage.kind === 'fs') {
    const filesRoot = join(config.dataDir, 'files');
    return { storage: createFsFileStorage(filesRoot), filesRoot, writeBufferBytes: fsWriteBufferBytes, readBufferBytes: fsReadBufferBytes, close: () => undefined };
  }
  const { bucket, prefix, forcePathStyle } = config.storage;
  const { s3ConnectMs, s3IdleMs } = config.storeTimeouts;
  const s3 = await openS3FileStorage({ bucket, prefix, forcePathStyle, timeouts: { connectMs: s3ConnectMs, idleMs: s3IdleMs } });
  // A wrong bucket, endpoint, region or credential stops start-up here, not at the first upload.
  try {
    await s3.storage.check();
  } catch (e) {
    s3.close();
    const reason = e instanceof Error ? e.message || e.name : String(e);
    throw new Error(`S3 storage s3://${bucket}${prefix ? `/${prefix}` : ''} is not usable: ${reason}`);
  }
  return { storage: s3.storage, filesRoot: null, writeBufferBytes: s3.writeBufferBytes, readBufferBytes: s3.readBufferBytes, close: s3.close };
}

/** A PostgreSQL URL fit for a message or a log line: the password left out. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'the URL in KRS_DATABASE_URL';
  }
}

/**
 * PostgreSQL migrated to the latest schema. With statements bounded, the migrations and the
 * search tables' schema (which may build an index over every document, or wait for another
 * node's change of it) go first on a pool of their own, unbounded.
 */
async function migratedPgDb(url: string, timeouts: StoreTimeouts, onQuery: DbOptions, bounded: boolean): Promise<DbHandle> {
  const { pgConnectMs, pgStatementMs, pgQueryMs } = timeouts;
  const connect = { ...onQuery, connectTimeoutMs: pgConnectMs };
  if (bounded) {
    const migrating = createPgDb(url, connect);
    try {
      await migrateToLatest(migrating.db);
      await createPostgresSearchSchema(migrating.db);
    } finally {
      await migrating.close();
    }
  }
  const handle = createPgDb(url, bounded ? { ...connect, statementTimeoutMs: pgStatementMs, queryTimeoutMs: pgQueryMs } : connect);
  if (!bounded) await migrateToLatest(handle.db);
  return handle;
}

export async function compose(config: ServerConfig, options: ComposeOptions = {}): Promise<Composed> {
  const metrics = options.metrics ?? null;
  mkdirSync(config.dataDir, { recursive: true });
  // First: a storage that fails its check leaves no database or index open behind it.
  const blobs = await openStorage(config);
  const onQuery = metrics ? { onQuery: (text: string, seconds: number) => metrics.observeQuery(text, seconds) } : {};
  let handle: DbHandle | undefined;
  try {
    handle = config.databaseUrl ? await migratedPgDb(config.databaseUrl, config.storeTimeouts, onQuery, options.boundStatements ?? false) : createDb(join(config.dataDir, 'krs.sqlite'), onQuery);
    if (!config.databaseUrl) await migrateToLatest(handle.db);
  } catch (e) {
    await handle?.close().catch(() => undefined);
    blobs.close();
    const where = config.databaseUrl ? `PostgreSQL at ${withoutPassword(config.databaseUrl)}` : `the database in the data dir ${config.dataDir}`;
    throw new Error(`${where} is not usable: ${e instanceof Error ? e.message || e.name : String(e)}`);
  }
  const pgSearch = config.databaseUrl ? await openPostgresSearch(handle.db) : null;
  const search = pgSearch ?? openEmbeddedSearch(config.searchEngine, config.dataDir);
  const searchIndex = metrics ? metrics.instrumentSearch(search.index) : search.index;
  // The unit of work writes PostgreSQL's documents in each write's transaction, with the core's own index object.
  // SQLite's vocabulary listings read on a thread of their own (see createSqlVocabularyRepository).
  const reader = config.databaseUrl ? null : createSqliteRowReader(join(config.dataDir, 'krs.sqlite'));
  const { repos, uow } = createSqlUnitOfWork(
    handle.db,
    pgSearch ? { search: Object.assign(searchIndex, { withTransaction: pgSearch.index.withTransaction }) } : reader ? { reader } : {},
  );
  // Any change committed after this instant is caught up on the next start.
  let watermark = new Date().toISOString();
  const storage = options.cacheSmallBlobs ? withSmallBlobCache(blobs.storage) : blobs.storage;
  const core = createCore({
    repos,
    uow,
    storage: metrics ? metrics.instrumentStorage(storage) : storage,
    search: searchIndex,
    clock: createSystemClock(),
    ids: createNanoidIds(),
    digest: createNodeDigest(),
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
      // Writes are answered before their projections end: the snapshot holds those answered so far.
      await core.search.settled();
      await search.persist(watermark);
    },
    countRecords: () => countRecords(handle.db),
    db: handle,
    filesRoot: blobs.filesRoot,
    uploadBufferBytes: blobs.writeBufferBytes,
    downloadBufferBytes: blobs.readBufferBytes,
    async close() {
      // What was answered is committed either way; the index is spared a catch-up at the next start.
      await core.search.settled();
      const searchEnded = search.close();
      blobs.close();
      await reader?.close();
      await handle.close();
      await searchEnded;
    },
  };
}
