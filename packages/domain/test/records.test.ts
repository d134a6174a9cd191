import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/index.ts';
import { anon, as, bytes, makeCore, readAll, validMetadata } from './make-core.ts';

const alice = as('alice');
const bob = as('bob');

async function publishedResource(core: ReturnType<typeof makeCore>['core']) {
  const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
  return core.records.publish(alice, 'resource', draft.record.id);
}

const kindOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.kind : String(e);
  }
};

describe('draft lifecycle', () => {
  it('creates a first draft owned by the caller, version 1, latest draft but not latest', async () => {
    const { core } = makeCore();
    const view = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(view.record.state).toBe('draft');
    expect(view.parent.ownerId).toBe('alice');
    expect(view.versions).toEqual({ index: 1, isLatest: false, isLatestDraft: true });
    expect(view.issues).toEqual([]);
  });

  it('requires a signed-in user to create a draft', async () => {
    const { core } = makeCore();
    expect(await kindOf(core.records.createDraft(anon, 'resource', {}))).toBe('unauthenticated');
  });

  it('keeps invalid metadata out but saves the draft with its problems listed', async () => {
    const { core } = makeCore();
    const view = await core.records.createDraft(alice, 'resource', { metadata: { title: 'Ok title', resource_type: { id: 'no-such-type' } } });
    expect(view.issues.map((i) => i.field)).toContain('metadata.resource_type');
    const again = await core.records.getDraft(alice, 'resource', view.record.id);
    expect(again.issues.map((i) => i.field)).toContain('metadata.resource_type');
  });

  it('lets only the owner read and update a draft', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(await kindOf(core.records.getDraft(bob, 'resource', record.id))).toBe('forbidden');
    expect(await kindOf(core.records.getDraft(anon, 'resource', record.id))).toBe('unauthenticated');
    expect(await kindOf(core.records.updateDraft(bob, 'resource', record.id, { metadata: validMetadata }))).toBe('forbidden');
  });

  it('replaces the metadata and its issues with those sent, and keeps every member the body leaves out', async () => {
    const { core } = makeCore();
    const created = await core.records.createDraft(alice, 'resource', {
      metadata: { title: 'Ok title', resource_type: { id: 'no-such-type' } },
      access: { record: 'restricted', files: 'restricted' },
      files: { enabled: false },
      pids: { doi: { identifier: '10.1234/x', provider: 'external' } },
    });
    expect(created.issues.map((i) => i.field)).toContain('metadata.resource_type');
    const updated = await core.records.updateDraft(alice, 'resource', created.record.id, { metadata: validMetadata });
    const stored = (await core.records.getDraft(alice, 'resource', created.record.id)).record;
    expect(stored).toEqual(updated.record);
    expect(stored).toEqual({ ...created.record, metadata: stored.metadata, issues: [], updated: stored.updated, revisionId: created.record.revisionId + 1 });
    expect(stored.metadata['title']).toBe(validMetadata.title);
    expect(updated.issues).toEqual([]);
  });

  it('refuses an update whose If-Match revision is stale, changing nothing', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.records.updateDraft(alice, 'resource', record.id, { metadata: { ...validMetadata, title: 'Second title' } }, record.revisionId);
    expect(await kindOf(core.records.updateDraft(alice, 'resource', record.id, { metadata: { ...validMetadata, title: 'Third' } }, record.revisionId))).toBe(
      'precondition_failed',
    );
    expect((await core.records.getDraft(alice, 'resource', record.id)).record.metadata['title']).toBe('Second title');
  });

  it('deletes a draft of an unpublished record entirely', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.records.deleteDraft(alice, 'resource', record.id);
    expect(await kindOf(core.records.getDraft(alice, 'resource', record.id))).toBe('not_found');
  });

  it('does not mix kinds: a resource id is not a package', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(await kindOf(core.records.getDraft(alice, 'package', record.id))).toBe('not_found');
  });
});

