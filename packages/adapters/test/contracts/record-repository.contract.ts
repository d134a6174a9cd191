import { describe, expect, it } from 'vitest';
import type { DraftRecord } from '@krs/domain';
import { draft, parent, published, richPackageDraft } from './builders.ts';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

const rejectsMismatch = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ kind: 'conflict', code: 'revision.mismatch' });

export function recordRepositoryContract(name: string, make: MakeRepositories): void {
  describe(`record repository contract: ${name}`, () => {
    const open = closingAfterEach(make);
    const records = async () => (await open()).repos.records;

    it('has a change stamp that every committed write moves, and reads and refused writes leave as it is', async () => {
      const { repos, uow } = await open();
      const r = repos.records;
      const stamps = [await r.changeStamp()];
      const wrote = async (write: () => Promise<unknown>) => {
        await write();
        stamps.push(await r.changeStamp());
      };
      await wrote(() => r.saveParent(parent('p1'), null));
      await wrote(() => r.saveDraft(draft('d1', 'p1'), null));
      await wrote(() => r.savePublished(published('r1', 'p1'), null));
      await wrote(() => r.saveDraft(draft('d1', 'p1', { revisionId: 2 }), 1));
      await wrote(() => r.deleteDraft('d1'));
      await wrote(() => uow.run(async (tx) => tx.records.saveParent(parent('p1', { revisionId: 2 }), 1)));
      expect(stamps).not.toContain(null);
      expect(new Set(stamps).size).toBe(stamps.length);
      await r.getPublished('r1');
      await r.getPublishedRevisions('r1');
      await r.getParentsByIds(['p1']);
      await expect(r.saveParent(parent('p1', { revisionId: 3 }), 1)).rejects.toMatchObject({ code: 'revision.mismatch' });
      expect(await r.changeStamp()).toBe(stamps.at(-1));
    });

    it('has no change stamp inside a unit of work, which sees its own writes before anyone else', async () => {
      const { uow } = await open();
      expect(await uow.run(async (tx) => tx.records.changeStamp())).toBeNull();
    });

    it('round-trips drafts, published versions and parents as equal values', async () => {
      const r = await records();
      await r.saveParent(parent('p1', { kind: 'package', context: ['x'], accessLinks: [{ id: 'l', permission: 'view', createdAt: 'c', expiresAt: null, createdBy: 'u1' }] }), null);
      await r.saveDraft(richPackageDraft('d1', 'p1'), null);
      await r.savePublished(published('r1', 'p1'), null);
      expect(await r.getParent('p1')).toEqual(parent('p1', { kind: 'package', context: ['x'], accessLinks: [{ id: 'l', permission: 'view', createdAt: 'c', expiresAt: null, createdBy: 'u1' }] }));
      expect(await r.getDraft('d1')).toEqual(richPackageDraft('d1', 'p1'));
      expect(await r.getPublished('r1')).toEqual(published('r1', 'p1'));
    });

    it('answers null for what does not exist', async () => {
      const r = await records();
      expect(await r.getDraft('nope')).toBeNull();
      expect(await r.getPublished('nope')).toBeNull();
      expect(await r.getParent('nope')).toBeNull();
      expect(await r.listPublishedVersions('nope')).toEqual([]);
      expect(await r.listDrafts('nope')).toEqual([]);
    });

    it('reads the revisions of a published version and its parent, which every save of either changes', async () => {
      const r = await records();
      expect(await r.getPublishedRevisions('r1')).toBeNull();
      await r.savePublished(published('r1', 'p1', { kind: 'package' }), null);
      // A version whose parent is missing has no revisions to read.
      expect(await r.getPublishedRevisions('r1')).toBeNull();
      await r.saveParent(parent('p1', { kind: 'package' }), null);
      await r.saveDraft(draft('d1', 'p1'), null);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'package', revisionId: 1, parentRevisionId: 1, managerRevisionId: null });
      // A draft of the same id is not the published version.
      expect(await r.getPublishedRevisions('d1')).toBeNull();
      await r.savePublished(published('r1', 'p1', { kind: 'package', revisionId: 2 }), 1);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'package', revisionId: 2, parentRevisionId: 1, managerRevisionId: null });
      await r.saveParent(parent('p1', { kind: 'package', revisionId: 2 }), 1);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'package', revisionId: 2, parentRevisionId: 2, managerRevisionId: null });
    });

    it('reads the revisions of a draft and its parent, which every save of either changes', async () => {
      const r = await records();
      expect(await r.getDraftRevisions('d1')).toBeNull();
      await r.saveDraft(draft('d1', 'p1', { kind: 'package' }), null);
      // A draft whose parent is missing has no revisions to read.
      expect(await r.getDraftRevisions('d1')).toBeNull();
      await r.saveParent(parent('p1', { kind: 'package' }), null);
      await r.savePublished(published('r1', 'p1', { kind: 'package' }), null);
      expect(await r.getDraftRevisions('d1')).toEqual({ kind: 'package', revisionId: 1, parentRevisionId: 1, managerRevisionId: null });
      // A published version of the same id is not the draft.
      expect(await r.getDraftRevisions('r1')).toBeNull();
      await r.saveDraft(draft('d1', 'p1', { kind: 'package', revisionId: 2 }), 1);
      expect(await r.getDraftRevisions('d1')).toEqual({ kind: 'package', revisionId: 2, parentRevisionId: 1, managerRevisionId: null });
      await r.saveParent(parent('p1', { kind: 'package', revisionId: 2 }), 1);
      expect(await r.getDraftRevisions('d1')).toEqual({ kind: 'package', revisionId: 2, parentRevisionId: 2, managerRevisionId: null });
      await r.deleteDraft('d1');
      expect(await r.getDraftRevisions('d1')).toBeNull();
    });

    it('reads with the revisions of a managed resource the revision of the package parent holding it, which every save of that parent changes', async () => {
      const r = await records();
      await r.saveParent(parent('rp', { managedBy: 'pp' }), null);
      await r.savePublished(published('r1', 'rp'), null);
      await r.saveDraft(draft('d1', 'rp'), null);
      // A package parent not (or no longer) stored is no revision to read.
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: null });
      await r.saveParent(parent('pp', { kind: 'package', context: ['r1'] }), null);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: 1 });
      expect(await r.getDraftRevisions('d1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: 1 });
      await r.saveParent(parent('pp', { kind: 'package', context: ['r1'], revisionId: 2 }), 1);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: 2 });
      // Dissociated: the package's writes no longer concern it.
      await r.saveParent(parent('rp', { managedBy: null, revisionId: 2 }), 1);
      expect(await r.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 2, managerRevisionId: null });
    });

    it('keeps a draft and a published version of the same id apart', async () => {
      const r = await records();
      await r.savePublished(published('r1', 'p1', { metadata: { title: 'Published' } }), null);
      await r.saveDraft(draft('r1', 'p1', { metadata: { title: 'Edited' }, isEditOfPublished: true }), null);
      expect((await r.getPublished('r1'))?.metadata).toEqual({ title: 'Published' });
      expect((await r.getDraft('r1'))?.metadata).toEqual({ title: 'Edited' });
      await r.deleteDraft('r1');
      expect(await r.getDraft('r1')).toBeNull();
      expect(await r.getPublished('r1')).not.toBeNull();
    });

    it('does not let callers change stored values by mutating what they passed or got', async () => {
      const r = await records();
      const d = draft('d1', 'p1');
      await r.saveDraft(d, null);
      d.metadata['title'] = 'changed after save';
      const got = await r.getDraft('d1');
      expect(got?.metadata['title']).toBe('Sea ice extent');
      if (got) got.files.order.push('x');
      expect((await r.getDraft('d1'))?.files.order).toEqual([]);
    });

    it('refuses inserting an id that exists, for drafts, published versions and parents', async () => {
      const r = await records();
      await r.saveDraft(draft('d1', 'p1'), null);
      await r.savePublished(published('r1', 'p1'), null);
      await r.saveParent(parent('p1'), null);
      await rejectsMismatch(r.saveDraft(draft('d1', 'p1', { metadata: { title: 'other' } }), null));
      await rejectsMismatch(r.savePublished(published('r1', 'p1', { metadata: { title: 'other' } }), null));
      await rejectsMismatch(r.saveParent(parent('p1', { ownerId: 'other' }), null));
      expect((await r.getDraft('d1'))?.metadata).toEqual({ title: 'Sea ice extent' });
      expect((await r.getParent('p1'))?.ownerId).toBe('u1');
    });

    it('updates only from the current revision', async () => {
      const r = await records();
      await r.saveDraft(draft('d1', 'p1'), null);
      await r.saveDraft(draft('d1', 'p1', { revisionId: 2, metadata: { title: 'Second' } }), 1);
      await rejectsMismatch(r.saveDraft(draft('d1', 'p1', { revisionId: 3, metadata: { title: 'Stale' } }), 1));
      expect(await r.getDraft('d1')).toEqual(draft('d1', 'p1', { revisionId: 2, metadata: { title: 'Second' } }));

      await r.savePublished(published('r1', 'p1'), null);
      await r.savePublished(published('r1', 'p1', { revisionId: 2 }), 1);
      await rejectsMismatch(r.savePublished(published('r1', 'p1', { revisionId: 3 }), 5));
      expect((await r.getPublished('r1'))?.revisionId).toBe(2);

      await r.saveParent(parent('p1'), null);
      await r.saveParent(parent('p1', { revisionId: 2, latestPublishedId: 'r1' }), 1);
      await rejectsMismatch(r.saveParent(parent('p1', { revisionId: 3 }), 1));
      expect(await r.getParent('p1')).toEqual(parent('p1', { revisionId: 2, latestPublishedId: 'r1' }));
    });

    it('refuses updating what does not exist', async () => {
      const r = await records();
      await rejectsMismatch(r.saveDraft(draft('d1', 'p1'), 1));
      await rejectsMismatch(r.savePublished(published('r1', 'p1'), 1));
      await rejectsMismatch(r.saveParent(parent('p1'), 1));
      expect(await r.getDraft('d1')).toBeNull();
      expect(await r.getParent('p1')).toBeNull();
    });

    it('deletes drafts, and deleting a missing draft is fine', async () => {
      const r = await records();
      await r.saveDraft(draft('d1', 'p1'), null);
      await r.deleteDraft('d1');
      await r.deleteDraft('d1');
      expect(await r.getDraft('d1')).toBeNull();
      // A deleted draft's id can be inserted again.
      await r.saveDraft(draft('d1', 'p1'), null);
      expect(await r.getDraft('d1')).not.toBeNull();
    });

    it('lists the published versions of a parent highest index first, and its drafts', async () => {
      const r = await records();
      await r.savePublished(published('r2', 'p1', { versionIndex: 2 }), null);
      await r.savePublished(published('r1', 'p1', { versionIndex: 1 }), null);
      await r.savePublished(published('r3', 'p1', { versionIndex: 3 }), null);
      await r.savePublished(published('x1', 'p2'), null);
      await r.saveDraft(draft('d4', 'p1', { versionIndex: 4 }), null);
      await r.saveDraft(draft('r2', 'p1', { versionIndex: 2 }), null);
      await r.saveDraft(draft('y1', 'p2'), null);
      expect((await r.listPublishedVersions('p1')).map((v) => v.id)).toEqual(['r3', 'r2', 'r1']);
      expect((await r.listPublishedVersions('p1'))[0]).toEqual(published('r3', 'p1', { versionIndex: 3 }));
      expect((await r.listDrafts('p1')).map((d) => d.id).sort()).toEqual(['d4', 'r2']);
    });

    it('reads a draft without its metadata, small or large, as it reads the rest of it', async () => {
      const r = await records();
      const large = draft('d2', 'p1', { metadata: { title: 'Large', description: '"metadata": {'.repeat(30_000), related: { metadata: 1 } } });
      await r.saveDraft(richPackageDraft('d1', 'p1'), null);
      await r.saveDraft(large, null);
      for (const id of ['d1', 'd2']) {
        const { metadata: _metadata, ...rest } = (await r.getDraft(id)) as DraftRecord;
        const read = await r.getDraftWithoutMetadata(id);
        expect(read).toEqual(rest);
        expect(read).not.toHaveProperty('metadata');
      }
      expect(await r.getDraftWithoutMetadata('nope')).toBeNull();
    });

    it('lists a known draft as the value given while its stored revision is the known one, and as stored once it is not', async () => {
      const r = await records();
      await r.saveDraft(draft('d1', 'p1'), null);
      await r.saveDraft(draft('d2', 'p1', { versionIndex: 2 }), null);
      const saved = draft('d1', 'p1');
      const listed = await r.listDrafts('p1', [saved]);
      expect(listed.map((d) => d.id).sort()).toEqual(['d1', 'd2']);
      expect(listed.find((d) => d.id === 'd1')).toBe(saved);
      expect(listed.find((d) => d.id === 'd2')).toEqual(draft('d2', 'p1', { versionIndex: 2 }));
      await r.saveDraft(draft('d1', 'p1', { revisionId: 2, updated: '2031-01-01T00:00:00+00:00' }), 1);
      const after = await r.listDrafts('p1', [saved]);
      expect(after.find((d) => d.id === 'd1')).toEqual(draft('d1', 'p1', { revisionId: 2, updated: '2031-01-01T00:00:00+00:00' }));
      await r.deleteDraft('d1');
      expect((await r.listDrafts('p1', [saved])).map((d) => d.id)).toEqual(['d2']);
    });

    it('lists the heads of a parent\'s published versions in the same order, as each version now is', async () => {
      const r = await records();
      const embargoed = { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2031-05-01', reason: 'Field season.' } } as const;
      await r.savePublished(published('r2', 'p1', { versionIndex: 2, created: '2026-02-01T00:00:00.000Z', access: embargoed }), null);
      await r.savePublished(published('r1', 'p1', { versionIndex: 1 }), null);
      await r.savePublished(published('x1', 'p2'), null);
      const head = (v: ReturnType<typeof published>) => ({ id: v.id, versionIndex: v.versionIndex, created: v.created, updated: v.updated, access: v.access });
      const versions = async () => (await r.listPublishedVersions('p1')).map(head);
      expect(await r.listVersionHeads('p1')).toEqual(await versions());
      expect((await r.listVersionHeads('p1'))[0]).toEqual(expect.objectContaining({ id: 'r2', versionIndex: 2, access: embargoed }));
      // An edit of a published version changes its head with it.
      const r1 = await r.getPublished('r1');
      await r.savePublished({ ...(r1 as ReturnType<typeof published>), updated: '2026-06-01T00:00:00.000Z', access: { ...embargoed, embargo: { active: false, until: null, reason: null } }, revisionId: 2 }, 1);
      expect(await r.listVersionHeads('p1')).toEqual(await versions());
      expect((await r.listVersionHeads('p1'))[1]).toEqual(expect.objectContaining({ id: 'r1', updated: '2026-06-01T00:00:00.000Z' }));
      expect(await r.listVersionHeads('nope')).toEqual([]);
    });

    it('lists parent ids by kind, and those updated strictly after a time', async () => {
      const r = await records();
      await r.saveParent(parent('p1', { updated: '2026-01-01T00:00:00.000Z' }), null);
      await r.saveParent(parent('p2', { updated: '2026-02-01T00:00:00.000Z' }), null);
      await r.saveParent(parent('k1', { kind: 'package', updated: '2026-03-01T00:00:00.000Z' }), null);
      expect((await r.listParentIds(['resource'])).sort()).toEqual(['p1', 'p2']);
      expect((await r.listParentIds(['package'])).sort()).toEqual(['k1']);
      expect((await r.listParentIds(['resource', 'package'])).sort()).toEqual(['k1', 'p1', 'p2']);
      expect(await r.listParentIds([])).toEqual([]);
      expect((await r.listParentIds(['resource', 'package'], '2026-01-15T00:00:00.000Z')).sort()).toEqual(['k1', 'p2']);
      expect(await r.listParentIds(['resource'], '2026-02-01T00:00:00.000Z')).toEqual([]);
      await r.saveParent(parent('p1', { revisionId: 2, updated: '2026-04-01T00:00:00.000Z' }), 1);
      expect((await r.listParentIds(['resource'], '2026-03-01T00:00:00.000Z')).sort()).toEqual(['p1']);
    });

    it('lists published versions whose embargo day has come, in id order and up to a limit', async () => {
      const r = await records();
      const embargo = (active: boolean, until: string | null) => ({ access: { record: 'public' as const, files: 'restricted' as const, embargo: { active, until, reason: null } } });
      await r.savePublished(published('r3', 'p1', embargo(true, '2026-01-01')), null);
      await r.savePublished(published('r1', 'p1', embargo(true, '2026-03-01')), null);
      await r.savePublished(published('r2', 'p1', embargo(true, '2026-03-02')), null);
      await r.savePublished(published('r4', 'p1', embargo(false, '2020-01-01')), null);
      await r.savePublished(published('r5', 'p1'), null);
      expect(await r.listLapsedEmbargoes('2026-03-01', 10)).toEqual(['r1', 'r3']);
      expect(await r.listLapsedEmbargoes('2026-03-01', 1)).toEqual(['r1']);
      expect(await r.listLapsedEmbargoes('2025-12-31', 10)).toEqual([]);
    });

    it('reads several drafts, published versions and parents at once, leaving out ids that do not exist', async () => {
      const r = await records();
      await r.saveParent(parent('p1'), null);
      await r.saveParent(parent('p2'), null);
      await r.saveDraft(draft('d1', 'p1'), null);
      await r.savePublished(published('r1', 'p1'), null);
      await r.savePublished(published('r2', 'p2'), null);
      const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();
      expect(ids(await r.getPublishedByIds(['r2', 'nope', 'r1', 'd1', 'r1']))).toEqual(['r1', 'r2']);
      expect(ids(await r.getDraftsByIds(['d1', 'r1']))).toEqual(['d1']);
      expect(ids(await r.getParentsByIds(['p2', 'p1', 'p3']))).toEqual(['p1', 'p2']);
      expect(await r.getPublishedByIds([])).toEqual([]);
      expect((await r.getPublishedByIds(['r1']))[0]).toEqual(published('r1', 'p1'));
      const many = Array.from({ length: 1200 }, (_, i) => `x${i}`).concat('r2');
      expect(ids(await r.getPublishedByIds(many))).toEqual(['r2']);
    });

    it('reads large drafts and published versions by ids whole, however many statements they take', async () => {
      const r = await records();
      await r.saveParent(parent('p1'), null);
      const big = (id: string) => ({ metadata: { title: `${id} ${'ö word '.repeat(40_000)}` } });
      const saved = ['r1', 'r2', 'r3'].map((id) => published(id, 'p1', big(id)));
      for (const record of saved) await r.savePublished(record, null);
      await r.savePublished(published('r4', 'p1'), null);
      await r.saveDraft(draft('d1', 'p1', big('d1')), null);
      await r.saveDraft(draft('d2', 'p1', big('d2')), null);
      const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));
      expect(byId(await r.getPublishedByIds(['r3', 'r4', 'r1', 'r2', 'r1']))).toEqual([...saved, published('r4', 'p1')]);
      expect((await r.getDraftsByIds(['d2', 'd1'])).map((d) => d.id).sort()).toEqual(['d1', 'd2']);
    });

    it('weighs stored drafts and published versions by id without reading them, in proportion to what they hold', async () => {
      const r = await records();
      await r.saveParent(parent('p1'), null);
      const big = (id: string, words: number) => ({ metadata: { title: `${id} ${'ö word '.repeat(words)}` } });
      await r.saveDraft(draft('d1', 'p1', big('d1', 10)), null);
      await r.savePublished(published('r1', 'p1', big('r1', 10)), null);
      await r.savePublished(published('r2', 'p1', big('r2', 20_000)), null);
      const published_ = await r.storedSizes('published', ['r2', 'r1', 'd1', 'nope', 'r1']);
      expect([...published_.keys()].sort()).toEqual(['r1', 'r2']);
      const drafts = await r.storedSizes('draft', ['d1', 'r1']);
      expect([...drafts.keys()]).toEqual(['d1']);
      // Close to the record as JSON: r2's title holds 139,930 characters (159,920 bytes) more than r1's.
      const grew = (published_.get('r2') as number) - (published_.get('r1') as number);
      expect(grew).toBeGreaterThanOrEqual(130_000);
      expect(grew).toBeLessThan(200_000);
      expect(await r.storedSizes('published', [])).toEqual(new Map());
      // One id, as a record GET asks, by a statement of its own.
      expect(await r.storedSizes('published', ['r2'])).toEqual(new Map([['r2', published_.get('r2')]]));
      expect(await r.storedSizes('draft', ['d1'])).toEqual(new Map([['d1', drafts.get('d1')]]));
      expect(await r.storedSizes('draft', ['r1'])).toEqual(new Map());
      const many = Array.from({ length: 1200 }, (_, i) => `x${i}`).concat('r2');
      expect([...(await r.storedSizes('published', many)).keys()]).toEqual(['r2']);
    });

    /** Four published versions, two sharing an instant, and a draft between them in time. */
    const walkOfFour = async () => {
      const r = await records();
      const at = (updated: string) => ({ updated });
      await r.savePublished(published('b', 'p1', at('2026-01-02T10:00:00.000Z')), null);
      await r.savePublished(published('a', 'p1', at('2026-01-02T10:00:00.000Z')), null);
      await r.savePublished(published('c', 'p2', at('2026-01-01T00:00:00.000Z')), null);
      await r.savePublished(published('d', 'p2', at('2026-01-03T23:59:59.999Z')), null);
      await r.saveDraft(draft('e', 'p3', { updated: '2026-01-02T00:00:00.000Z' }), null);
      return r;
    };

    it('walks published versions in update order, ties by id, between bounds and after a position', async () => {
      const r = await walkOfFour();
      const ids = async (q: Parameters<typeof r.listPositionsByUpdate>[0]) => (await r.listPositionsByUpdate(q)).map((x) => x.id);
      expect(await ids({ limit: 10 })).toEqual(['c', 'a', 'b', 'd']);
      expect(await ids({ limit: 2 })).toEqual(['c', 'a']);
      expect(await ids({ limit: 10, after: { updated: '2026-01-02T10:00:00.000Z', id: 'a' } })).toEqual(['b', 'd']);
      expect(await ids({ limit: 10, from: '2026-01-02T00:00:00.000Z', until: '2026-01-02T23:59:59.999Z' })).toEqual(['a', 'b']);
      expect(await ids({ limit: 10, until: '2026-01-01T00:00:00.000Z' })).toEqual(['c']);
      expect(await ids({ limit: 10, from: '2026-01-04T00:00:00.000Z' })).toEqual([]);
      // A version re-saved with a later instant moves to the end of the walk.
      await r.savePublished(published('c', 'p2', { updated: '2026-02-01T00:00:00.000Z', revisionId: 2 }), 1);
      expect(await ids({ limit: 10 })).toEqual(['a', 'b', 'd', 'c']);
      const [first] = await r.listPositionsByUpdate({ limit: 1 });
      expect(first).toEqual({ updated: '2026-01-02T10:00:00.000Z', id: 'a', bytes: expect.any(Number) });
      // Each step's size is the one storedSizes gives.
      expect(first?.bytes).toBe((await r.storedSizes('published', ['a'])).get('a'));
    });

    it('tells where the walk by update stands a number of versions on, to cut it into parts without reading them', async () => {
      const r = await walkOfFour();
      // The walk: c, a, b, d (the draft is no part of it).
      const pos = (updated: string, id: string) => ({ updated, id });
      expect(await r.positionAfter(undefined, 1)).toEqual({ position: pos('2026-01-01T00:00:00.000Z', 'c'), full: true });
      expect(await r.positionAfter(undefined, 3)).toEqual({ position: pos('2026-01-02T10:00:00.000Z', 'b'), full: true });
      expect(await r.positionAfter(undefined, 4)).toEqual({ position: pos('2026-01-03T23:59:59.999Z', 'd'), full: true });
      expect(await r.positionAfter(undefined, 5)).toEqual({ position: pos('2026-01-03T23:59:59.999Z', 'd'), full: false });
      // Ties on the instant go by id, after the position given.
      expect(await r.positionAfter(pos('2026-01-02T10:00:00.000Z', 'a'), 1)).toEqual({ position: pos('2026-01-02T10:00:00.000Z', 'b'), full: true });
      expect(await r.positionAfter(pos('2026-01-02T10:00:00.000Z', 'a'), 3)).toEqual({ position: pos('2026-01-03T23:59:59.999Z', 'd'), full: false });
      expect(await r.positionAfter(pos('2026-01-03T23:59:59.999Z', 'd'), 2)).toBeNull();
      // The positions it gives are where listPositionsByUpdate takes up the walk.
      const first = await r.positionAfter(undefined, 2);
      expect((await r.listPositionsByUpdate({ after: first?.position, limit: 10 })).map((x) => x.id)).toEqual(['b', 'd']);
    });
  });
}
