/**
 * What every hot read reads first on the embedded store (a read stamp's revisions, a bearer
 * token, a create's vocabulary entries): read on a connection of their own, they are the committed rows, even while a unit of
 * work holds the main connection in the middle of its transaction.
 */
import { describe, expect, it } from 'vitest';
import { readWhileUncommitted } from './contracts/uncommitted.ts';
import { parent, published, token, user, vocabularyEntry } from './contracts/builders.ts';
import { openSqlite } from './sqlite-fixture.ts';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';

describe('the revisions of a published version on SQLite', () => {
  it('are the committed ones, never those of a unit of work that has not committed yet', async () => {
    const { repos, uow, close } = await openSqlite();
    try {
      await repos.records.saveParent(parent('p1'), null);
      await repos.records.savePublished(published('r1', 'p1'), null);
      expect(await repos.records.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: null });

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
      expect(during).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: null });
      expect(await repos.records.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 2, parentRevisionId: 2, managerRevisionId: null });
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

describe('a vocabulary entry on SQLite', () => {
  it('is the committed one, never one a unit of work has imported and not yet committed', async () => {
    const { repos, uow, close } = await openSqlite();
    try {
      await repos.vocabularies.upsert([vocabularyEntry('roles', 'editor')]);
      let commit = () => {};
      let written = () => {};
      const wrote = new Promise<void>((ok) => (written = ok));
      const unit = uow.run(async (tx) => {
        await tx.vocabularies.upsert([vocabularyEntry('roles', 'editor', { title: { en: 'Changed' } }), vocabularyEntry('roles', 'other')]);
        written();
        await new Promise<void>((ok) => (commit = ok));
      });
      await wrote;
      const during = [await repos.vocabularies.get('roles', ['editor']), await repos.vocabularies.get('roles', ['other'])];
      commit();
      await unit;
      expect(during.map((found) => [...found.values()])).toEqual([[vocabularyEntry('roles', 'editor')], []]);
      expect((await repos.vocabularies.get('roles', ['editor'])).get('editor')).toEqual(vocabularyEntry('roles', 'editor', { title: { en: 'Changed' } }));
      expect((await repos.vocabularies.get('roles', ['other'])).get('other')).toEqual(vocabularyEntry('roles', 'other'));
    } finally {
      await close();
    }
  });
});

describe('the change stamp on SQLite', () => {
  it("moves with another process's commit, and not while a unit of work has yet to commit", async () => {
    const { repos, uow, close, file } = await openSqlite();
    const other = new Database(file);
    try {
      await repos.records.saveParent(parent('p1'), null);
      const before = await repos.records.changeStamp();
      // Any commit of another connection, whichever table (or header) it writes.
      other.pragma('user_version = 7');
      const afterOther = await repos.records.changeStamp();
      expect(afterOther).not.toBe(before);

      expect(await readWhileUncommitted(uow, () => repos.records.changeStamp())).toBe(afterOther);
      expect(await repos.records.changeStamp()).not.toBe(afterOther);
    } finally {
      other.close();
      await close();
    }
  });
});
