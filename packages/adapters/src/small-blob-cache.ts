/**
 * Keeps the bytes of small blobs in memory, so a popular small file (a README, a thumbnail, a
 * GeoJSON outline) is answered without the three thread-pool round trips of open, read and
 * close. Blobs never change once written, and one is deleted only when no file entry points at
 * it any more, so a cached copy can never be stale for anyone allowed to ask for it; a delete
 * through this storage drops the copy too. Memory is bounded by `maxTotalBytes`, least recently
 * used first out.
 */
import type { FileStorage } from '@krs/domain';
import { sizeBoundedCache } from './size-bounded-cache.ts';

export interface SmallBlobCacheOptions {
  /** Blobs up to this size are kept (default 64 KiB). */
  maxBlobBytes?: number;
  /** All kept blobs together (default 32 MiB). */
  maxTotalBytes?: number;
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // A copy: a consumer may keep or transfer the chunk it is given.
      if (bytes.length > 0) controller.enqueue(bytes.slice());
      controller.close();
    },
  });
}

/** Passes `source` through and, when it ends within `limit` bytes, hands its bytes to `keep`. */
function remembering(source: ReadableStream<Uint8Array>, limit: number, keep: (bytes: Uint8Array) => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let chunks: Uint8Array[] | null = [];
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        if (chunks !== null) {
          const bytes = new Uint8Array(size);
          let at = 0;
          for (const c of chunks) {
            bytes.set(c, at);
            at += c.length;
          }
          keep(bytes);
        }
        return;
      }
      if (chunks !== null) {
        size += value.length;
        if (size > limit) chunks = null;
        else chunks.push(value.slice());
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
    // Nothing read ahead of the consumer: a paused download holds one chunk, and the buffer a
    // reader hands down is not filled again while the chunk before is still being sent.
  }, { highWaterMark: 0 });
}

export function withSmallBlobCache(storage: FileStorage, options: SmallBlobCacheOptions = {}): FileStorage {
  const maxBlob = options.maxBlobBytes ?? 64 * 1024;
  const maxTotal = options.maxTotalBytes ?? 32 * 1024 * 1024;
  const kept = sizeBoundedCache<Uint8Array>(maxTotal, (bytes) => bytes.length, maxBlob);
  return {
    write: (blobId, body, limits) => storage.write(blobId, body, limits),
    sweepPartialWrites: (before) => storage.sweepPartialWrites(before),
    exists: (blobId) => storage.exists(blobId),
    list: () => storage.list(),
    check: () => storage.check(),
    async read(blobId, range, buffers) {
      const bytes = kept.get(blobId);
      if (bytes !== undefined) return streamOf(range === undefined ? bytes : bytes.subarray(range.start, Math.min(range.end + 1, bytes.length)));
      // The reader's buffers go on down: a chunk kept here is a copy.
      const stream = await storage.read(blobId, range, buffers);
      // Only whole reads are kept: a range says nothing about the rest of the blob.
      return range === undefined ? remembering(stream, maxBlob, (b) => kept.set(blobId, b)) : stream;
    },
    async readHead(blobId, n) {
      const bytes = kept.get(blobId);
      return bytes !== undefined ? bytes.slice(0, n) : storage.readHead(blobId, n);
    },
    async delete(blobId) {
      kept.drop(blobId);
      await storage.delete(blobId);
    },
  };
}