describe('publish', () => {
  it('publishes a valid draft: latest, draft gone, publishing twice is 404', async () => {
    const { core } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
    const published = await core.records.publish(alice, 'resource', draft.record.id);
    expect(published.record.state).toBe('published');
    expect(published.versions).toEqual({ index: 1, isLatest: true, isLatestDraft: true });
    expect(await kindOf(core.records.getDraft(alice, 'resource', draft.record.id))).toBe('not_found');
    expect(await kindOf(core.records.publish(alice, 'resource', draft.record.id))).toBe('not_found');
  });

  it('lists every problem at once and publishes nothing', async () => {
    const { core } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: { title: 'x' } });
    try {
      await core.records.publish(alice, 'resource', draft.record.id);
      expect.unreachable();
    } catch (e) {
      const fields = (e as DomainError).details?.map((d) => d.field) ?? [];
      expect(fields).toEqual(expect.arrayContaining(['metadata.title', 'metadata.publication_date', 'metadata.creators', 'files.enabled']));
    }
    expect(await kindOf(core.records.get(anon, 'resource', draft.record.id))).toBe('not_found');
  });

  it('blocks publish while a file is pending', async () => {
    const { core } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.files.start(alice, 'resource', draft.record.id, ['a.txt']);
    await expect(core.records.publish(alice, 'resource', draft.record.id)).rejects.toMatchObject({ kind: 'invalid' });
  });
});

describe('edit and versions', () => {
  it('edits a published record through a draft with the same id, the record staying published', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    const edit = await core.records.edit(alice, 'resource', published.record.id);
    expect(edit.record.id).toBe(published.record.id);
    expect((await core.records.edit(alice, 'resource', published.record.id)).record.revisionId).toBe(edit.record.revisionId);
    await core.records.updateDraft(alice, 'resource', edit.record.id, { metadata: { ...validMetadata, title: 'Edited title' } });
    expect((await core.records.get(anon, 'resource', published.record.id)).record.metadata['title']).toBe(validMetadata.title);
    const republished = await core.records.publish(alice, 'resource', edit.record.id);
    expect(republished.record.metadata['title']).toBe('Edited title');
    expect(republished.versions.index).toBe(1);
  });

  it('discarding an edit draft keeps the published record', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    await core.records.edit(alice, 'resource', published.record.id);
    await core.records.deleteDraft(alice, 'resource', published.record.id);
    expect((await core.records.get(anon, 'resource', published.record.id)).record.state).toBe('published');
  });

  it('creates a new version with a new id, same parent, next index, without publication date', async () => {
    const { core } = makeCore();
    const v1 = await publishedResource(core);
    const v2 = await core.records.newVersion(alice, 'resource', v1.record.id);
    expect(v2.record.id).not.toBe(v1.record.id);
    expect(v2.record.parentId).toBe(v1.record.parentId);
    expect(v2.versions).toEqual({ index: 2, isLatest: false, isLatestDraft: true });
    expect(v2.record.metadata['publication_date']).toBeUndefined();
    expect((await core.records.newVersion(alice, 'resource', v1.record.id)).record.id).toBe(v2.record.id);
    await core.records.updateDraft(alice, 'resource', v2.record.id, { metadata: { ...validMetadata, publication_date: '2026' } });
    const published2 = await core.records.publish(alice, 'resource', v2.record.id);
    expect(published2.versions.isLatest).toBe(true);
    expect((await core.records.get(anon, 'resource', v1.record.id)).versions.isLatest).toBe(false);
    expect((await core.records.latest(anon, 'resource', v1.record.id)).record.id).toBe(v2.record.id);
    const versions = await core.records.versions(anon, 'resource', v1.record.id, {});
    expect(versions.hits.map((h) => h.record.versionIndex)).toEqual([2, 1]);
  });

  it('orders versions by the sort asked for and refuses a sort it does not know', async () => {
    const { core, clock } = makeCore();
    const v1 = await publishedResource(core);
    clock.advance(1000);
    const v2 = await core.records.newVersion(alice, 'resource', v1.record.id);
    await core.records.updateDraft(alice, 'resource', v2.record.id, { metadata: { ...validMetadata, publication_date: '2026' } });
    await core.records.publish(alice, 'resource', v2.record.id);
    const oldest = await core.records.versions(anon, 'resource', v1.record.id, { sort: 'oldest' });
    expect(oldest.hits.map((h) => h.record.versionIndex)).toEqual([1, 2]);
    expect(oldest.sortBy).toBe('oldest');
    const byDefault = await core.records.versions(anon, 'resource', v1.record.id, { sort: 'bestmatch' });
    expect(byDefault.hits.map((h) => h.record.versionIndex)).toEqual([2, 1]);
    expect(byDefault.sortBy).toBe('version');
    await expect(core.records.versions(anon, 'resource', v1.record.id, { sort: 'unknown' })).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('pages versions by reading only the page\'s versions in full, showing each reader the versions they may read', async () => {
    const { core, repos } = makeCore();
    const v1 = await publishedResource(core);
    for (let i = 2; i <= 6; i++) {
      const next = await core.records.newVersion(alice, 'resource', v1.record.id);
      const access = i === 4 ? ({ record: 'restricted', files: 'restricted' } as const) : ({ record: 'public', files: 'public' } as const);
      await core.records.updateDraft(alice, 'resource', next.record.id, { metadata: { ...validMetadata, publication_date: '2026' }, access });
      await core.records.publish(alice, 'resource', next.record.id);
    }
    const readInFull: string[] = [];
    const byIds = repos.records.getPublishedByIds;
    repos.records.getPublishedByIds = async (ids) => {
      readInFull.push(...ids);
      return byIds(ids);
    };
    repos.records.listPublishedVersions = async () => expect.fail('a page of versions must not read every version');

    const page2 = await core.records.versions(anon, 'resource', v1.record.id, { size: 2, page: 2 });
    expect(page2.total).toBe(5);
    expect(page2.hits.map((h) => h.record.versionIndex)).toEqual([3, 2]);
    expect(readInFull).toEqual(page2.hits.map((h) => h.record.id));

    readInFull.length = 0;
    const owners = await core.records.versions(alice, 'resource', v1.record.id, { size: 3, sort: 'oldest' });
    expect(owners.total).toBe(6);
    expect(owners.hits.map((h) => h.record.versionIndex)).toEqual([1, 2, 3]);
    expect(readInFull).toHaveLength(3);
  });
});

