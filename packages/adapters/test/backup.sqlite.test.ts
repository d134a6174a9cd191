import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileOwner } from '@krs/domain';
import { createDb, createFsFileStorage, createSqlFileRepository, migrateToLatest, readManifest, restoreBackup, takeBackup } from '../src/index.ts';
import { fileEntry } from './contracts/builders.ts';
import { tempDir } from './sqlite-fixture.ts';

async function* text(s: string) {
  yield new TextEncoder().encode(s);
}

/** A data dir with two stored files, one blob shared by two entries. */
async function deployment() {
  const dataDir = tempDir();
  const handle = createDb(join(dataDir, 'krs.sqlite'));
  await migrateToLatest(handle.db);
  const filesRoot = join(dataDir, 'files');
  const storage = createFsFileStorage(filesRoot);
  const files = createSqlFileRepository(handle.db);
  const owner: FileOwner = { recordId: 'r1', state: 'published' };
  for (const [key, id, body] of [['a.txt', 'blob-aaaa', 'alpha'], ['b.txt', 'blob-bbbb', 'bravo']] as const) {
    const stored = await storage.write(id, text(body), { maxBytes: 100 });
    await files.save(owner, fileEntry(key, { status: 'completed', blob: { id, ...stored } }));
  }
  await files.save({ recordId: 'r2', state: 'draft' }, fileEntry('a.txt', { blob: { id: 'blob-aaaa', size: 5, md5: '2c1743a391305fbf367df8e4f069f9f9' } }));
  // Not referenced by any entry: a backup leaves it behind.
  await storage.write('blob-orphan', text('orphan'), { maxBytes: 100 });
  return { dataDir, handle, filesRoot };
}

describe('backup and restore of the embedded stack', () => {
  it('copies the database image and the blobs it references, then restores them into an empty data dir', async () => {
    const live = await deployment();
    const dest = join(tempDir(), 'backup');
    const phases = new Set<string>();
    const manifest = await takeBackup({ db: live.handle, filesRoot: live.filesRoot }, dest, { link: true, onProgress: (p) => phases.add(p.phase) });
    expect(manifest).toMatchObject({ format: 'krs-backup/1', blobs: 2, bytes: 10, missing: [] });
    expect([...phases]).toEqual(['database', 'files']);
    expect(await readManifest(dest)).toEqual(manifest);
    expect(existsSync(join(dest, 'files', 'blobs', 'bl', 'blob-orphan'))).toBe(false);
    // Hard-linked: same inode, no extra space.
    expect(statSync(join(dest, 'files', 'blobs', 'bl', 'blob-aaaa')).ino).toBe(statSync(join(live.filesRoot, 'blobs', 'bl', 'blob-aaaa')).ino);
    await live.handle.close();

    const target = join(tempDir(), 'restored');
    await restoreBackup(dest, target, { link: false });
    const restoredBlob = join(target, 'files', 'blobs', 'bl', 'blob-bbbb');
    expect(readFileSync(restoredBlob, 'utf8')).toBe('bravo');
    expect(statSync(restoredBlob).ino).not.toBe(statSync(join(dest, 'files', 'blobs', 'bl', 'blob-bbbb')).ino);
    const handle = createDb(join(target, 'krs.sqlite'));
    expect([...(await createSqlFileRepository(handle.db).referencedBlobIds())].sort()).toEqual(['blob-aaaa', 'blob-bbbb']);
    await handle.close();
  });

  it('names referenced blobs missing from storage instead of failing silently', async () => {
    const live = await deployment();
    const storage = createFsFileStorage(live.filesRoot);
    await storage.delete('blob-bbbb');
    const manifest = await takeBackup({ db: live.handle, filesRoot: live.filesRoot }, join(tempDir(), 'b'), { link: false });
    expect(manifest.missing).toEqual(['blob-bbbb']);
    expect(manifest.blobs).toBe(1);
    await live.handle.close();
  });

  it('never writes into a non-empty directory, and refuses what is not a finished backup', async () => {
    const live = await deployment();
    const busy = tempDir();
    writeFileSync(join(busy, 'something'), 'x');
    await expect(takeBackup({ db: live.handle, filesRoot: live.filesRoot }, busy, { link: true })).rejects.toThrow(/not empty/);
    const dest = join(tempDir(), 'b');
    await takeBackup({ db: live.handle, filesRoot: live.filesRoot }, dest, { link: true });
    await live.handle.close();
    await expect(restoreBackup(dest, live.dataDir, { link: false })).rejects.toThrow(/not empty/);
    const unfinished = tempDir();
    mkdirSync(join(unfinished, 'files'));
    await expect(restoreBackup(unfinished, join(tempDir(), 'new'), { link: false })).rejects.toThrow(/no manifest.json/);
  });

  it("refuses a database image that fails SQLite's integrity check, leaving no database behind", async () => {
    const live = await deployment();
    const dest = join(tempDir(), 'b');
    await takeBackup({ db: live.handle, filesRoot: live.filesRoot }, dest, { link: false });
    await live.handle.close();
    const image = readFileSync(join(dest, 'krs.sqlite'));
    // Scribble over the second half of the pages, keeping the header readable.
    image.fill(0x41, Math.floor(image.length / 2));
    writeFileSync(join(dest, 'krs.sqlite'), image);
    const target = join(tempDir(), 'restored');
    await expect(restoreBackup(dest, target, { link: false })).rejects.toThrow();
    expect(existsSync(join(target, 'krs.sqlite'))).toBe(false);
    expect(existsSync(join(target, 'krs.sqlite.part'))).toBe(false);
  });
});
