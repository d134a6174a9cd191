import { describe, expect, it } from 'vitest';
import { anonymousReadStamp, ownerDraftReadStamp } from '../src/index.ts';
import { anon, as, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');
const bob = as('bob');

async function publishedResource(core: ReturnType<typeof makeCore>['core'], access?: { [key: string]: unknown }) {
  const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false }, ...(access ? { access } : {}) });
  return core.records.publish(alice, 'resource', draft.record.id);
}

describe('read stamps of published versions', () => {
  it('are the stamp a public version was read at, and null for an unknown id or another kind', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    const view = await core.records.get(anon, 'resource', published.record.id);
    const stamp = await core.records.readStamp('resource', published.record.id);
    expect(stamp).not.toBeNull();
    expect(anonymousReadStamp(view)).toBe(stamp);
    expect(await core.records.readStamp('package', published.record.id)).toBeNull();
    expect(await core.records.readStamp('resource', 'nope')).toBeNull();
  });

  it('change with an edit, a new version (the old one is no longer the latest) and an access link', async () => {
    const { core } = makeCore();
    const { record } = await publishedResource(core);
    const stamps = [await core.records.readStamp('resource', record.id)];
    await core.records.edit(alice, 'resource', record.id);
    // An open edit draft changes what the published version says of its drafts.
    stamps.push(await core.records.readStamp('resource', record.id));
    await core.records.updateDraft(alice, 'resource', record.id, { metadata: { ...validMetadata, title: 'Edited title' }, files: { enabled: false } });
    await core.records.publish(alice, 'resource', record.id);
    stamps.push(await core.records.readStamp('resource', record.id));
    const next = await core.records.newVersion(alice, 'resource', record.id);
    await core.records.updateDraft(alice, 'resource', next.record.id, { metadata: validMetadata, files: { enabled: false } });
    await core.records.publish(alice, 'resource', next.record.id);
    stamps.push(await core.records.readStamp('resource', record.id));
    expect((await core.records.get(anon, 'resource', record.id)).versions.isLatest).toBe(false);
    await core.accessLinks.create(alice, 'resource', record.id, { permission: 'view' });
    stamps.push(await core.records.readStamp('resource', record.id));
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(anonymousReadStamp(await core.records.get(anon, 'resource', record.id))).toBe(stamps.at(-1));
  });

  it('are withheld from views that read differently by caller or by date: restricted, under embargo', async () => {
    const { core, clock } = makeCore();
    const restricted = await publishedResource(core, { record: 'restricted', files: 'restricted' });
    expect(anonymousReadStamp(await core.records.get(alice, 'resource', restricted.record.id))).toBeNull();
    const embargoed = await publishedResource(core, { record: 'public', files: 'restricted', embargo: { active: true, until: '2026-06-01', reason: null } });
    expect(anonymousReadStamp(await core.records.get(anon, 'resource', embargoed.record.id))).toBeNull();
    // From its day on the embargo reads as lifted: that view holds until the lift is written down.
    clock.advance(Date.parse('2026-06-01T00:00:00.000Z') - Date.parse(clock.now()));
    const lifted = await core.records.get(anon, 'resource', embargoed.record.id);
    expect(lifted.record.access.embargo.active).toBe(false);
    const before = anonymousReadStamp(lifted);
    expect(before).toBe(await core.records.readStamp('resource', embargoed.record.id));
    await core.records.liftLapsedEmbargoes();
    expect(await core.records.readStamp('resource', embargoed.record.id)).not.toBe(before);
  });
});

