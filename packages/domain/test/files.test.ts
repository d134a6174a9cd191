import { describe, expect, it } from 'vitest';
import { DomainError, type FileEntry, type FileOwner } from '../src/index.ts';
import { keyProblem, pendingEntry } from '../src/model/files.ts';
import { anon, as, bytes, makeCore, readAll, validMetadata } from './make-core.ts';

const alice = as('alice');

const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof DomainError) return { kind: e.kind, message: e.message, fields: (e.details ?? []).map((d) => d.field) };
    throw e;
  }
};

type Core = ReturnType<typeof makeCore>['core'];

async function draftWithFile(core: Core, key: string, text: string, commit = true) {
  const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
  await core.files.start(alice, 'resource', record.id, [key]);
  await core.files.upload(alice, 'resource', record.id, key, bytes(text), text.length);
  if (commit) await core.files.commit(alice, 'resource', record.id, key);
  return record.id;
}

describe('file keys', () => {
  it('counts characters, not UTF-16 units: 255 emoji fit, 256 do not', () => {
    expect(keyProblem('😀'.repeat(255))).toBeNull();
    expect(keyProblem('😀'.repeat(256))).toMatch(/1 to 255 characters/);
    expect(keyProblem('a'.repeat(255))).toBeNull();
    expect(keyProblem('a'.repeat(256))).toMatch(/1 to 255 characters/);
    expect(keyProblem('')).toMatch(/1 to 255 characters/);
  });

  it('refuses lone surrogates, non-characters, controls, slashes and dot names; accepts ordinary Unicode', () => {
    for (const bad of ['bad\ud800name.txt', 'x\udc00', '\ud83d', 'a\ufffe', 'a\uffff', 'a\ufdd0', 'a\u{1fffe}', 'a\u{10ffff}', 'a\u0000b', 'a\nb', 'a\u007fb', 'a\u0085b', 'a/b', '.', '..']) {
      expect(keyProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    for (const good of ['données.csv', '地图.tif', '😀.png', '...', '.hidden', 'a b.txt', 'ü\u0301.txt']) {
      expect(keyProblem(good), good).toBeNull();
    }
  });

  it('answers a lone surrogate key with a field error and stores nothing', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    expect(await failureOf(core.files.start(alice, 'resource', record.id, ['ok.txt', 'bad\ud800name.txt']))).toMatchObject({ kind: 'invalid', fields: ['1.key'] });
    expect((await core.files.list(alice, 'resource', record.id, 'draft')).entries).toEqual([]);
  });

  it('keeps an entry stored with a lone surrogate before keys were checked listable, readable and deletable', async () => {
    const { core, repos } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await repos.files.save({ recordId: record.id, state: 'draft' }, pendingEntry('bad\ud800name.txt', '2026-01-01T00:00:00.000Z'));
    expect((await core.files.list(alice, 'resource', record.id, 'draft')).entries.map((e) => e.key)).toEqual(['bad\ud800name.txt']);
    // Its links name it with U+FFFD, the form a URL can carry.
    expect((await core.files.get(alice, 'resource', record.id, 'draft', 'bad\ufffdname.txt')).entry.key).toBe('bad\ud800name.txt');
    await core.files.delete(alice, 'resource', record.id, 'bad\ufffdname.txt');
    expect((await core.files.list(alice, 'resource', record.id, 'draft')).entries).toEqual([]);
  });
});

describe('the files a published version shows its readers', () => {
  async function publishedWithFile(core: Core, access: Record<string, unknown>) {
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, access });
    await core.files.start(alice, 'resource', record.id, ['data.csv']);
    await core.files.upload(alice, 'resource', record.id, 'data.csv', bytes('a,b'), 3);
    await core.files.commit(alice, 'resource', record.id, 'data.csv');
    await core.records.publish(alice, 'resource', record.id);
    return record.id;
  }
  const keys = (shown: { entries: FileEntry[]; closed: boolean }) => ({ keys: shown.entries.map((e) => e.key), closed: shown.closed });

  it('are listed to everyone when open, and closed, not refused, to readers of public metadata with restricted or embargoed files', async () => {
    const { core, clock } = makeCore();
    const open = await publishedWithFile(core, {});
    const restricted = await publishedWithFile(core, { record: 'public', files: 'restricted' });
    const embargoed = await publishedWithFile(core, { record: 'public', files: 'public', embargo: { active: true, until: '2026-06-01', reason: null } });
    expect(keys(await core.files.shown(anon, 'resource', open))).toEqual({ keys: ['data.csv'], closed: false });
    for (const id of [restricted, embargoed]) {
      // The download itself is still refused; what a page or an export lists is not.
      expect(await failureOf(core.files.list(anon, 'resource', id, 'published'))).toMatchObject({ kind: 'unauthenticated' });
      expect(keys(await core.files.shown(anon, 'resource', id))).toEqual({ keys: [], closed: true });
      expect(keys(await core.files.shown(as('bob'), 'resource', id))).toEqual({ keys: [], closed: true });
      expect(keys(await core.files.shown(alice, 'resource', id))).toEqual({ keys: ['data.csv'], closed: false });
    }
    clock.advance(Date.parse('2026-06-01T00:00:00.000Z') - Date.parse(clock.now()));
    expect(keys(await core.files.shown(anon, 'resource', embargoed))).toEqual({ keys: ['data.csv'], closed: false });
  });

  it('are none, and not closed, for a metadata-only record; an unknown id is not found', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false }, access: { record: 'public', files: 'restricted' } });
    await core.records.publish(alice, 'resource', record.id);
    expect(keys(await core.files.shown(anon, 'resource', record.id))).toEqual({ keys: [], closed: false });
    expect(await failureOf(core.files.shown(anon, 'resource', 'nope0-nope0'))).toMatchObject({ kind: 'not_found' });
  });
});

