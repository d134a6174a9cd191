import { describe, expect, it } from 'vitest';
import type { Repositories } from '@krs/domain';
import { draft, fileEntry, parent, published, token, user, vocabularyEntry } from './builders.ts';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

const owner = { recordId: 'd1', state: 'draft' as const };

/** One write through every repository. */
async function writeEverything(tx: Repositories): Promise<void> {
  await tx.records.saveParent(parent('p1'), null);
  await tx.records.saveDraft(draft('d1', 'p1'), null);
  await tx.records.savePublished(published('r1', 'p1'), null);
  await tx.files.save(owner, fileEntry('a.txt'));
  await tx.users.create(user('u1'));
  await tx.users.addToken(token('t1', 'u1'));
  await tx.vocabularies.upsert([vocabularyEntry('roles', 'editor')]);
}

async function seesNothing(repos: Repositories): Promise<void> {
  expect(await repos.records.getParent('p1')).toBeNull();
  expect(await repos.records.getDraft('d1')).toBeNull();
  expect(await repos.records.getPublished('r1')).toBeNull();
  expect(await repos.files.count(owner)).toBe(0);
  expect(await repos.users.getById('u1')).toBeNull();
  expect(await repos.users.findTokenByHash('hash-t1')).toBeNull();
  expect(await repos.vocabularies.count('roles')).toBe(0);
}

/** A promise and the function that resolves it, to hold a transaction open. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

export function unitOfWorkContract(name: string, make: MakeRepositories): void {
  describe(`unit of work contract: ${name}`, () => {
    const open = closingAfterEach(make);

    it('answers a readiness check on a working database', async () => {
      const { uow } = await open();
      await expect(uow.check()).resolves.toBeUndefined();
    });

    it('commits every write of a run that resolves, and returns its value', async () => {
      const { repos, uow } = await open();
      expect(
        await uow.run(async (tx) => {
          await writeEverything(tx);
          // Reads inside the run see its own writes.
          expect(await tx.records.getDraft('d1')).not.toBeNull();
          return 42;
        }),
      ).toBe(42);
      expect(await repos.records.getParent('p1')).toEqual(parent('p1'));
      expect(await repos.records.getDraft('d1')).toEqual(draft('d1', 'p1'));
      expect(await repos.records.getPublished('r1')).toEqual(published('r1', 'p1'));
      expect(await repos.files.count(owner)).toBe(1);
      expect(await repos.users.getById('u1')).toEqual(user('u1'));
      expect((await repos.users.findTokenByHash('hash-t1'))?.id).toBe('t1');
      expect(await repos.vocabularies.count('roles')).toBe(1);
    });

    it('keeps nothing of a run that throws, and rethrows the same error', async () => {
      const { repos, uow } = await open();
      const crash = new Error('crash mid-way');
      await expect(
        uow.run(async (tx) => {
          await writeEverything(tx);
          throw crash;
        }),
      ).rejects.toBe(crash);
      await seesNothing(repos);
    });

    it('rolls back earlier writes when a later save of the run conflicts', async () => {
      const { repos, uow } = await open();
      await repos.records.saveParent(parent('p1'), null);
      await expect(
        uow.run(async (tx) => {
          await tx.records.saveDraft(draft('d1', 'p1'), null);
          await tx.records.saveParent(parent('p1', { revisionId: 2 }), 7);
        }),
      ).rejects.toMatchObject({ kind: 'conflict', code: 'revision.mismatch' });
      expect(await repos.records.getDraft('d1')).toBeNull();
      expect((await repos.records.getParent('p1'))?.revisionId).toBe(1);
    });

    it('undoes updates and deletes too, not only inserts', async () => {
      const { repos, uow } = await open();
      await uow.run(writeEverything);
      await expect(
        uow.run(async (tx) => {
          await tx.records.saveParent(parent('p1', { revisionId: 2, ownerId: 'u9' }), 1);
          await tx.records.deleteDraft('d1');
          await tx.files.deleteAll(owner);
          await tx.vocabularies.upsert([vocabularyEntry('roles', 'editor', { title: { en: 'Changed' } })]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await repos.records.getParent('p1')).toEqual(parent('p1'));
      expect(await repos.records.getDraft('d1')).toEqual(draft('d1', 'p1'));
      expect(await repos.files.count(owner)).toBe(1);
      expect((await repos.vocabularies.get('roles', ['editor'])).get('editor')?.title).toEqual({ en: 'Title of editor' });
    });

    it('never shows uncommitted writes outside the run', async () => {
      const { repos, uow } = await open();
      const written = gate();
      const release = gate();
      const run = uow.run(async (tx) => {
        await writeEverything(tx);
        written.open();
        await release.opened;
        throw new Error('rolled back');
      });
      await written.opened;
      // Depending on the implementation this read answers now or once the run has ended; either
      // way it must not see the run's writes.
      const outside = seesNothing(repos);
      release.open();
      await expect(run).rejects.toThrow('rolled back');
      await outside;
      await seesNothing(repos);
    });

    it('runs concurrent units of work one after the other, so read-decide-write never loses an update', async () => {
      const { repos, uow } = await open();
      await repos.records.saveParent(parent('p1'), null);
      const addToContext = (item: string) =>
        uow.run(async (tx) => {
          const current = await tx.records.getParent('p1');
          if (!current) throw new Error('missing parent');
          await new Promise((resolve) => setTimeout(resolve, 5));
          await tx.records.saveParent({ ...current, context: [...current.context, item], revisionId: current.revisionId + 1 }, current.revisionId);
        });
      await Promise.all([addToContext('a'), addToContext('b'), addToContext('c')]);
      const final = await repos.records.getParent('p1');
      expect(final?.revisionId).toBe(4);
      expect(final?.context.slice().sort()).toEqual(['a', 'b', 'c']);
    });

    it('keeps working after a failed run', async () => {
      const { repos, uow } = await open();
      await expect(uow.run(async () => Promise.reject(new Error('first fails')))).rejects.toThrow('first fails');
      await uow.run(async (tx) => tx.records.saveParent(parent('p1'), null));
      expect(await repos.records.getParent('p1')).not.toBeNull();
    });

    it('keeps each of many concurrent runs apart: the ones that resolve commit, the ones that throw leave nothing, each caller gets its own outcome', async () => {
      const { repos, uow } = await open();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          uow.run(async (tx) => {
            await tx.records.saveParent(parent(`p${i}`), null);
            if (i % 3 === 0) throw new Error(`unit ${i} fails`);
            return i;
          }),
        ),
      );
      outcomes.forEach((o, i) => {
        if (i % 3 === 0) expect(o).toMatchObject({ status: 'rejected', reason: { message: `unit ${i} fails` } });
        else expect(o).toEqual({ status: 'fulfilled', value: i });
      });
      for (let i = 0; i < 40; i++) expect(await repos.records.getParent(`p${i}`), `p${i}`).toEqual(i % 3 === 0 ? null : parent(`p${i}`));
    });
  });
}
