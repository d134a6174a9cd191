/**
 * Blobs on the local filesystem. Bytes stream to a temp file while md5 and size are computed,
 * then the file is fsynced, renamed into place and its directory fsynced: a blob is either
 * complete and durable under its id, or absent. Paths come from generated ids only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DomainError, notFound, type FileStorage } from '@krs/domain';

const SAFE_ID = /^[A-Za-z0-9-]{8,64}$/;
const WRITE_BATCH = 1024 * 1024;

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function createFsFileStorage(root: string): FileStorage {
  const tmpDir = join(root, 'tmp');
  const pathOf = (blobId: string) => {
    if (!SAFE_ID.test(blobId)) throw new Error(`Refusing unsafe blob id ${JSON.stringify(blobId)}`);
    return { dir: join(root, 'blobs', blobId.slice(0, 2)), file: join(root, 'blobs', blobId.slice(0, 2), blobId) };
  };

  return {
    async write(blobId, body, limits) {
      const { dir, file } = pathOf(blobId);
      await mkdir(tmpDir, { recursive: true });
      await mkdir(dir, { recursive: true });
      const tmp = join(tmpDir, `${randomUUID()}.part`);
      const handle = await open(tmp, 'wx');
      const md5 = createHash('md5');
      let size = 0;
      let ok = false;
      try {
        // Network chunks are small; writing them in batches of about 1 MiB saves most syscalls
        // while memory stays bounded by one batch.
        let batch: Uint8Array[] = [];
        let batchBytes = 0;
        const flush = async () => {
          if (batchBytes === 0) return;
          let written = 0;
          while (written < batchBytes) {
            written += (await handle.writev(written === 0 ? batch : [Buffer.concat(batch).subarray(written)])).bytesWritten;
          }
          batch = [];
          batchBytes = 0;
        };
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > limits.maxBytes) throw new DomainError('too_large', 'file.too_large', `A file may be at most ${limits.maxBytes} bytes.`);
          md5.update(chunk);
          batch.push(chunk);
          batchBytes += chunk.byteLength;
          if (batchBytes >= WRITE_BATCH) await flush();
        }
        await flush();
        if (limits.expectedLength !== undefined && limits.expectedLength !== size) {
          throw new DomainError('invalid', 'file.content_length', `Content-Length was ${limits.expectedLength} but ${size} bytes arrived.`);
        }
        await handle.sync();
        ok = true;
      } finally {
        await handle.close();
        if (!ok) await rm(tmp, { force: true });
      }
      await rename(tmp, file);
      await fsyncDir(dir);
      return { size, md5: md5.digest('hex') };
    },
    async read(blobId, range) {
      const { file } = pathOf(blobId);
      try {
        await stat(file);
      } catch {
        throw notFound('blob.not_found', 'Stored file content is missing.');
      }
      const stream = createReadStream(file, range ? { start: range.start, end: range.end } : {});
      return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    },
    async readHead(blobId, bytes) {
      const handle = await open(pathOf(blobId).file, 'r');
      try {
        const buffer = new Uint8Array(bytes);
        const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    async delete(blobId) {
      await rm(pathOf(blobId).file, { force: true });
    },
    async exists(blobId) {
      try {
        await stat(pathOf(blobId).file);
        return true;
      } catch {
        return false;
      }
    },
  };
}
