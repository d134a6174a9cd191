import { describe, expect, it } from 'vitest';
import { DomainError, MAX_PACKAGE_RESOURCES } from '../src/index.ts';
import { anon, as, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');
const bob = as('bob');
type TestCore = ReturnType<typeof makeCore>['core'];

const packageMetadata = { title: 'Drought early warning package', publication_date: '2025', creators: validMetadata.creators };

async function resourceDraft(core: TestCore, who = alice, metadata: object = validMetadata) {
  return (await core.records.createDraft(who, 'resource', { metadata, files: { enabled: false } })).record.id;
}

async function publishedResource(core: TestCore) {
  const id = await resourceDraft(core);
  await core.records.publish(alice, 'resource', id);
  return id;
}

async function packageDraft(core: TestCore) {
  return (await core.records.createDraft(alice, 'package', { metadata: packageMetadata, files: { enabled: false } })).record;
}

describe('package drafts', () => {
  it('always carries resource type knowledge and status draft', async () => {
    const { core } = makeCore();
    const draft = await packageDraft(core);
    expect((draft.metadata['resource_type'] as { id: string }).id).toBe('knowledge');
  });
});

describe('context', () => {
  it('associates draft resources and refuses published, foreign or unknown ones all at once', async () => {
    const { core, repos } = makeCore();
    const pkg = await packageDraft(core);
    const mine = await resourceDraft(core);
    const published = await publishedResource(core);
    const bobs = await resourceDraft(core, bob);
    try {
      await core.packages.associate(alice, pkg.id, [mine, published, bobs, 'zzzzz-zzzzz']);
      expect.unreachable();
    } catch (e) {
      expect((e as DomainError).details?.map((d) => d.field)).toEqual(['records.1.id', 'records.2.id', 'records.3.id']);
    }
    expect((await repos.records.getParent(pkg.parentId))?.context).toEqual([]);
    await core.packages.associate(alice, pkg.id, [mine]);
    expect((await repos.records.getParent(pkg.parentId))?.context).toEqual([mine]);
  });

  it('refuses a resource managed by another package', async () => {
    const { core } = makeCore();
    const first = await packageDraft(core);
    const second = await packageDraft(core);
    const resource = await resourceDraft(core);
    await core.packages.associate(alice, first.id, [resource]);
    await expect(core.packages.associate(alice, second.id, [resource])).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('lets the package owner edit resources in its context', async () => {
    const { core } = makeCore();
    const pkg = (await core.records.createDraft(bob, 'package', { metadata: packageMetadata })).record;
    const resource = await resourceDraft(core, bob);
    await core.packages.associate(bob, pkg.id, [resource]);
    await core.accessLinks.list(bob, 'resource', resource);
    expect((await core.records.getDraft(bob, 'resource', resource)).record.id).toBe(resource);
  });
});

describe('who may associate and take resources back', () => {
  it('takes a resource the same id twice in one body as one item', async () => {
    const { core, repos } = makeCore();
    const pkg = await packageDraft(core);
    const mine = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [mine, mine]);
    expect((await repos.records.getParent(pkg.parentId))?.context).toEqual([mine]);
  });

  it('refuses association by an edit-link holder: only the resource owner may hand it to a package', async () => {
    const { core, repos } = makeCore();
    const bobsPackage = (await core.records.createDraft(bob, 'package', { metadata: packageMetadata })).record;
    const resource = await resourceDraft(core);
    const link = await core.accessLinks.create(alice, 'resource', resource, { permission: 'edit' });
    const bobWithLink = await core.users.identify('bob', [link.token]);
    await core.records.updateDraft(bobWithLink, 'resource', resource, { metadata: { ...validMetadata, title: 'Edited through the link' } });
    await expect(core.packages.associate(bobWithLink, bobsPackage.id, [resource])).rejects.toMatchObject({
      kind: 'invalid',
      details: [{ field: 'records.0.id', messages: ['Only the owner of a resource can associate it with a package.'] }],
    });
    const resourceParent = (await repos.records.getDraft(resource))!.parentId;
    expect((await repos.records.getParent(resourceParent))?.managedBy).toBeNull();
  });

  it("lets a resource's owner take it out of someone else's package, and no one else", async () => {
    const { core, repos } = makeCore();
    const bobsPackage = (await core.records.createDraft(bob, 'package', { metadata: packageMetadata })).record;
    const link = await core.accessLinks.create(bob, 'package', bobsPackage.id, { permission: 'edit' });
    const resource = await resourceDraft(core);
    // Alice, editing bob's package through his link, puts her own resource into it: bob now manages it.
    await core.packages.associate(await core.users.identify('alice', [link.token]), bobsPackage.id, [resource]);
    expect((await core.records.getDraft(bob, 'resource', resource)).record.id).toBe(resource);
    // Bob withdraws the link; alice still owns the resource and takes it back. Others may not.
    await core.accessLinks.delete(bob, 'package', bobsPackage.id, link.link.id);
    await expect(core.packages.dissociate(as('carol'), bobsPackage.id, [resource])).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(core.packages.dissociate(anon, bobsPackage.id, [resource])).rejects.toMatchObject({ kind: 'unauthenticated' });
    await core.packages.dissociate(alice, bobsPackage.id, [resource]);
    expect((await repos.records.getParent(bobsPackage.parentId))?.context).toEqual([]);
    await expect(core.records.getDraft(bob, 'resource', resource)).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('gives the context back when a package draft that was never published is deleted', async () => {
    const { core, repos } = makeCore();
    const pkg = await packageDraft(core);
    const resource = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.records.deleteDraft(alice, 'package', pkg.id);
    const resourceParent = (await repos.records.getDraft(resource))!.parentId;
    expect((await repos.records.getParent(resourceParent))?.managedBy).toBeNull();
    const another = await packageDraft(core);
    await core.packages.associate(alice, another.id, [resource]);
    expect((await repos.records.getParent(another.parentId))?.context).toEqual([resource]);
  });
});

describe("a package's access links", () => {
  it('grant on the resources the package manages what they grant on the package, until a resource leaves it', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const resource = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false }, access: { record: 'restricted', files: 'restricted' } })).record.id;
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.packages.addResources(alice, pkg.id, [resource]);
    const holder = async (permission: 'view' | 'preview' | 'edit') => core.users.identify('carol', [(await core.accessLinks.create(alice, 'package', pkg.id, { permission })).token]);
    const viewer = await holder('view');
    const reviewer = await holder('preview');
    const editor = await holder('edit');
    // The package's reviewer sees the draft resources the package would publish.
    expect((await core.records.getDraft(reviewer, 'resource', resource)).record.id).toBe(resource);
    expect((await core.packages.draftResources(reviewer, pkg.id, {})).hits.map((h) => h.record.id)).toEqual([resource]);
    await expect(core.records.updateDraft(reviewer, 'resource', resource, { metadata: validMetadata })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(core.records.getDraft(viewer, 'resource', resource)).rejects.toMatchObject({ kind: 'forbidden' });
    // The package's editor may edit them, as publishing the package publishes them; never manage their links.
    await core.records.updateDraft(editor, 'resource', resource, { metadata: { ...validMetadata, title: 'Edited through the package link' } });
    await expect(core.accessLinks.list(editor, 'resource', resource)).rejects.toMatchObject({ kind: 'forbidden' });
    await core.records.publish(alice, 'package', pkg.id);
    // Published and restricted: the package's view link reads it.
    expect((await core.records.get(viewer, 'resource', resource)).record.metadata['title']).toBe('Edited through the package link');
    await core.packages.dissociate(alice, pkg.id, [resource]);
    await expect(core.records.get(viewer, 'resource', resource)).rejects.toMatchObject({ kind: 'forbidden' });
  });
});