describe('metadata-only records', () => {
  it('refuses to disable files while the draft holds some, as a draft error, and keeps them enabled', async () => {
    const { core } = makeCore();
    const id = await draftWithFile(core, 'data.csv', 'a,b', false);
    const saved = await core.records.updateDraft(alice, 'resource', id, { files: { enabled: false } });
    expect(saved.record.files.enabled).toBe(true);
    expect(saved.issues).toContainEqual({ field: 'files.enabled', messages: ['You must first delete all files to set the record to be metadata-only.'] });
    expect((await core.records.getDraft(alice, 'resource', id)).record.files.enabled).toBe(true);
    // Still pending, so publish refuses: nothing pending is ever published.
    expect(await failureOf(core.records.publish(alice, 'resource', id))).toMatchObject({ kind: 'invalid', fields: ['files'] });
    await core.files.delete(alice, 'resource', id, 'data.csv');
    const metadataOnly = await core.records.updateDraft(alice, 'resource', id, { files: { enabled: false } });
    expect(metadataOnly.record.files.enabled).toBe(false);
    expect(metadataOnly.issues).toEqual([]);
    await core.records.publish(alice, 'resource', id);
  });

  it('answers an empty list of uploads with the empty listing, and any key with forbidden, then publishes metadata-only', async () => {
    const { core } = makeCore();
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false } });
    const listed = await core.files.start(alice, 'resource', record.id, []);
    expect(listed.entries).toEqual([]);
    expect(listed.options.enabled).toBe(false);
    expect(await failureOf(core.files.start(alice, 'resource', record.id, ['a.csv']))).toMatchObject({ kind: 'forbidden', message: 'Files are not enabled.' });
    expect(await failureOf(core.files.start(anon, 'resource', record.id, []))).toMatchObject({ kind: 'unauthenticated' });
    await core.records.publish(alice, 'resource', record.id);
  });

  it('refuses to publish a metadata-only draft that still holds files (saved before the rule)', async () => {
    const { core, repos } = makeCore();
    const id = await draftWithFile(core, 'data.csv', 'a,b', false);
    const stored = await repos.records.getDraft(id);
    if (!stored) throw new Error('draft missing');
    await repos.records.saveDraft({ ...stored, files: { ...stored.files, enabled: false }, revisionId: stored.revisionId + 1 }, stored.revisionId);
    expect(await failureOf(core.records.publish(alice, 'resource', id))).toMatchObject({ kind: 'invalid', fields: ['files.enabled'] });
    expect(await failureOf(core.files.list(anon, 'resource', id, 'published'))).toMatchObject({ kind: 'not_found' });
  });
});

