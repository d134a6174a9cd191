/**
 * What every hot read reads first on the embedded store (a read stamp's revisions, a bearer
 * token): read on a connection of their own, they are the committed rows, even while a unit of
 * work holds the main connection in the middle of its transaction.
 */
import { describe, expect, it } from 'vitest';
import { parent, published, token, user } from './contracts/builders.ts';
import { openSqlite } from './sqlite-fixture.ts';

describe('the revisions of a published version on SQLite', () => {
  it('are the committed ones, never those of a unit of work that has not committed yet', async () => {
    const { repos, uow, close } = await openSqlite();
    try {
      await repos.records.saveParent(parent('p1'), null);
      await repos.records.savePublished(published('r1', 'p1'), null);
      expect(await repos.records.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1 });

      let commit = () => {};
      let written = () => {};
      const wrote = new Promise<void>((ok) => (written = ok));
      const unit = uow.run(async (tx) => {
        await tx.records.savePublished(published('r1', 'p1', { revisionId: 2 }), 1);
        await tx.records.saveParent(parent('p1', { revisionId: 2 }), 1);
        written();
        await new Promise<void>((ok) => (commit = ok));
      });
      await wrote;
      // Read while the unit's transaction is open on the main connection.
      const during = await repos.records.getPublishedRevisions('r1');
      commit();
      await unit;
      expect(during).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1 });
      expect(await repos.records.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 2, parentRevisionId: 2 });
    } finally {
      await close();
    }
  });

  it('finds a bearer token once the unit of work that adds it has committed, not before', async () => {
    const { repos, uow, close } = await openSqlite();
    try {
      await repos.users.create(user('u1'));
      let commit = () => {};
      let written = () => {};
      const wrote = new Promise<void>((ok) => (written = ok));
      const unit = uow.run(async (tx) => {
        await tx.users.addToken(token('t1', 'u1', 'digest-1'));
        written();
        await new Promise<void>((ok) => (commit = ok));
      });
      await wrote;
      const during = await repos.users.findTokenByHash('digest-1');
      commit();
      await unit;
      expect(during).toBeNull();
      expect(await repos.users.findTokenByHash('digest-1')).toEqual(token('t1', 'u1', 'digest-1'));
    } finally {
      await close();
    }
  });
});