describe("a package's resource listings", () => {
  it("list a draft resource to a preview-link holder as GET .../draft shows it, without people's e-mail addresses", async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const creators = [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', email: 'ada.obi@example.org' } }];
    const resource = await resourceDraft(core, alice, { ...validMetadata, creators });
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.packages.addResources(alice, pkg.id, [resource]);
    const reviewer = await core.users.identify('carol', [(await core.accessLinks.create(alice, 'package', pkg.id, { permission: 'preview' })).token]);
    const emails = (page: { hits: { record: { metadata: Record<string, unknown> } }[] }) => JSON.stringify(page.hits.map((h) => h.record.metadata)).includes('ada.obi@example.org');
    expect(emails(await core.packages.draftResources(reviewer, pkg.id, {}))).toBe(false);
    expect(emails(await core.packages.contextResources(reviewer, pkg.parentId, {}))).toBe(false);
    expect(JSON.stringify((await core.records.getDraft(reviewer, 'resource', resource)).record.metadata)).not.toContain('ada.obi@example.org');
    expect(emails(await core.packages.draftResources(alice, pkg.id, {}))).toBe(true);
  });
});

describe("a package's resource listings", () => {
  it('narrow by bbox as every listing does, and refuse a malformed one', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const at = (lon: number, lat: number) => ({ ...validMetadata, locations: { features: [{ geometry: { type: 'Point', coordinates: [lon, lat] } }] } });
    const delta = await resourceDraft(core, alice, at(6, 5));
    const alps = await resourceDraft(core, alice, at(10, 46));
    await core.packages.associate(alice, pkg.id, [delta, alps]);
    await core.packages.addResources(alice, pkg.id, [delta, alps]);
    expect((await core.packages.draftResources(alice, pkg.id, { bbox: '0,10,10,0' })).hits.map((h) => h.record.id)).toEqual([delta]);
    expect((await core.packages.draftResources(alice, pkg.id, {})).total).toBe(2);
    await expect(core.packages.draftResources(alice, pkg.id, { bbox: 'north of here' })).rejects.toMatchObject({ kind: 'invalid' });
  });
});