describe('stored bytes are deleted only when nothing points at them', () => {
  it('deleting or re-uploading a pending file removes bytes only it pointed at', async () => {
    const { core, storage } = makeCore();
    const id = await draftWithFile(core, 'a.txt', 'first', false);
    expect(storage.blobCount()).toBe(1);
    await core.files.upload(alice, 'resource', id, 'a.txt', bytes('second'), 6);
    expect(storage.blobCount()).toBe(1);
    expect(await readAll((await core.files.content(alice, 'resource', id, 'draft', 'a.txt', null)).body)).toBe('second');
    await core.files.delete(alice, 'resource', id, 'a.txt');
    expect(storage.blobCount()).toBe(0);
  });

  it('a new version deleting an imported file leaves the published bytes alone', async () => {
    const { core, storage } = makeCore();
    const id = await draftWithFile(core, 'a.txt', 'published');
    await core.records.publish(alice, 'resource', id);
    const next = await core.records.newVersion(alice, 'resource', id);
    await core.files.importFromPrevious(alice, 'resource', next.record.id);
    await core.files.delete(alice, 'resource', next.record.id, 'a.txt');
    expect(storage.blobCount()).toBe(1);
    expect(await readAll((await core.files.content(anon, 'resource', id, 'published', 'a.txt', null)).body)).toBe('published');
  });

  it('a pending entry sharing its bytes with a published version (older data) keeps them on delete and on re-upload', async () => {
    const { core, repos, storage } = makeCore();
    const id = await draftWithFile(core, 'a.txt', 'published');
    await core.records.publish(alice, 'resource', id);
    const published = await repos.files.get({ recordId: id, state: 'published' }, 'a.txt');
    const next = await core.records.newVersion(alice, 'resource', id);
    const nextFiles: FileOwner = { recordId: next.record.id, state: 'draft' };
    const sharing = (key: string): FileEntry => ({ ...pendingEntry(key, '2026-01-01T00:00:00.000Z'), blob: published?.blob ?? null });
    await repos.files.save(nextFiles, sharing('a.txt'));
    await repos.files.save(nextFiles, sharing('b.txt'));
    await core.files.delete(alice, 'resource', next.record.id, 'a.txt');
    await core.files.upload(alice, 'resource', next.record.id, 'b.txt', bytes('new'), 3);
    expect(storage.blobCount()).toBe(2);
    expect(await readAll((await core.files.content(anon, 'resource', id, 'published', 'a.txt', null)).body)).toBe('published');
  });

  it('pending entries published before that was refused are hidden, and neither imported nor carried into an edit', async () => {
    const { core, repos } = makeCore();
    const id = await draftWithFile(core, 'done.txt', 'done');
    await core.records.publish(alice, 'resource', id);
    await repos.files.save({ recordId: id, state: 'published' }, pendingEntry('stuck.txt', '2026-01-01T00:00:00.000Z'));
    expect((await core.files.list(anon, 'resource', id, 'published')).entries.map((e) => e.key)).toEqual(['done.txt']);
    expect(await failureOf(core.files.get(anon, 'resource', id, 'published', 'stuck.txt'))).toMatchObject({ kind: 'not_found' });
    await core.records.edit(alice, 'resource', id);
    expect((await core.files.list(alice, 'resource', id, 'draft')).entries.map((e) => e.key)).toEqual(['done.txt']);
    await core.records.publish(alice, 'resource', id);
    const next = await core.records.newVersion(alice, 'resource', id);
    expect((await core.files.importFromPrevious(alice, 'resource', next.record.id)).entries.map((e) => e.key)).toEqual(['done.txt']);
  });
});

