/**
 * Blobs on the local filesystem at `root/blobs/<first 2 chars>/<blobId>`. Bytes stream to a temp
 * file under `root/tmp` (same filesystem, so the rename is atomic) while md5 and size are
 * computed; then the file is fsynced, renamed into place and its directory fsynced. A blob is
 * either complete and durable under its id, or absent. Memory stays at one batch buffer per write
 * and one chunk per read, whatever the size.
 */
import { createHash, randomUUID } from 'node:crypto';
import { access, constants, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DomainError, notFound, type FileStorage, type ReadBuffers } from '@krs/domain';
import { assertSafeBlobId, isSafeBlobId } from './storage/blob-id.ts';
/** Network chunks are small; gathering them saves most write syscalls. */
const WRITE_BATCH = 1024 * 1024;
const READ_CHUNK = 256 * 1024;

/**
 * Bytes one write holds in memory: two batch buffers, no larger than the body when its length is
 * known (a 1 KiB file does not hold 2 MiB).
 */
export function fsWriteBufferBytes(expectedLength?: number): number {
  return 2 * batchFor(expectedLength);
}

/** Bytes one download of `length` bytes holds in memory while its client has not taken them: one chunk read. */
export function fsReadBufferBytes(length: number): number {
  return Math.max(1, Math.min(READ_CHUNK, length));
}

const batchFor = (expectedLength?: number) => Math.max(1, Math.min(WRITE_BATCH, expectedLength ?? WRITE_BATCH));
/**
 * A slow upload still reaches the disk this often, batch full or not, so its temp file's mtime
 * says it is alive: partial writes are swept by age (see sweepPartialWrites).
 */
const FLUSH_AT_LEAST_EVERY_MS = 60_000;

const isMissing = (e: unknown) => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ENOENT';
const missing = () => notFound('blob.not_found', 'Stored file content is missing.');

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `dir` and makes new directory entries durable, so a renamed blob cannot vanish with its parent. */
async function ensureDir(dir: string, root: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = dir; d.length >= first.length && d !== root; d = dirname(d)) await fsyncDir(dirname(d));
}

async function writeAll(handle: FileHandle, bytes: Uint8Array, length: number): Promise<void> {
  let done = 0;
  while (done < length) done += (await handle.write(bytes, done, length - done)).bytesWritten;
}

async function openBlob(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (e) {
    throw isMissing(e) ? missing() : e;
  }
}

/**
 * Reads [start, end] on demand: the next chunk is read only when the consumer asks for it (no
 * chunk read ahead: a download whose client stopped reading holds one chunk, not two), into a
 * new buffer or into the reader's own.
 */
function streamFrom(handle: FileHandle, start: number, end: number, buffers?: ReadBuffers): ReadableStream<Uint8Array> {
  let position = start;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const most = Math.min(READ_CHUNK, end + 1 - position);
        const buffer = most <= 0 ? new Uint8Array(0) : (buffers?.(most) ?? new Uint8Array(most));
        const want = Math.min(most, buffer.length);
        const { bytesRead } = want > 0 ? await handle.read(buffer, 0, want, position) : { bytesRead: 0 };
        if (bytesRead === 0) {
          await handle.close();
          controller.close();
          return;
        }
        position += bytesRead;
        controller.enqueue(buffer.subarray(0, bytesRead));
        // A short read of a regular file is its end: saying so now spares a read that would
        // return nothing (a small file is then one open, one read and one close).
        if (bytesRead < want || position > end) {
          controller.close();
          await handle.close().catch(() => undefined);
        }
      } catch (e) {
        await handle.close().catch(() => undefined);
        controller.error(e);
      }
    },
    async cancel() {
      await handle.close();
    },
  }, { highWaterMark: 0 });
}

/** Where a blob lives under `root`: the one statement of the layout, shared with backups. */
export function locateBlob(root: string, blobId: string): { dir: string; file: string } {
  assertSafeBlobId(blobId);
  const dir = join(root, 'blobs', blobId.slice(0, 2));
  return { dir, file: join(dir, blobId) };
}

