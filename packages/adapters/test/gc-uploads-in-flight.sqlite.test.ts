/**
 * `krs gc` against real storage and SQLite: a blob the storage dates older than the grace period
 * (S3 dates an object uploaded in parts by its start) survives gc while its upload is complete
 * but not yet committed. The clock runs hours ahead of the storage's, so every blob looks old.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type FileStorage, type Identity } from '@krs/domain';
import { createFixedClock, createInMemorySearchIndex, createSequentialIds } from '@krs/domain/testing';
import { createFsFileStorage } from '../src/index.ts';
import { createS3FileStorage } from '../src/storage/s3-file-storage.ts';
import { startTestS3, type TestS3 } from './s3rver-fixture.ts';
import { openSqlite, tempDir } from './sqlite-fixture.ts';

const alice: Identity = { userId: 'alice', linkIds: [] };
const metadata = { title: 'Scenes', publication_date: '2025', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }] };
const HOUR = 60 * 60 * 1000;

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3.close();
});

let runs = 0;
const storages: [string, () => FileStorage][] = [
  ['filesystem', () => createFsFileStorage(join(tempDir(), 'files'))],
  ['S3', () => createS3FileStorage(s3.client(), { bucket: s3.bucket, prefix: `gc-${++runs}` })],
];

async function setup(storage: FileStorage) {
  const sqlite = await openSqlite();
  const clock = createFixedClock(new Date(Date.now() + 3 * HOUR).toISOString());
  const core = createCore({
    repos: sqlite.repos,
    uow: sqlite.uow,
    storage,
    search: createInMemorySearchIndex(),
    clock,
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 10, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
  return { core, clock, repos: sqlite.repos, close: sqlite.close };
}

describe.each(storages)('gc and uploads in flight on SQLite and %s storage', (_name, makeStorage) => {
  it('keeps a blob dated old whose upload is complete but not committed; the upload commits and reads', async () => {
    const storage = makeStorage();
    const { core, clock, repos, close } = await setup(storage);
    try {
      const { record } = await core.records.createDraft(alice, 'resource', { metadata });
      await core.files.start(alice, 'resource', record.id, ['scene.tif']);
      const chunks = ['first hour, ', 'second hour, ', 'done'];
      async function* slowly() {
        for (const [i, chunk] of chunks.entries()) {
          if (i > 0) clock.advance(61 * 60 * 1000);
          yield new TextEncoder().encode(chunk);
        }
      }
      const reports: unknown[] = [];
      const write = storage.write.bind(storage);
      storage.write = async (blobId, body, limits) => {
        const stored = await write(blobId, body, limits);
        reports.push(await core.files.collectGarbage(60));
        return stored;
      };
      await core.files.upload(alice, 'resource', record.id, 'scene.tif', slowly(), undefined);
      expect(reports).toEqual([expect.objectContaining({ removed: 0, kept: 1, abandonedUploads: 0 })]);
      await core.files.commit(alice, 'resource', record.id, 'scene.tif');
      const content = await core.files.content(alice, 'resource', record.id, 'draft', 'scene.tif', null);
      expect(await new Response(content.body).text()).toBe(chunks.join(''));
      expect(await repos.blobUploads.list()).toEqual(new Map());
    } finally {
      await close();
    }
  });

  it('removes a crashed upload\'s blob and record once untouched for the grace period, and blobs nothing points at', async () => {
    const storage = makeStorage();
    const { core, clock, repos, close } = await setup(storage);
    try {
      await repos.blobUploads.begin('blob-crashed', clock.now());
      await storage.write('blob-crashed', (async function* () { yield new TextEncoder().encode('orphan'); })(), { maxBytes: 100 });
      await storage.write('blob-unreferenced', (async function* () { yield new TextEncoder().encode('nothing'); })(), { maxBytes: 100 });
      expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 1, removedBytes: 'nothing'.length, kept: 1, abandonedUploads: 0 });
      clock.advance(HOUR + 60_000);
      expect(await core.files.collectGarbage(60)).toMatchObject({ removed: 1, removedBytes: 'orphan'.length, kept: 0, abandonedUploads: 1 });
      expect(await storage.exists('blob-crashed')).toBe(false);
      expect(await repos.blobUploads.list()).toEqual(new Map());
    } finally {
      await close();
    }
  });
});
