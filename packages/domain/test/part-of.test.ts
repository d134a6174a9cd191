import { describe, expect, it } from 'vitest';
import { anonymousReadStamp, representationTag, type Identity } from '../src/index.ts';
import { anon, as, bytes, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');
const bob = as('bob');
type TestCore = ReturnType<typeof makeCore>['core'];

const packageMetadata = { title: 'Drought early warning package', publication_date: '2025', creators: validMetadata.creators };
const restricted = { record: 'restricted', files: 'restricted' };

/** A package draft holding a new resource draft in its context and attached to it. */
async function packageWithResource(core: TestCore, access?: object) {
  const pkg = (await core.records.createDraft(alice, 'package', { metadata: packageMetadata, files: { enabled: false }, ...(access ? { access } : {}) })).record;
  const resource = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } })).record.id;
  await core.packages.associate(alice, pkg.id, [resource]);
  await core.packages.addResources(alice, pkg.id, [resource]);
  return { pkg, resource };
}

async function nextPackageVersion(core: TestCore, id: string, metadata: object = packageMetadata, access?: object) {
  const next = (await core.records.newVersion(alice, 'package', id)).record.id;
  await core.records.updateDraft(alice, 'package', next, { metadata, files: { enabled: false }, ...(access ? { access } : {}) });
  await core.records.publish(alice, 'package', next);
  return next;
}

const shownTo = async (core: TestCore, who: Identity, resource: string) => (await core.records.get(who, 'resource', resource)).holder?.shown ?? null;

describe('the package a resource is part of', () => {
  it('is nothing for a resource no package manages, without reading more than its parent', async () => {
    const { core } = makeCore();
    const draft = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } })).record.id;
    await core.records.publish(alice, 'resource', draft);
    expect((await core.records.get(anon, 'resource', draft)).holder).toBeNull();
    expect((await core.records.get(anon, 'resource', draft)).holder).toBeNull();
  });

  it("is the package's latest published version, with its title, parent and DOI, to anyone who may read it", async () => {
    const { core } = makeCore({ settings: { doiPrefix: '10.5555' } });
    const { pkg, resource } = await packageWithResource(core);
    await core.records.reserveDoi(alice, 'package', pkg.id);
    await core.records.publish(alice, 'package', pkg.id);
    const first = { parentId: pkg.parentId, id: pkg.id, title: packageMetadata.title, doi: `10.5555/${pkg.id}` };
    expect(await shownTo(core, anon, resource)).toEqual(first);
    expect(await shownTo(core, bob, resource)).toEqual(first);
    // A new version of the package, retitled: the resource names it, whichever version of the resource is read.
    const next = await nextPackageVersion(core, pkg.id, { ...packageMetadata, title: 'Drought early warning, second edition' });
    expect(await shownTo(core, anon, resource)).toEqual({ parentId: pkg.parentId, id: next, title: 'Drought early warning, second edition', doi: null });
    expect((await core.records.latest(anon, 'resource', resource)).holder?.shown?.id).toBe(next);
  });

  it('shows nothing of a package still a draft, even to its owner: no id, no title', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core);
    // The resource published on its own while the package stays a draft.
    await core.records.publish(alice, 'resource', resource);
    for (const who of [anon, alice]) {
      const view = await core.records.get(who, 'resource', resource);
      expect(view.holder).toEqual({ revisionId: expect.any(Number), lapses: false, shown: null });
      expect(JSON.stringify(view.holder)).not.toContain(pkg.parentId);
    }
  });

  it('shows a restricted package to those who may read it, and to the others its latest version open to them, if any', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core, restricted);
    await core.records.publish(alice, 'package', pkg.id);
    expect(await shownTo(core, anon, resource)).toBeNull();
    expect(await shownTo(core, bob, resource)).toBeNull();
    expect((await shownTo(core, alice, resource))?.id).toBe(pkg.id);
    // A view link on the package lets its holder see it.
    const link = await core.accessLinks.create(alice, 'package', pkg.id, { permission: 'view' });
    expect((await shownTo(core, { userId: null, linkIds: [link.link.id] }, resource))?.id).toBe(pkg.id);
    // A public second version, then a restricted third: readers who may not read the third see the second.
    const second = await nextPackageVersion(core, pkg.id, packageMetadata, { record: 'public', files: 'public' });
    const third = await nextPackageVersion(core, second, packageMetadata, restricted);
    expect((await shownTo(core, anon, resource))?.id).toBe(second);
    expect((await shownTo(core, alice, resource))?.id).toBe(third);
  });

  it('is nothing once the resource leaves the package', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core);
    await core.records.publish(alice, 'package', pkg.id);
    expect(await shownTo(core, anon, resource)).not.toBeNull();
    await core.packages.dissociate(alice, pkg.id, [resource]);
    expect((await core.records.get(anon, 'resource', resource)).holder).toBeNull();
  });
});