describe('what answers hold', () => {
  it('tells the host the stored bytes of a record, a page or a versions page before reading them, and refuses nothing itself', async () => {
    const { core, repos } = makeCore();
    const v1 = await publishedResource(core);
    const taken: number[] = [];
    const memory = { take: (bytes: number) => void taken.push(bytes) };
    const stored = (await repos.records.storedSizes('published', [v1.record.id])).get(v1.record.id) as number;
    expect(stored).toBeGreaterThan(100);
    await core.records.get(anon, 'resource', v1.record.id, memory);
    await core.records.versions(anon, 'resource', v1.record.id, { memory });
    await core.records.search(anon, ['resource'], { memory });
    expect(taken).toEqual([stored, stored, stored]);
    // The host's refusal stops the read.
    const full = { take: () => { throw new Error('full'); } };
    await expect(core.records.get(anon, 'resource', v1.record.id, full)).rejects.toThrow('full');
    await expect(core.records.search(anon, ['resource'], { memory: full })).rejects.toThrow('full');
  });
});

describe('files', () => {
  it('walks pending -> content -> completed and serves the bytes after publish', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    const started = await core.files.start(alice, 'resource', record.id, ['notes.txt']);
    expect(started.entries[0]?.status).toBe('pending');
    await core.files.upload(alice, 'resource', record.id, 'notes.txt', bytes('hello'), 5);
    const done = await core.files.commit(alice, 'resource', record.id, 'notes.txt');
    expect(done.entry).toMatchObject({ status: 'completed', mimetype: 'text/plain', storageClass: 'L' });
    expect(done.entry.blob).toMatchObject({ size: 5, md5: '5d41402abc4b2a76b9719d911017c592' });
    await core.records.publish(alice, 'resource', record.id);
    const content = await core.files.content(anon, 'resource', record.id, 'published', 'notes.txt', null);
    expect(await readAll(content.body)).toBe('hello');
  });

  it('rejects bad keys, duplicates, too many files, commit before upload and upload after commit', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(await kindOf(core.files.start(alice, 'resource', record.id, ['../x']))).toBe('invalid');
    await core.files.start(alice, 'resource', record.id, ['a.txt']);
    expect(await kindOf(core.files.start(alice, 'resource', record.id, ['a.txt']))).toBe('invalid');
    expect(await kindOf(core.files.start(alice, 'resource', record.id, ['b', 'c', 'd']))).toBe('invalid');
    expect(await kindOf(core.files.commit(alice, 'resource', record.id, 'a.txt'))).toBe('invalid');
    await core.files.upload(alice, 'resource', record.id, 'a.txt', bytes('x'), undefined);
    await core.files.commit(alice, 'resource', record.id, 'a.txt');
    expect(await kindOf(core.files.upload(alice, 'resource', record.id, 'a.txt', bytes('y'), undefined))).toBe('invalid');
    expect((await core.files.list(alice, 'resource', record.id, 'draft')).entries).toHaveLength(1);
  });

  it('a content-length that does not match keeps nothing', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.files.start(alice, 'resource', record.id, ['a.txt']);
    expect(await kindOf(core.files.upload(alice, 'resource', record.id, 'a.txt', bytes('hello'), 9))).toBe('invalid');
    expect((await core.files.get(alice, 'resource', record.id, 'draft', 'a.txt')).entry.blob).toBeNull();
  });

  it('forbids file operations when files are disabled and locks files on an edit draft', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
    expect(await kindOf(core.files.start(alice, 'resource', record.id, ['a.txt']))).toBe('forbidden');
    await core.records.edit(alice, 'resource', published.record.id);
    expect(await kindOf(core.records.updateDraft(alice, 'resource', published.record.id, { files: { enabled: true } }))).toBe('invalid');
  });

  it('imports the previous version files into a new version', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.files.start(alice, 'resource', record.id, ['a.txt']);
    await core.files.upload(alice, 'resource', record.id, 'a.txt', bytes('abc'), 3);
    await core.files.commit(alice, 'resource', record.id, 'a.txt');
    await core.records.publish(alice, 'resource', record.id);
    const v2 = await core.records.newVersion(alice, 'resource', record.id);
    expect((await core.files.list(alice, 'resource', v2.record.id, 'draft')).entries).toHaveLength(0);
    const imported = await core.files.importFromPrevious(alice, 'resource', v2.record.id);
    expect(imported.entries.map((e) => e.key)).toEqual(['a.txt']);
  });
});

