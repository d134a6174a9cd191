/** With PostgreSQL, a unit of work writes its records' search documents in its own transaction. */
import { describe, expect, it } from 'vitest';
import type { SearchRequest } from '@krs/domain';
import { createPgDb, createPostgresSearchIndex, createPostgresSearchSchema, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { draft, parent, published } from './contracts/builders.ts';
import { freshDatabase } from './postgres-fixture.ts';

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
});