describe('listings', () => {
  it('name the package of each published resource as a GET of it does, to each reader', async () => {
    const { core } = makeCore();
    const open = await packageWithResource(core);
    await core.records.publish(alice, 'package', open.pkg.id);
    const closed = await packageWithResource(core, restricted);
    await core.records.publish(alice, 'package', closed.pkg.id);
    const alone = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } })).record.id;
    await core.records.publish(alice, 'resource', alone);
    const unpublished = await packageWithResource(core);
    for (const who of [anon, alice, bob]) {
      const listed = [
        ...(await core.records.search(who, ['resource'], {})).hits,
        ...(await core.records.versions(who, 'resource', open.resource, {})).hits,
        ...(who === alice ? (await core.records.searchOwn(alice, 'resource', {})).hits : []),
      ];
      expect(listed.length).toBeGreaterThan(3);
      for (const hit of listed) {
        const got = hit.record.state === 'published' ? (await core.records.get(who, 'resource', hit.record.id)).holder : undefined;
        expect([hit.record.id, hit.holder]).toEqual([hit.record.id, got]);
      }
    }
    const anonymousHits = (await core.records.search(anon, ['resource'], {})).hits;
    expect(new Map(anonymousHits.map((h) => [h.record.id, h.holder?.shown?.id ?? null]))).toEqual(
      new Map([[open.resource, open.pkg.id], [closed.resource, null], [alone, null]]),
    );
    // A draft is listed as a GET of the draft shows it: without the package.
    expect((await core.records.searchOwn(alice, 'resource', {})).hits.find((h) => h.record.id === unpublished.resource)?.holder).toBeUndefined();
  });

  it("of anonymous readers are not kept while the package's embargo may lapse", async () => {
    const { core } = makeCore();
    const { pkg } = await packageWithResource(core, { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2026-06-01', reason: null } });
    await core.records.publish(alice, 'package', pkg.id);
    const page = await core.records.search(anon, ['resource'], {});
    expect(page.hits.map((h) => h.holder?.lapses)).toEqual([true]);
    expect(page.readStamp).toBeNull();
  });
});

describe('harvesters', () => {
  it('get each managed resource with its package as anonymous readers see it', async () => {
    const { core } = makeCore();
    const open = await packageWithResource(core);
    await core.records.publish(alice, 'package', open.pkg.id);
    const closed = await packageWithResource(core, restricted);
    await core.records.publish(alice, 'package', closed.pkg.id);
    const page = await core.harvest.list({ limit: 50 });
    const shown = new Map(page.items.map((i) => [i.id, i.view?.holder?.shown?.id ?? null]));
    expect(shown.get(open.resource)).toBe(open.pkg.id);
    expect(shown.get(closed.resource)).toBeNull();
    expect((await core.harvest.get(open.resource))?.view?.holder?.shown?.title).toBe(packageMetadata.title);
  });
});

describe("read stamps of a resource a package manages", () => {
  it('change when the package is published, versioned or edited and when the resource leaves it, and match what the view was read at', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core);
    await core.records.publish(alice, 'resource', resource);
    const stamp = () => core.records.readStamp('resource', resource);
    const viewStamp = async () => anonymousReadStamp(await core.records.get(anon, 'resource', resource));
    const stamps = [await stamp()];
    expect(await viewStamp()).toBe(stamps[0]);
    await core.records.publish(alice, 'package', pkg.id);
    stamps.push(await stamp());
    const next = await nextPackageVersion(core, pkg.id, { ...packageMetadata, title: 'Retitled' });
    stamps.push(await stamp());
    await core.records.edit(alice, 'package', next);
    await core.records.updateDraft(alice, 'package', next, { metadata: { ...packageMetadata, title: 'Retitled again' }, files: { enabled: false } });
    await core.records.publish(alice, 'package', next);
    stamps.push(await stamp());
    expect(await viewStamp()).toBe(stamps.at(-1));
    await core.packages.dissociate(alice, pkg.id, [resource]);
    stamps.push(await stamp());
    expect(await viewStamp()).toBe(stamps.at(-1));
    expect(new Set(stamps).size).toBe(stamps.length);
  });

  it('are withheld while a version of the package is under an embargo, which lifts by date alone', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core, { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2026-06-01', reason: null } });
    await core.records.publish(alice, 'package', pkg.id);
    const view = await core.records.get(anon, 'resource', resource);
    expect(view.holder).toMatchObject({ lapses: true, shown: null });
    expect(anonymousReadStamp(view)).toBeNull();
  });

  it('tell apart, in entity tags, readers shown the package from readers who are not', async () => {
    const { core } = makeCore();
    const { pkg, resource } = await packageWithResource(core, restricted);
    await core.records.publish(alice, 'package', pkg.id);
    const tags = new Set([representationTag(await core.records.get(anon, 'resource', resource)), representationTag(await core.records.get(alice, 'resource', resource))]);
    expect(tags.size).toBe(2);
  });

  it("of a file are the resource's stamp, so a file's kept answer is checked against the same read", async () => {
    const { core } = makeCore();
    const pkg = (await core.records.createDraft(alice, 'package', { metadata: packageMetadata, files: { enabled: false } })).record;
    const resource = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata })).record.id;
    await core.files.start(alice, 'resource', resource, ['a.csv']);
    await core.files.upload(alice, 'resource', resource, 'a.csv', bytes('a,b'), 3);
    await core.files.commit(alice, 'resource', resource, 'a.csv');
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.packages.addResources(alice, pkg.id, [resource]);
    await core.records.publish(alice, 'package', pkg.id);
    const file = await core.files.get(anon, 'resource', resource, 'published', 'a.csv');
    expect(file.readStamp).not.toBeNull();
    expect(file.readStamp).toBe(await core.records.readStamp('resource', resource));
  });
});