export function createFsFileStorage(root: string): FileStorage {
  const tmpDir = join(root, 'tmp');
  const locate = (blobId: string) => locateBlob(root, blobId);

  return {
    async write(blobId, body, limits) {
      const { dir, file } = locate(blobId);
      await mkdir(tmpDir, { recursive: true });
      await ensureDir(dir, root);
      const tmp = join(tmpDir, `${blobId}.${randomUUID()}.part`);
      const handle = await open(tmp, 'wx');
      let handleOpen = true;
      let placed = false;
      try {
        const md5 = createHash('md5');
        // Two batch buffers: one is written to disk (on libuv's threads) while the other fills
        // from the network, so receiving, hashing and writing overlap instead of taking turns.
        // Copying into our own buffers also frees callers to reuse theirs after each chunk.
        const batch = batchFor(limits.expectedLength);
        const buffers = [new Uint8Array(batch), new Uint8Array(batch)] as const;
        let current = 0;
        let filled = 0;
        let size = 0;
        let writing: Promise<void> = Promise.resolve();
        let flushedAt = Date.now();
        const flush = async () => {
          flushedAt = Date.now();
          await writing;
          writing = writeAll(handle, buffers[current] as Uint8Array, filled);
          // Awaited at the next flush or at the end; noted now so a failure is never unhandled.
          writing.catch(() => undefined);
          current ^= 1;
          filled = 0;
        };
        try {
          for await (const chunk of body) {
            size += chunk.byteLength;
            if (size > limits.maxBytes) throw new DomainError('too_large', 'file.too_large', `A file may be at most ${limits.maxBytes} bytes.`);
            md5.update(chunk);
            for (let at = 0; at < chunk.byteLength; ) {
              const n = Math.min(chunk.byteLength - at, batch - filled);
              (buffers[current] as Uint8Array).set(chunk.subarray(at, at + n), filled);
              filled += n;
              at += n;
              if (filled === batch) await flush();
            }
            if (filled > 0 && Date.now() - flushedAt >= FLUSH_AT_LEAST_EVERY_MS) await flush();
          }
          await flush();
        } finally {
          // Never close the file under a write still in flight.
          await writing.catch(() => undefined);
        }
        await writing;
        if (limits.expectedLength !== undefined && limits.expectedLength !== size) {
          throw new DomainError('invalid', 'file.content_length', `Content-Length was ${limits.expectedLength} but ${size} bytes arrived.`);
        }
        await handle.sync();
        handleOpen = false;
        await handle.close();
        await rename(tmp, file);
        placed = true;
        await fsyncDir(dir);
        return { size, md5: md5.digest('hex') };
      } catch (e) {
        if (handleOpen) await handle.close().catch(() => undefined);
        await rm(placed ? file : tmp, { force: true });
        throw e;
      }
    },

    async read(blobId, range, buffers) {
      // Opened before streaming: a missing blob is a not_found now, not a broken stream later.
      const handle = await openBlob(locate(blobId).file);
      return streamFrom(handle, range?.start ?? 0, range?.end ?? Number.POSITIVE_INFINITY, buffers);
    },

    async readHead(blobId, bytes) {
      const handle = await openBlob(locate(blobId).file);
      try {
        const buffer = new Uint8Array(bytes);
        let filled = 0;
        for (;;) {
          const { bytesRead } = await handle.read(buffer, filled, bytes - filled, filled);
          if (bytesRead === 0 || (filled += bytesRead) === bytes) break;
        }
        return buffer.subarray(0, filled);
      } finally {
        await handle.close();
      }
    },

    async delete(blobId) {
      await rm(locate(blobId).file, { force: true });
    },

    async sweepPartialWrites(before) {
      const cutoff = Date.parse(before);
      const swept = { removed: 0, bytes: 0 };
      let names: string[];
      try {
        names = await readdir(tmpDir);
      } catch (e) {
        if (isMissing(e)) return swept;
        throw e;
      }
      for (const name of names) {
        if (!name.endsWith('.part')) continue;
        const file = join(tmpDir, name);
        // Each batch written bumps the mtime, so only a write that stopped long ago is this old.
        const info = await stat(file).catch(() => null);
        if (!info?.isFile() || info.mtimeMs >= cutoff) continue;
        await rm(file, { force: true });
        swept.removed++;
        swept.bytes += info.size;
      }
      return swept;
    },

    async *list() {
      const blobsDir = join(root, 'blobs');
      let shards: string[];
      try {
        shards = await readdir(blobsDir);
      } catch (e) {
        if (isMissing(e)) return;
        throw e;
      }
      for (const shard of shards) {
        for (const id of await readdir(join(blobsDir, shard)).catch(() => [] as string[])) {
          if (!isSafeBlobId(id)) continue;
          // A blob deleted between the listing and the stat is simply gone.
          const info = await stat(join(blobsDir, shard, id)).catch(() => null);
          if (info?.isFile()) yield { id, size: info.size, written: info.mtime.toISOString() };
        }
      }
    },

    async check() {
      // The root may not exist before the first upload; creating it is what the first write would do.
      await mkdir(root, { recursive: true });
      if (!(await stat(root)).isDirectory()) throw new Error(`${root} is not a directory`);
      await access(root, constants.R_OK | constants.W_OK | constants.X_OK);
      for (const dir of [join(root, 'blobs'), tmpDir]) {
        const info = await stat(dir).catch((e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
        if (info !== null && !info.isDirectory()) throw new Error(`${dir} is not a directory`);
        if (info !== null) await access(dir, constants.R_OK | constants.W_OK | constants.X_OK);
      }
    },

    async exists(blobId) {
      const { file } = locate(blobId);
      try {
        await stat(file);
        return true;
      } catch (e) {
        if (isMissing(e)) return false;
        throw e;
      }
    },
  };
}
