import { describe, expect, it } from 'vitest';
import type { Repositories, UnitOfWork } from '@krs/domain';
import { draft, fileEntry, parent, published } from './builders.ts';

export type MakeRepositories = () => Promise<{ repos: Repositories; uow: UnitOfWork; close?: () => Promise<void> }>;

const rejectsConflict = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ kind: 'conflict', code: 'revision.mismatch' });

export function repositoriesContract(name: string, make: MakeRepositories): void {
  describe(`repositories contract: ${name}`, () => {
    it('round-trips drafts, published versions and parents as equal values', async () => {
      const { repos, close } = await make();
      await repos.records.saveParent(parent('p1'), null);
      await repos.records.saveDraft(draft('d1', 'p1'), null);
      await repos.records.savePublished(published('r1', 'p1'), null);
      expect(await repos.records.getParent('p1')).toEqual(parent('p1'));
      expect(await repos.records.getDraft('d1')).toEqual(draft('d1', 'p1'));
      expect(await repos.records.getPublished('r1')).toEqual(published('r1', 'p1'));
      expect(await repos.records.getDraft('nope')).toBeNull();
      await close?.();
    });

    it('refuses a duplicate insert and a stale revision', async () => {
      const { repos, close } = await make();
      await repos.records.saveDraft(draft('d1', 'p1'), null);
      await rejectsConflict(repos.records.saveDraft(draft('d1', 'p1'), null));
      await repos.records.saveDraft(draft('d1', 'p1', { revisionId: 2 }), 1);
      await rejectsConflict(repos.records.saveDraft(draft('d1', 'p1', { revisionId: 3 }), 1));
      await repos.records.saveParent(parent('p1'), null);
      await rejectsConflict(repos.records.saveParent(parent('p1', { revisionId: 2 }), 7));
      expect((await repos.records.getDraft('d1'))?.revisionId).toBe(2);
      await close?.();
    });

    it('lists versions newest first, drafts of a parent, and parents changed since a time', async () => {
      const { repos, close } = await make();
      await repos.records.savePublished(published('r1', 'p1', { versionIndex: 1 }), null);
      await repos.records.savePublished(published('r2', 'p1', { versionIndex: 2 }), null);
      await repos.records.savePublished(published('x1', 'p2'), null);
      await repos.records.saveDraft(draft('d3', 'p1', { versionIndex: 3 }), null);
      expect((await repos.records.listPublishedVersions('p1')).map((r) => r.id)).toEqual(['r2', 'r1']);
      expect((await repos.records.listDrafts('p1')).map((r) => r.id)).toEqual(['d3']);
      await repos.records.saveParent(parent('p1', { updated: '2026-01-01T00:00:00.000Z' }), null);
      await repos.records.saveParent(parent('p2', { updated: '2026-02-01T00:00:00.000Z' }), null);
      await repos.records.saveParent(parent('k1', { kind: 'package' }), null);
      expect((await repos.records.listParentIds(['resource'])).sort()).toEqual(['p1', 'p2']);
      expect(await repos.records.listParentIds(['resource', 'package'], '2026-01-15T00:00:00.000Z')).toEqual(['p2']);
      await close?.();
    });

    it('keeps file entries per owner and key', async () => {
      const { repos, close } = await make();
      const draftSide = { recordId: 'r1', state: 'draft' as const };
      const publishedSide = { recordId: 'r1', state: 'published' as const };
      await repos.files.save(draftSide, fileEntry('b.txt'));
      await repos.files.save(draftSide, fileEntry('a.txt'));
      await repos.files.save(draftSide, fileEntry('a.txt', { status: 'completed' }));
      await repos.files.save(publishedSide, fileEntry('a.txt'));
      expect((await repos.files.list(draftSide)).map((e) => e.key)).toEqual(['a.txt', 'b.txt']);
      expect((await repos.files.get(draftSide, 'a.txt'))?.status).toBe('completed');
      expect(await repos.files.count(draftSide)).toBe(2);
      await repos.files.delete(draftSide, 'b.txt');
      await repos.files.deleteAll(publishedSide);
      expect(await repos.files.count(draftSide)).toBe(1);
      expect(await repos.files.list(publishedSide)).toEqual([]);
      await close?.();
    });

    it('keeps users unique by email and finds tokens by hash', async () => {
      const { repos, close } = await make();
      await repos.users.create({ id: 'u1', email: 'a@example.org', created: '2026-01-01T00:00:00.000Z' });
      await expect(repos.users.create({ id: 'u2', email: 'a@example.org', created: '2026-01-01T00:00:00.000Z' })).rejects.toMatchObject({ kind: 'conflict' });
      await repos.users.addToken({ id: 't1', userId: 'u1', name: 'cli', hash: 'abc', created: '2026-01-01T00:00:00.000Z' });
      expect((await repos.users.findTokenByHash('abc'))?.userId).toBe('u1');
      expect(await repos.users.findTokenByHash('nope')).toBeNull();
      expect((await repos.users.getByEmail('a@example.org'))?.id).toBe('u1');
      await close?.();
    });

    it('upserts vocabulary entries idempotently', async () => {
      const { repos, close } = await make();
      const entry = { type: 'target_audiences' as const, id: 'tu-a', title: { en: 'A' } };
      await repos.vocabularies.upsert([entry, { ...entry, id: 'tu-b' }]);
      await repos.vocabularies.upsert([{ ...entry, title: { en: 'A again' } }]);
      expect(await repos.vocabularies.count('target_audiences')).toBe(2);
      expect((await repos.vocabularies.get('target_audiences', ['tu-a', 'zz'])).get('tu-a')?.title).toEqual({ en: 'A again' });
      await close?.();
    });

    it('commits all of a unit of work or nothing', async () => {
      const { repos, uow, close } = await make();
      await uow.run(async (tx) => {
        await tx.records.saveParent(parent('p1'), null);
        await tx.records.saveDraft(draft('d1', 'p1'), null);
      });
      await expect(
        uow.run(async (tx) => {
          await tx.records.saveDraft(draft('d2', 'p1'), null);
          await tx.files.save({ recordId: 'd2', state: 'draft' }, fileEntry('x'));
          throw new Error('crash mid-way');
        }),
      ).rejects.toThrow('crash mid-way');
      expect(await repos.records.getDraft('d1')).not.toBeNull();
      expect(await repos.records.getDraft('d2')).toBeNull();
      expect(await repos.files.count({ recordId: 'd2', state: 'draft' })).toBe(0);
      await close?.();
    });
  });
}