describe('collecting unreferenced file content', () => {
  it('deletes what discarded drafts left, keeps what any version points at and what is too young to judge', async () => {
    const { core, storage, clock } = makeCore();
    const withFile = async (key: string, text: string) => {
      const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
      await core.files.start(alice, 'resource', record.id, [key]);
      await core.files.upload(alice, 'resource', record.id, key, bytes(text), text.length);
      await core.files.commit(alice, 'resource', record.id, key);
      return record.id;
    };
    const published = await withFile('kept.txt', 'published bytes');
    await core.records.publish(alice, 'resource', published);
    // A new version shares the published blob; discarding it must not take the blob along.
    const next = await core.records.newVersion(alice, 'resource', published);
    await core.files.importFromPrevious(alice, 'resource', next.record.id);
    await core.records.deleteDraft(alice, 'resource', next.record.id);
    const discarded = await withFile('gone.txt', 'discarded');
    await core.records.deleteDraft(alice, 'resource', discarded);
    expect(storage.blobCount()).toBe(2);

    clock.advance(2 * 60 * 60 * 1000);
    await withFile('young.txt', 'just uploaded');
    const report = await core.files.collectGarbage(60);
    expect(report).toEqual({ removed: 1, removedBytes: 'discarded'.length, kept: 2, partialUploads: { removed: 0, bytes: 0 }, abandonedUploads: 0 });
    const content = await core.files.content(anon, 'resource', published, 'published', 'kept.txt', null);
    expect(await readAll(content.body)).toBe('published bytes');
    expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 0, removedBytes: 0, kept: 2 });
    await expect(core.files.collectGarbage(-1)).rejects.toMatchObject({ kind: 'invalid' });
  });
});

