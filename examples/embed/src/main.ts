/**
 * Builds a krs core twice, as a service embedding the packages would: on the in-memory adapters
 * and on the SQLite ones (a database file, file storage and FTS5 search index in a temp dir),
 * and runs the same draft -> publish -> search flow on each. Exits non-zero if a core misbehaves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core, type CoreSettings } from '@krs/domain';
import {
  createFixedClock,
  createInMemoryFileStorage,
  createInMemoryRepositories,
  createInMemorySearchIndex,
  createSequentialIds,
} from '@krs/domain/testing';
import {
  createDb,
  createFsFileStorage,
  createNanoidIds,
  createSqliteSearchIndex,
  createSqlUnitOfWork,
  createSystemClock,
  migrateToLatest,
} from '@krs/adapters';
import { draftPublishSearch } from './flow.ts';

// The secret access-link tokens are derived from: in a real service, from the environment or a key file.
const settings: CoreSettings = {
  maxFileSize: 1024 * 1024,
  maxFiles: 10,
  oaiHost: 'krs.example.org',
  linkSecret: process.env['KRS_SECRET_KEY'] ?? 'example secret, replace in production',
};

function inMemoryCore(): Core {
  const { repos, uow } = createInMemoryRepositories();
  const clock = createFixedClock('2026-01-01T00:00:00.000Z');
  return createCore({
    repos,
    uow,
    storage: createInMemoryFileStorage(() => clock.now()),
    search: createInMemorySearchIndex(),
    clock,
    ids: createSequentialIds(),
    settings,
  });
}

async function onSqlite<T>(run: (core: Core) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'krs-embed-'));
  const handle = createDb(join(dir, 'krs.sqlite'));
  const search = createSqliteSearchIndex(join(dir, 'search.sqlite'));
  try {
    await migrateToLatest(handle.db);
    const { repos, uow } = createSqlUnitOfWork(handle.db);
    const storage = createFsFileStorage(join(dir, 'files'));
    return await run(createCore({ repos, uow, storage, search, clock: createSystemClock(), ids: createNanoidIds(), settings }));
  } finally {
    await search.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

let failed = false;
for (const [name, result] of [
  ['in-memory', await draftPublishSearch(inMemoryCore())],
  ['sqlite', await onSqlite(draftPublishSearch)],
] as const) {
  const ok = result.found.length === 1 && result.found[0] === result.id;
  failed ||= !ok;
  console.log(`${name}: published ${result.id}, search found [${result.found.join(', ')}] ${ok ? 'ok' : 'WRONG'}`);
}
process.exitCode = failed ? 1 : 0;