describe('how many resources a package may hold', () => {
  const tooMany = Array.from({ length: MAX_PACKAGE_RESOURCES + 1 }, (_, i) => `zz${String(i).padStart(3, '0')}-zzzzz`);
  const refusal = (field: string) => ({
    kind: 'invalid',
    details: [{ field, messages: [expect.stringContaining(`A package holds at most ${MAX_PACKAGE_RESOURCES} resources`)] }],
  });

  it('refuses a body naming more resources than a package may hold, before reading any, and changes nothing', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const mine = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [mine]);
    await expect(core.packages.associate(alice, pkg.id, tooMany)).rejects.toMatchObject(refusal('records'));
    await expect(core.packages.addResources(alice, pkg.id, tooMany)).rejects.toMatchObject(refusal('resources'));
    await expect(core.packages.removeResources(alice, pkg.id, tooMany)).rejects.toMatchObject(refusal('resources'));
    await expect(core.packages.dissociate(alice, pkg.id, [mine, ...tooMany])).rejects.toMatchObject({ kind: 'invalid' });
    expect((await core.records.getDraft(alice, 'package', pkg.id)).parent.context).toEqual([mine]);
  });

  it('counts the same id named many times once', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const mine = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, Array.from({ length: MAX_PACKAGE_RESOURCES + 1 }, () => mine));
    expect((await core.records.getDraft(alice, 'package', pkg.id)).parent.context).toEqual([mine]);
  });
});