describe('read stamps of drafts', () => {
  async function draftOf(core: ReturnType<typeof makeCore>['core']) {
    return core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
  }

  it('are the stamp the owner read a draft at, per caller, and null for an unknown id, another kind or no caller', async () => {
    const { core } = makeCore();
    const { record } = await draftOf(core);
    const view = await core.records.getDraft(alice, 'resource', record.id);
    const stamp = await core.records.draftReadStamp(alice, 'resource', record.id);
    expect(stamp).not.toBeNull();
    expect(ownerDraftReadStamp(alice, view)).toBe(stamp);
    // Another caller's stamp never matches one kept for the owner.
    expect(await core.records.draftReadStamp(bob, 'resource', record.id)).not.toBe(stamp);
    expect(await core.records.draftReadStamp(anon, 'resource', record.id)).toBeNull();
    expect(await core.records.draftReadStamp(alice, 'package', record.id)).toBeNull();
    expect(await core.records.draftReadStamp(alice, 'resource', 'nope')).toBeNull();
  });

  it('change with every write to the draft or its parent, and are gone with the draft', async () => {
    const { core } = makeCore();
    const { record } = await draftOf(core);
    const stamps = [await core.records.draftReadStamp(alice, 'resource', record.id)];
    await core.records.updateDraft(alice, 'resource', record.id, { metadata: { ...validMetadata, title: 'Edited title' }, files: { enabled: false } });
    stamps.push(await core.records.draftReadStamp(alice, 'resource', record.id));
    await core.accessLinks.create(alice, 'resource', record.id, { permission: 'preview' });
    stamps.push(await core.records.draftReadStamp(alice, 'resource', record.id));
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(ownerDraftReadStamp(alice, await core.records.getDraft(alice, 'resource', record.id))).toBe(stamps.at(-1));
    await core.records.deleteDraft(alice, 'resource', record.id);
    expect(await core.records.draftReadStamp(alice, 'resource', record.id)).toBeNull();
  });

  it('are withheld from callers who read by another right than ownership, and from published views', async () => {
    const { core } = makeCore();
    const { record } = await draftOf(core);
    const link = await core.accessLinks.create(alice, 'resource', record.id, { permission: 'edit' });
    const holder = await core.users.identify('bob', [link.token]);
    const view = await core.records.getDraft(holder, 'resource', record.id);
    expect(ownerDraftReadStamp(holder, view)).toBeNull();
    expect(await core.records.draftReadStamp(holder, 'resource', record.id)).toBeNull();
    // Even the owner presenting a link token: link tokens are decided at read time.
    expect(ownerDraftReadStamp({ userId: 'alice', linkIds: holder.linkIds }, view)).toBeNull();
    // A package manager edits by the package's owner, which this draft's rows do not hold.
    expect(ownerDraftReadStamp(bob, { ...view, parent: { ...view.parent, managedBy: 'pkg00-00000' } })).toBeNull();
    const published = await core.records.publish(alice, 'resource', record.id);
    expect(ownerDraftReadStamp(alice, published)).toBeNull();
  });
});

describe('read stamps of listings', () => {
  it('are carried by an anonymous listing, read before it was built, and by no other caller', async () => {
    const { core } = makeCore();
    await publishedResource(core);
    const stamp = await core.records.listingReadStamp();
    expect(stamp).not.toBeNull();
    expect((await core.records.search(anon, ['resource'], {})).readStamp).toBe(stamp);
    expect((await core.records.search(anon, ['resource', 'package'], { q: 'flood', size: 1 })).readStamp).toBe(stamp);
    expect((await core.records.search(alice, ['resource'], {})).readStamp).toBeNull();
    const link = await core.accessLinks.create(alice, 'resource', (await publishedResource(core)).record.id, { permission: 'view' });
    const holder = await core.users.identify(null, [link.token]);
    expect((await core.records.search(holder, ['resource'], {})).readStamp).toBeNull();
  });

  it('change with every write to the records and with every write to the index alone', async () => {
    const { core, search, repos } = makeCore();
    const { record } = await publishedResource(core);
    const stamps = [await core.records.listingReadStamp()];
    // A draft is no listing's hit, but the stamp does not tell one write from another.
    const draft = await core.records.createDraft(bob, 'resource', { metadata: validMetadata, files: { enabled: false } });
    stamps.push(await core.records.listingReadStamp());
    await core.records.publish(bob, 'resource', draft.record.id);
    stamps.push(await core.records.listingReadStamp());
    await core.accessLinks.create(alice, 'resource', record.id, { permission: 'view' });
    stamps.push(await core.records.listingReadStamp());
    // A row written without a projection (another process's, say), then the index written alone.
    const { parent } = await core.records.get(anon, 'resource', record.id);
    await repos.records.saveParent({ ...parent, revisionId: parent.revisionId + 1 }, parent.revisionId);
    stamps.push(await core.records.listingReadStamp());
    await search.remove([`published:${record.id}`]);
    stamps.push(await core.records.listingReadStamp());
    expect(new Set(stamps).size).toBe(stamps.length);
    // Reads move neither.
    await core.records.search(anon, ['resource'], {});
    await core.records.get(anon, 'resource', record.id);
    expect(await core.records.listingReadStamp()).toBe(stamps.at(-1));
  });
});