describe('interrupted uploads', () => {
  it('gc and the start-up sweep remove partial writes untouched for the grace period', async () => {
    const { core, storage, clock } = makeCore();
    const cutoffs: string[] = [];
    storage.sweepPartialWrites = async (before) => {
      cutoffs.push(before);
      return { removed: 1, bytes: 7 };
    };
    expect((await core.files.collectGarbage(60)).partialUploads).toEqual({ removed: 1, bytes: 7 });
    expect(await core.files.sweepPartialUploads(30)).toEqual({ removed: 1, bytes: 7 });
    // The fixed clock ticks a millisecond per reading: whole minutes before now.
    const now = Date.parse(clock.now());
    expect(cutoffs.map((c) => Math.round((now - Date.parse(c)) / 60_000))).toEqual([60, 30]);
    expect(await failureOf(core.files.sweepPartialUploads(-1))).toMatchObject({ kind: 'invalid' });
  });
});

describe('gc and uploads in flight', () => {
  const HOUR = 60 * 60 * 1000;

  /** Chunks of `text`, the clock moved by `gapMs` before each after the first: a slow upload. */
  async function* slowly(clock: { advance(ms: number): void }, chunks: string[], gapMs: number, between?: (index: number) => Promise<void>): AsyncIterable<Uint8Array> {
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0) {
        clock.advance(gapMs);
        await between?.(i);
      }
      yield new TextEncoder().encode(chunk);
    }
  }

  async function pendingDraft(core: Core, key: string): Promise<string> {
    const { record } = await core.records.createDraft(alice, 'resource', { metadata: validMetadata });
    await core.files.start(alice, 'resource', record.id, [key]);
    return record.id;
  }

  it('keeps a blob dated older than the grace period while its upload is complete but not yet committed; the upload then commits and reads', async () => {
    // The storage dates the blob by the start of its write, two hours before it completes.
    const { core, storage, repos, clock } = makeCore({ storageDated: 'start' });
    const id = await pendingDraft(core, 'scene.tif');
    const reports: Awaited<ReturnType<Core['files']['collectGarbage']>>[] = [];
    const write = storage.write;
    // gc runs at the worst moment: the bytes are stored, the entry is not yet committed.
    storage.write = async (blobId, body, limits) => {
      const stored = await write(blobId, body, limits);
      for await (const blob of storage.list()) expect(Date.parse(clock.now()) - Date.parse(blob.written)).toBeGreaterThan(2 * HOUR);
      expect(await repos.files.referencedBlobIds()).toEqual(new Set());
      reports.push(await core.files.collectGarbage(60));
      return stored;
    };
    const chunks = ['first hour, ', 'second hour, ', 'done'];
    await core.files.upload(alice, 'resource', id, 'scene.tif', slowly(clock, chunks, 61 * 60 * 1000), undefined);
    expect(reports).toEqual([{ removed: 0, removedBytes: 0, kept: 1, partialUploads: { removed: 0, bytes: 0 }, abandonedUploads: 0 }]);
    // The commit ended the upload's record: from now on the entry keeps the blob.
    expect(await repos.blobUploads.list()).toEqual(new Map());
    await core.files.commit(alice, 'resource', id, 'scene.tif');
    const content = await core.files.content(alice, 'resource', id, 'draft', 'scene.tif', null);
    expect(await readAll(content.body)).toBe(chunks.join(''));
    expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 0, kept: 1 });
  });

  it('removes what a crashed upload left (its record, its complete or missing blob) once untouched for the grace period, not before', async () => {
    const { core, storage, repos, clock } = makeCore({ storageDated: 'start' });
    // A node crashed after storing one blob and before storing the other, both uncommitted.
    await repos.blobUploads.begin('blob-stored', clock.now());
    await storage.write('blob-stored', bytes('orphan'), { maxBytes: 100 });
    await repos.blobUploads.begin('blob-never-stored', clock.now());
    clock.advance(59 * 60 * 1000);
    expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 0, kept: 1, abandonedUploads: 0 });
    expect(storage.blobCount()).toBe(1);
    clock.advance(2 * 60 * 1000);
    expect(await core.files.collectGarbage(60)).toEqual({ removed: 1, removedBytes: 'orphan'.length, kept: 0, partialUploads: { removed: 0, bytes: 0 }, abandonedUploads: 2 });
    expect(storage.blobCount()).toBe(0);
    expect(await repos.blobUploads.list()).toEqual(new Map());
  });

  it('an upload stalled past the grace period, its record ended by gc, fails when its bytes flow again and stores nothing', async () => {
    const { core, storage, repos, clock } = makeCore();
    const id = await pendingDraft(core, 'stalled.csv');
    const reports: unknown[] = [];
    const body = slowly(clock, ['a,b\n', '1,2\n'], 2 * HOUR, async () => {
      reports.push(await core.files.collectGarbage(60));
    });
    expect(await failureOf(core.files.upload(alice, 'resource', id, 'stalled.csv', body, undefined))).toMatchObject({ kind: 'conflict' });
    expect(reports).toEqual([expect.objectContaining({ abandonedUploads: 1, removed: 0 })]);
    expect(storage.blobCount()).toBe(0);
    expect(await repos.blobUploads.list()).toEqual(new Map());
    const [entry] = (await core.files.list(alice, 'resource', id, 'draft')).entries;
    expect(entry).toMatchObject({ key: 'stalled.csv', status: 'pending', blob: null });
  });

  it('an upload whose record gc ended between its last byte and its commit fails instead of pointing at the deleted blob', async () => {
    const { core, storage, repos, clock } = makeCore({ storageDated: 'start' });
    const id = await pendingDraft(core, 'late.csv');
    const write = storage.write;
    storage.write = async (blobId, body, limits) => {
      const stored = await write(blobId, body, limits);
      // The commit is held up past the grace period, and gc runs then.
      clock.advance(2 * HOUR);
      expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 1, abandonedUploads: 1 });
      return stored;
    };
    expect(await failureOf(core.files.upload(alice, 'resource', id, 'late.csv', bytes('x,y'), 3))).toMatchObject({ kind: 'conflict' });
    expect(await repos.files.referencedBlobIds()).toEqual(new Set());
    expect(storage.blobCount()).toBe(0);
    expect((await core.files.list(alice, 'resource', id, 'draft')).entries).toMatchObject([{ key: 'late.csv', blob: null }]);
  });

  it('an upload the store failed is answered without waiting for the store again to delete its bytes', async () => {
    const { core, storage, repos } = makeCore();
    const id = await pendingDraft(core, 'frozen.csv');
    const stalled = new Error('the bucket did not answer');
    storage.write = async () => {
      throw stalled;
    };
    let answerDelete = () => {};
    const deleting = new Promise<void>((resolve) => (answerDelete = resolve));
    const deleted: string[] = [];
    storage.delete = async (blobId) => {
      await deleting;
      deleted.push(blobId);
    };
    // The delete has not answered yet: the upload's failure is the write's, at once.
    await expect(core.files.upload(alice, 'resource', id, 'frozen.csv', bytes('x,y'), 3)).rejects.toBe(stalled);
    expect(deleted).toEqual([]);
    expect((await repos.blobUploads.list()).size).toBe(1);
    // Once the store answers, the bytes go and so does the upload's record.
    answerDelete();
    await expect.poll(async () => (await repos.blobUploads.list()).size).toBe(0);
    expect(deleted).toHaveLength(1);
  });

  it('a failed upload ends its record and keeps no bytes', async () => {
    const { core, storage, repos } = makeCore();
    const id = await pendingDraft(core, 'short.csv');
    expect(await failureOf(core.files.upload(alice, 'resource', id, 'short.csv', bytes('abc'), 10))).toMatchObject({ kind: 'invalid' });
    expect(storage.blobCount()).toBe(0);
    expect(await repos.blobUploads.list()).toEqual(new Map());
  });
});