describe('draft resources and publish', () => {
  it('attaches context drafts and published resources, reporting the rest per item', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const inContext = await resourceDraft(core);
    const outside = await resourceDraft(core);
    const published = await publishedResource(core);
    await core.packages.associate(alice, pkg.id, [inContext]);
    const errors = await core.packages.addResources(alice, pkg.id, [inContext, outside, published, 'nope0-nope0']);
    expect(errors.map((e) => e.record)).toEqual([outside, 'nope0-nope0']);
    expect((await core.records.getDraft(alice, 'package', pkg.id)).record.resources).toEqual([inContext, published]);
    const removed = await core.packages.removeResources(alice, pkg.id, [published, 'nope0-nope0']);
    expect(removed.map((e) => e.record)).toEqual(['nope0-nope0']);
  });

  it("refuses to attach a published resource the caller may not read, reporting it per item", async () => {
    const { core } = makeCore();
    const bobsPackage = (await core.records.createDraft(bob, 'package', { metadata: packageMetadata, files: { enabled: false } })).record;
    const closed = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false }, access: { record: 'restricted', files: 'restricted' } })).record.id;
    await core.records.publish(alice, 'resource', closed);
    const open = await publishedResource(core);
    expect(await core.packages.addResources(bob, bobsPackage.id, [closed, open])).toEqual([{ record: closed, message: `You may not read resource ${closed}.` }]);
    expect((await core.records.getDraft(bob, 'package', bobsPackage.id)).record.resources).toEqual([open]);
    // With a view link to it, bob may.
    const link = await core.accessLinks.create(alice, 'resource', closed, { permission: 'view' });
    expect(await core.packages.addResources(await core.users.identify('bob', [link.token]), bobsPackage.id, [closed])).toEqual([]);
  });

  it('a failed publish publishes nothing and names the resource in the errors', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const bad = await resourceDraft(core, alice, { title: 'Untitled resource' });
    await core.packages.associate(alice, pkg.id, [bad]);
    await core.packages.addResources(alice, pkg.id, [bad]);
    try {
      await core.records.publish(alice, 'package', pkg.id);
      expect.unreachable();
    } catch (e) {
      expect((e as DomainError).details?.map((d) => d.field)).toContain(`resources.${bad}.metadata.creators`);
    }
    await expect(core.records.get(anon, 'package', pkg.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(core.records.get(anon, 'resource', bad)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('publishes the package with its draft resources and leaves published resources unchanged', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const draftResource = await resourceDraft(core);
    const published = await publishedResource(core);
    const before = await core.records.get(anon, 'resource', published);
    await core.packages.associate(alice, pkg.id, [draftResource]);
    await core.packages.addResources(alice, pkg.id, [draftResource, published]);
    const result = await core.records.publish(alice, 'package', pkg.id);
    expect(result.record.pids['oai']).toEqual({ provider: 'oai', identifier: `oai:krs.test:${pkg.id}` });
    expect((await core.records.get(anon, 'resource', draftResource)).record.state).toBe('published');
    expect((await core.records.get(anon, 'resource', published)).record.revisionId).toBe(before.record.revisionId);
    const listed = await core.packages.publishedResources(anon, pkg.id, {});
    expect(listed.hits.map((h) => h.record.id).sort()).toEqual([draftResource, published].sort());
  });

  it('imports the previous version resources into a new version', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const published = await publishedResource(core);
    await core.packages.addResources(alice, pkg.id, [published]);
    await core.records.publish(alice, 'package', pkg.id);
    const v2 = await core.records.newVersion(alice, 'package', pkg.id);
    expect(v2.record.resources).toEqual([]);
    await core.packages.importResources(alice, v2.record.id);
    expect((await core.records.getDraft(alice, 'package', v2.record.id)).record.resources).toEqual([published]);
  });

  it("attaches a new version of a resource the package manages without another association, and publishes it with the package's next version", async () => {
    const { core, repos } = makeCore();
    const pkg = await packageDraft(core);
    const resource = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.packages.addResources(alice, pkg.id, [resource]);
    await core.records.publish(alice, 'package', pkg.id);
    const nextPackage = (await core.records.newVersion(alice, 'package', pkg.id)).record.id;
    await core.records.updateDraft(alice, 'package', nextPackage, { metadata: packageMetadata, files: { enabled: false } });
    const nextResource = (await core.records.newVersion(alice, 'resource', resource)).record.id;
    await core.records.updateDraft(alice, 'resource', nextResource, { metadata: validMetadata, files: { enabled: false } });
    expect(await core.packages.addResources(alice, nextPackage, [nextResource])).toEqual([]);
    expect((await repos.records.getParent(pkg.parentId))?.context).toEqual([resource, nextResource]);
    await core.records.publish(alice, 'package', nextPackage);
    expect((await core.records.get(anon, 'resource', nextResource)).versions).toMatchObject({ index: 2, isLatest: true });
    expect((await core.packages.publishedResources(anon, nextPackage, {})).hits.map((h) => h.record.id)).toEqual([nextResource]);
    // A draft of a resource the package does not manage still needs its owner's association.
    const outside = await resourceDraft(core);
    const v3 = (await core.records.newVersion(alice, 'package', nextPackage)).record.id;
    expect((await core.packages.addResources(alice, v3, [outside])).map((e) => e.record)).toEqual([outside]);
  });

  it('dissociates a resource with every version of it the context holds, whichever version is named', async () => {
    const { core, repos } = makeCore();
    const pkg = await packageDraft(core);
    const resource = await resourceDraft(core);
    const other = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [resource, other]);
    await core.packages.addResources(alice, pkg.id, [resource, other]);
    await core.records.publish(alice, 'package', pkg.id);
    const nextPackage = (await core.records.newVersion(alice, 'package', pkg.id)).record.id;
    await core.packages.importResources(alice, nextPackage);
    const nextResource = (await core.records.newVersion(alice, 'resource', resource)).record.id;
    await core.packages.addResources(alice, nextPackage, [nextResource]);
    await core.packages.dissociate(alice, pkg.id, [nextResource]);
    expect((await repos.records.getParent(pkg.parentId))?.context).toEqual([other]);
    expect((await core.records.getDraft(alice, 'package', nextPackage)).record.resources).toEqual([other]);
    const resourceParent = (await repos.records.getPublished(resource))!.parentId;
    expect((await repos.records.getParent(resourceParent))?.managedBy).toBeNull();
  });

  it('deleting a resource draft removes it from the package draft', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    const resource = await resourceDraft(core);
    await core.packages.associate(alice, pkg.id, [resource]);
    await core.packages.addResources(alice, pkg.id, [resource]);
    await core.records.deleteDraft(alice, 'resource', resource);
    expect((await core.records.getDraft(alice, 'package', pkg.id)).record.resources).toEqual([]);
  });

  it('answers 404 for draft resources of a package without a draft', async () => {
    const { core } = makeCore();
    const pkg = await packageDraft(core);
    await core.records.publish(alice, 'package', pkg.id);
    await expect(core.packages.addResources(alice, pkg.id, [])).rejects.toMatchObject({ kind: 'not_found' });
  });
});
