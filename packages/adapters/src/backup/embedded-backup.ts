/**
 * Backup and restore of the embedded stack (SQLite file + blobs on the local filesystem).
 *
 * A backup is a directory: `krs.sqlite` (an online-backup image of one instant), `files/blobs/`
 * holding every blob a file entry of that image points at, and `manifest.json`, written last, so
 * a directory without it is an interrupted backup. The search index is not copied: it is a
 * projection, rebuilt from the database at the first start after a restore.
 *
 * Why the blobs match the image: a blob is written before the transaction that first points an
 * entry at it, blobs are never changed in place, and only `krs gc` deletes them (unreferenced
 * ones, after a grace period). So every blob the image references exists when it is read here,
 * unless a gc sweep runs during the backup.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { join } from 'node:path';
import { createDb, type DbHandle } from '../sql/create-db.ts';
import { createSqlFileRepository } from '../sql/file-repository.ts';
import { locateBlob } from '../fs-file-storage.ts';

export const BACKUP_FORMAT = 'krs-backup/1';
export const DATABASE_FILE = 'krs.sqlite';
const MANIFEST = 'manifest.json';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  created: string;
  database: string;
  blobs: number;
  bytes: number;
  /** Referenced by the image but absent from storage when the backup read them. */
  missing: string[];
  search: string;
}

export interface BackupProgress {
  phase: 'database' | 'files';
  done: number;
  total: number;
}

export interface BlobTransfer {
  /** Hard-link blobs where the filesystem allows (instant, no extra space), else copy. */
  link: boolean;
  onProgress?: (p: BackupProgress) => void;
}

const isCode = (e: unknown, ...codes: string[]) => typeof e === 'object' && e !== null && codes.includes(String((e as { code?: unknown }).code));

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return true;
    throw e;
  }
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, text);
  await fsync(tmp);
  await rename(tmp, file);
}

/** Links or copies blob `id` from one files root to another; false when the source is gone. */
async function transferBlob(fromRoot: string, toRoot: string, id: string, useLink: boolean): Promise<boolean> {
  const from = locateBlob(fromRoot, id).file;
  const to = locateBlob(toRoot, id);
  await mkdir(to.dir, { recursive: true });
  try {
    if (useLink) {
      try {
        await link(from, to.file);
        return true;
      } catch (e) {
        // Another filesystem, or one without hard links: copy instead.
        if (!isCode(e, 'EXDEV', 'EPERM', 'ENOTSUP', 'EMLINK')) throw e;
      }
    }
    await copyFile(from, to.file);
    await fsync(to.file);
    return true;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}

async function referencedBlobIds(databaseFile: string): Promise<string[]> {
  const handle = createDb(databaseFile);
  try {
    return [...(await createSqlFileRepository(handle.db).referencedBlobIds())].sort();
  } finally {
    await handle.close();
  }
}

/** Copies a running deployment into the empty (or new) directory `dest`. */
export async function takeBackup(source: { db: DbHandle; filesRoot: string }, dest: string, options: BlobTransfer): Promise<BackupManifest> {
  if (!(await isEmptyDir(dest))) throw new Error(`${dest} is not empty; a backup goes into a new or empty directory.`);
  await mkdir(dest, { recursive: true });
  const created = new Date().toISOString();
  const partial = join(dest, `${DATABASE_FILE}.part`);
  await source.db.backup(partial, (p) => options.onProgress?.({ phase: 'database', done: p.totalPages - p.remainingPages, total: p.totalPages }));
  await fsync(partial);
  await rename(partial, join(dest, DATABASE_FILE));
  const ids = await referencedBlobIds(join(dest, DATABASE_FILE));
  const filesRoot = join(dest, 'files');
  const missing: string[] = [];
  let bytes = 0;
  for (const [i, id] of ids.entries()) {
    if (await transferBlob(source.filesRoot, filesRoot, id, options.link)) bytes += (await stat(locateBlob(filesRoot, id).file)).size;
    else missing.push(id);
    options.onProgress?.({ phase: 'files', done: i + 1, total: ids.length });
  }
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    created,
    database: DATABASE_FILE,
    blobs: ids.length - missing.length,
    bytes,
    missing,
    search: 'not included: rebuilt from the database at the first start after a restore',
  };
  await writeDurably(join(dest, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (e) {
    if (isCode(e, 'ENOENT')) throw new Error(`${dir} holds no ${MANIFEST}: not a krs backup, or one that did not finish.`);
    throw e;
  }
  const manifest = JSON.parse(text) as Partial<BackupManifest>;
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`${dir}/${MANIFEST} is not a ${BACKUP_FORMAT} manifest.`);
  return manifest as BackupManifest;
}

/**
 * Restores a backup into `dataDir`, which must be new or empty (a restore never merges into
 * live data). The database is copied (it will be written to); blobs are copied, or linked when
 * asked. The database image is checked with SQLite's integrity check before it is put in place.
 */
export async function restoreBackup(source: string, dataDir: string, options: BlobTransfer): Promise<BackupManifest> {
  const manifest = await readManifest(source);
  if (!(await isEmptyDir(dataDir))) throw new Error(`${dataDir} is not empty; restore into a new or empty data directory.`);
  await mkdir(dataDir, { recursive: true });
  // Everything is read from the copy, so a backup on read-only media restores too.
  const partial = join(dataDir, `${DATABASE_FILE}.part`);
  await copyFile(join(source, manifest.database), partial);
  let handle: DbHandle | null = null;
  let ids: string[];
  try {
    handle = createDb(partial);
    const { rows } = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(handle.db);
    const verdict = rows.map((r) => r.integrity_check).join('; ');
    if (verdict !== 'ok') throw new Error(`The backup's database fails SQLite's integrity check: ${verdict}`);
    ids = [...(await createSqlFileRepository(handle.db).referencedBlobIds())].sort();
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw e;
  }
  await handle.close();
  const filesRoot = join(dataDir, 'files');
  const lost: string[] = [];
  for (const [i, id] of ids.entries()) {
    if (!(await transferBlob(join(source, 'files'), filesRoot, id, options.link))) lost.push(id);
    options.onProgress?.({ phase: 'files', done: i + 1, total: ids.length });
  }
  await fsync(partial);
  // Last: a data dir without krs.sqlite is visibly an unfinished restore.
  await rename(partial, join(dataDir, DATABASE_FILE));
  options.onProgress?.({ phase: 'database', done: 1, total: 1 });
  return { ...manifest, missing: [...new Set([...manifest.missing, ...lost])].sort() };
}
