/**
 * A write is answered once committed, before its search index write: a process that ends between
 * the two leaves a record the index does not hold. The next start's catch-up (every parent changed
 * since the previous start) must project it. Two starts of the embedded stack over one data dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '@krs/domain';
import { createInMemoryFileStorage, createInMemorySearchIndex } from '@krs/domain/testing';
import { createNanoidIds, createSqlUnitOfWork, createSystemClock } from '@krs/adapters';
import { compose } from '../src/compose.ts';
import { readConfig } from '../src/config.ts';
import { metadata } from './make-app.ts';

describe('a write committed whose index write never happened', () => {
  it('is in the SQLite index after the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-catch-up-'));
    const config = readConfig({ KRS_DATA_DIR: dataDir, KRS_SEARCH_ENGINE: 'sqlite' });
    try {
      const first = await compose(config);
      await first.warmSearch();
      const { token } = await first.core.users.createToken('ada@example.org');
      const userId = await first.core.users.authenticate(token);
      if (userId === null) throw new Error('the token names no user');
      const ada = { userId, linkIds: [] };
      // The same database through a core whose index writes go nowhere: the commit is made and
      // answered, the write to the real index is not, as when the process ends in between.
      const { repos, uow } = createSqlUnitOfWork(first.db.db);
      const cut = createCore({
        repos,
        uow,
        storage: createInMemoryFileStorage(),
        search: createInMemorySearchIndex(),
        clock: createSystemClock(),
        ids: createNanoidIds(),
        settings: { maxFileSize: 1024, maxFiles: 5, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
      });
      const draft = await cut.records.createDraft(ada, 'resource', { metadata: { ...metadata, title: 'Committed before the crash' } });
      expect((await first.core.records.searchOwn(ada, 'resource', {})).total).toBe(0);
      await first.close();

      const second = await compose(config);
      try {
        const warm = await second.warmSearch();
        expect(warm.loaded).toBe(true);
        const own = await second.core.records.searchOwn(ada, 'resource', {});
        expect(own.hits.map((h) => h.record.id)).toEqual([draft.record.id]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