describe('access links', () => {
  it('gives link holders their level and only owners manage links', async () => {
    const { core, clock } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, access: { record: 'restricted' } });
    const preview = await core.accessLinks.create(alice, 'resource', record.id, { permission: 'preview' });
    const viaLink = await core.users.identify(null, [preview.token]);
    expect((await core.records.getDraft(viaLink, 'resource', record.id)).record.id).toBe(record.id);
    // A valid link that grants too little is a refusal, not a request to sign in.
    expect(await kindOf(core.records.updateDraft(viaLink, 'resource', record.id, {}))).toBe('forbidden');
    const edit = await core.accessLinks.create(alice, 'resource', record.id, { permission: 'edit', expiresAt: '2026-02-01T00:00:00Z' });
    const editor = await core.users.identify('bob', [edit.token]);
    await core.records.updateDraft(editor, 'resource', record.id, { metadata: { ...validMetadata, title: 'By bob' } });
    expect(await kindOf(core.accessLinks.list(editor, 'resource', record.id))).toBe('forbidden');
    clock.advance(40 * 24 * 3600 * 1000);
    expect(await kindOf(core.records.getDraft(editor, 'resource', record.id))).toBe('forbidden');
  });

  it('validates permission and expiry, and never lets PATCH extend an expiry', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(await kindOf(core.accessLinks.create(alice, 'resource', record.id, { permission: 'admin' }))).toBe('invalid');
    expect(await kindOf(core.accessLinks.create(alice, 'resource', record.id, { permission: 'view', expiresAt: '2020-01-01T00:00:00Z' }))).toBe('invalid');
    const link = await core.accessLinks.create(alice, 'resource', record.id, { permission: 'view', expiresAt: '2026-03-01T00:00:00Z' });
    expect(await kindOf(core.accessLinks.update(alice, 'resource', record.id, link.link.id, { permission: 'view', expiresAt: '2026-04-01T00:00:00Z' }))).toBe('invalid');
    expect(await kindOf(core.accessLinks.update(alice, 'resource', record.id, link.link.id, { permission: 'view', expiresAt: null }))).toBe('invalid');
    const shorter = await core.accessLinks.update(alice, 'resource', record.id, link.link.id, { permission: 'edit', expiresAt: '2026-02-01T00:00:00Z' });
    expect(shorter.link.permission).toBe('edit');
    await core.accessLinks.delete(alice, 'resource', record.id, link.link.id);
    expect(await kindOf(core.accessLinks.get(alice, 'resource', record.id, link.link.id))).toBe('not_found');
  });

  it('takes an expiry only as an ISO date or date-time on the calendar, without offset meaning UTC', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    const create = (expiresAt: string) => core.accessLinks.create(alice, 'resource', record.id, { permission: 'view', expiresAt });
    for (const bad of ['2026-02-30', '2026-02-01T24:00:00Z', 'March 7, 2026', '2026']) expect(await kindOf(create(bad))).toBe('invalid');
    expect((await create('2026-03-01 10:00:00')).link.expiresAt).toBe('2026-03-01T10:00:00.000Z');
    expect((await create('2026-03-01T12:00:00+02:00')).link.expiresAt).toBe('2026-03-01T10:00:00.000Z');
    expect((await create('2026-03-02')).link.expiresAt).toBe('2026-03-02T00:00:00.000Z');
  });
});

describe('listings', () => {
  it('shows published latest versions publicly and the owner their drafts', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.records.newVersion(alice, 'resource', published.record.id);
    const publicPage = await core.records.search(anon, ['resource'], {});
    expect(publicPage.hits.map((h) => h.record.id)).toEqual([published.record.id]);
    const mine = await core.records.searchOwn(alice, 'resource', {});
    expect(mine.total).toBe(2);
    expect(mine.hits.every((h) => h.record.state === 'draft')).toBe(true);
    expect((await core.records.searchOwn(bob, 'resource', {})).total).toBe(0);
  });

  it('rejects unknown sorts and pages past the result window', async () => {
    const { core } = makeCore();
    expect(await kindOf(core.records.search(anon, ['resource'], { sort: 'sideways' }))).toBe('invalid');
    expect(await kindOf(core.records.search(anon, ['resource'], { page: 101, size: 100 }))).toBe('invalid');
  });
});
