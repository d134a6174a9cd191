/**
 * Two nodes on one PostgreSQL: two pools, two cores, the same database. What one commits the
 * other reads at once; racing writes of the same record serialise or fail cleanly, never both.
 */
import { describe, expect, it } from 'vitest';
import { createCore, isDomainError, type Identity } from '@krs/domain';
import { createFixedClock, createInMemoryFileStorage, createInMemorySearchIndex } from '@krs/domain/testing';
import { createNanoidIds } from '../src/index.ts';
import { freshDatabase, openPostgres, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const alice: Identity = { userId: 'alice', linkIds: [] };
const creators = [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }];
const metadata = { title: 'Shared flood maps', publication_date: '2025', resource_type: { id: 'dataset' }, creators };

async function twoNodes() {
  const url = await freshDatabase();
  const storage = createInMemoryFileStorage();
  const node = async () => {
    const { repos, uow, close } = await openPostgres(url);
    const core = createCore({
      repos,
      uow,
      storage,
      search: createInMemorySearchIndex(),
      clock: createFixedClock(),
      ids: createNanoidIds(),
      settings: { maxFileSize: 1024, maxFiles: 10, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
    });
    return { core, repos, close };
  };
  return { a: await node(), b: await node() };
}

describe('two nodes on one PostgreSQL database', () => {
  it('publishes a draft once when both nodes publish it at the same moment', async () => {
    const { a, b } = await twoNodes();
    try {
      for (let round = 0; round < 5; round++) {
        const id = (await a.core.records.createDraft(alice, 'resource', { metadata, files: { enabled: false } })).record.id;
        const outcomes = await Promise.allSettled([a.core.records.publish(alice, 'resource', id), b.core.records.publish(alice, 'resource', id)]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        // The loser hears a client error (the draft is gone or changed), never a crash.
        expect(isDomainError(lost[0]?.reason) && ['conflict', 'not_found'].includes(lost[0].reason.kind)).toBe(true);
        const versions = await b.repos.records.listPublishedVersions((await b.repos.records.getPublished(id))?.parentId ?? '');
        expect(versions.map((v) => v.id)).toEqual([id]);
        expect(await a.repos.records.getDraft(id)).toBeNull();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps every access link two nodes create on one record at the same time, and each node reads the other at once', async () => {
    const { a, b } = await twoNodes();
    try {
      const id = (await a.core.records.createDraft(alice, 'resource', { metadata, files: { enabled: false } })).record.id;
      expect((await b.core.records.getDraft(alice, 'resource', id)).record.id).toBe(id);
      await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).core.accessLinks.create(alice, 'resource', id, { permission: 'view' })));
      const listed = await a.core.accessLinks.list(alice, 'resource', id);
      expect(listed).toHaveLength(8);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
