/**
 * The search index of the embedded stack and how it survives restarts. Either engine is a
 * projection of the database: at start-up it is caught up with every parent changed since the
 * recorded watermark, and rebuilt whole when its saved state is missing, foreign or unreadable.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchIndex } from '@krs/domain';
import { createMiniSearchIndex, createPostgresSearchIndex, createPostgresSearchSchema, createSqliteSearchIndex, type DbHandle } from '@krs/adapters';
import type { SearchEngine } from './config.ts';

export interface EmbeddedSearch {
  index: SearchIndex;
  /** Where a previous run left off, or null when the index must be rebuilt. */
  resume(): Promise<string | null>;
  /** Records that the index reflects the database up to `watermark` (a time before any write not yet indexed). */
  checkpoint(watermark: string): Promise<void>;
  /** Called at shutdown: the in-memory engine saves its snapshot then. */
  persist(watermark: string): Promise<void>;
  /** Resolves once the engine's threads have ended, so the process may exit. */
  close(): Promise<void>;
}

/** Bumped whenever what the SQLite index stores per document changes: an older file is rebuilt. */
const SQLITE_FORMAT = 2;

function writeAtomically(file: string, text: string) {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

export function openEmbeddedSearch(engine: SearchEngine, dataDir: string): EmbeddedSearch {
  if (engine === 'minisearch') {
    const index = createMiniSearchIndex();
    const file = join(dataDir, 'search-snapshot.bin');
    return {
      index,
      resume: () => index.loadSnapshot(file),
      checkpoint: async () => undefined,
      async persist(watermark) {
        await index.saveSnapshot(file, watermark);
        // The JSON snapshot of earlier releases, which no release reads any more.
        rmSync(join(dataDir, 'search-snapshot.json'), { force: true });
      },
      close: async () => undefined,
    };
  }
  const file = join(dataDir, 'search.sqlite');
  const stateFile = join(dataDir, 'search-state.json');
  let index;
  try {
    index = createSqliteSearchIndex(file);
  } catch {
    // An unreadable index file is only a projection: start it afresh.
    for (const f of [file, `${file}-wal`, `${file}-shm`, stateFile]) rmSync(f, { force: true });
    index = createSqliteSearchIndex(file);
  }
  const sqliteIndex = index;
  return {
    index: sqliteIndex,
    async resume() {
      if (!existsSync(stateFile)) return null;
      try {
        const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { engine?: unknown; format?: unknown; watermark?: unknown };
        return state.engine === 'sqlite' && state.format === SQLITE_FORMAT && typeof state.watermark === 'string' ? state.watermark : null;
      } catch {
        return null;
      }
    },
    async checkpoint(watermark) {
      writeAtomically(stateFile, JSON.stringify({ engine: 'sqlite', format: SQLITE_FORMAT, watermark }));
    },
    persist: async () => undefined,
    close: () => sqliteIndex.close(),
  };
}

/**
 * With PostgreSQL the index lives in the records' database and is written in the same
 * transaction as them (see the adapters' unit of work): shared by every node and never behind.
 * A node starting on an empty index (a new database, or one filled by `krs copy`) projects every
 * record into it, without clearing it first: other nodes may be writing.
 */
export async function openPostgresSearch(db: DbHandle['db']): Promise<EmbeddedSearch & { index: ReturnType<typeof createPostgresSearchIndex> }> {
  await createPostgresSearchSchema(db);
  const index = createPostgresSearchIndex(db);
  /** Whether the last resume found documents, so that the projection after it caught up only. */
  let caughtUp = false;
  return {
    index,
    async resume() {
      const empty = (await index.search({ filter: { kinds: ['resource', 'package'], viewerId: null }, q: null, bbox: null, sort: 'newest', page: 1, size: 1, aggregations: [] })).total === 0;
      caughtUp = !empty;
      return empty ? '1970-01-01T00:00:00.000Z' : new Date().toISOString();
    },
    // After every record was projected at once (a first start, `krs reindex`), the planner's
    // statistics are gathered at once too rather than whenever autovacuum comes round.
    async checkpoint() {
      if (!caughtUp) await index.analyze();
      caughtUp = false;
    },
    persist: async () => undefined,
    close: async () => undefined,
  };
}
