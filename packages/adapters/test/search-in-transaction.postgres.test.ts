/** With PostgreSQL, a unit of work writes its records' search documents in its own transaction. */
import { describe, expect, it } from 'vitest';
import { anonymous, createCore, type SearchIndex, type SearchRequest } from '@krs/domain';
import { createFixedClock, createInMemoryFileStorage } from '@krs/domain/testing';
import { createNanoidIds, createPgDb, createPostgresSearchIndex, createPostgresSearchSchema, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { draft, parent, published } from './contracts/builders.ts';
import { freshDatabase, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const all = (viewerId: string | null): SearchRequest => ({ filter: { kinds: ['resource', 'package'], viewerId }, q: null, bbox: null, sort: 'newest', page: 1, size: 10, aggregations: [] });

async function open() {
  const handle = createPgDb(await freshDatabase());
  await migrateToLatest(handle.db);
  await createPostgresSearchSchema(handle.db);
  const search = createPostgresSearchIndex(handle.db);
  return { ...createSqlUnitOfWork(handle.db, { search }), search, close: handle.close };
}

describe('search documents in the write transaction (PostgreSQL)', () => {
  it('commits the documents with the records, and nothing of a unit that fails', async () => {
    const { uow, search, close } = await open();
    try {
      await uow.run(async (tx) => {
        await tx.records.saveParent(parent('p1', { ownerId: 'u1', latestPublishedId: 'r1', latestPublishedIndex: 1 }), null);
        await tx.records.savePublished(published('r1', 'p1', { metadata: { title: 'Glacier retreat' } }), null);
        await tx.records.saveDraft(draft('d2', 'p1'), null);
      });
      // Read straight after the unit: no projection ran besides the unit's own.
      expect((await search.keysOfParent('p1')).sort()).toEqual(['draft:d2', 'published:r1']);
      expect((await search.search({ ...all(null), q: 'glacier' })).hits.map((h) => h.id)).toEqual(['r1']);

      await expect(
        uow.run(async (tx) => {
          await tx.records.saveParent(parent('p2', { ownerId: 'u1' }), null);
          await tx.records.saveDraft(draft('d3', 'p2'), null);
          throw new Error('the unit fails after its writes');
        }),
      ).rejects.toThrow('the unit fails');
      expect(await search.keysOfParent('p2')).toEqual([]);

      // Deleting a draft takes its document out in the same transaction.
      await uow.run(async (tx) => tx.records.deleteDraft('d2'));
      expect(await search.keysOfParent('p1')).toEqual(['published:r1']);
    } finally {
      await close();
    }
  });

  it('writes a use case\'s documents once, in its transaction, and again after commit only what the index could not take', async () => {
    const handle = createPgDb(await freshDatabase());
    try {
      await migrateToLatest(handle.db);
      await createPostgresSearchSchema(handle.db);
      const index = createPostgresSearchIndex(handle.db);
      // Writes through the pool (after commit) are counted; the transaction's own go through withTransaction.
      let afterCommit = 0;
      let refuse = false;
      const counted: SearchIndex & { withTransaction: typeof index.withTransaction } = {
        ...index,
        upsert: (docs) => (afterCommit++, index.upsert(docs)),
        withTransaction: (trx) => {
          const inner = index.withTransaction(trx);
          return { ...inner, upsert: (docs) => (refuse ? Promise.reject(new Error('the index refuses')) : inner.upsert(docs)) };
        },
      };
      const { repos, uow } = createSqlUnitOfWork(handle.db, { search: counted });
      const core = createCore({
        repos,
        uow,
        storage: createInMemoryFileStorage(),
        search: counted,
        clock: createFixedClock(),
        ids: createNanoidIds(),
        settings: { maxFileSize: 1024, maxFiles: 10, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
      });
      const alice = { userId: 'alice', linkIds: [] };
      const metadata = { title: 'Glacier retreat', publication_date: '2025', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }] };
      const id = (await core.records.createDraft(alice, 'resource', { metadata, files: { enabled: false } })).record.id;
      await core.records.publish(alice, 'resource', id);
      expect(afterCommit).toBe(0);
      expect((await core.records.search(anonymous, ['resource'], { q: 'glacier' })).hits.map((h) => h.record.id)).toEqual([id]);

      refuse = true;
      await core.records.newVersion(alice, 'resource', id);
      expect(afterCommit).toBeGreaterThan(0);
      expect(core.search.health().skipped).toBe(0);
    } finally {
      await handle.close();
    }
  });
});
