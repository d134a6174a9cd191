/** Blob storage in memory, with the same limits, id rules and atomicity as the filesystem adapter. */
import SparkMD5 from 'spark-md5';
import { DomainError, notFound } from '../errors.ts';
import type { FileStorage } from '../ports.ts';

const SAFE_ID = /^[A-Za-z0-9-]{2,128}$/;

/** Ids become paths in real storage; refusing the same ids here keeps tests honest. */
function checkId(blobId: string): string {
  if (!SAFE_ID.test(blobId)) throw new Error(`Refusing unsafe blob id ${JSON.stringify(blobId)}`);
  return blobId;
}

/**
 * `now` dates each write, for `list()`; the system clock unless a test fixes it. `dated: 'start'`
 * dates a blob by when its write began, as S3 dates an object uploaded in parts.
 */
export function createInMemoryFileStorage(
  now: () => string = () => new Date().toISOString(),
  options: { dated?: 'start' | 'end' } = {},
): FileStorage & { blobCount(): number } {
  const blobs = new Map<string, Uint8Array>();
  const written = new Map<string, string>();
  const get = (blobId: string) => {
    const b = blobs.get(checkId(blobId));
    if (!b) throw notFound('blob.not_found', 'Stored file content is missing.');
    return b;
  };
  return {
    async write(blobId, body, limits) {
      checkId(blobId);
      const began = now();
      const parts: Uint8Array[] = [];
      const md5 = new SparkMD5.ArrayBuffer();
      let size = 0;
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > limits.maxBytes) throw new DomainError('too_large', 'file.too_large', `A file may be at most ${limits.maxBytes} bytes.`);
        // Copied: the caller may reuse its buffer once the next chunk is asked for.
        const own = chunk.slice();
        md5.append(own.buffer);
        parts.push(own);
      }
      if (limits.expectedLength !== undefined && limits.expectedLength !== size) {
        throw new DomainError('invalid', 'file.content_length', `Content-Length was ${limits.expectedLength} but ${size} bytes arrived.`);
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.byteLength;
      }
      blobs.set(blobId, all);
      written.set(blobId, options.dated === 'start' ? began : now());
      return { size, md5: md5.end() };
    },
    async read(blobId, range) {
      const b = get(blobId);
      const bytes = range ? b.slice(range.start, range.end + 1) : b.slice();
      return new ReadableStream<Uint8Array>({
        start(controller) {
          if (bytes.byteLength > 0) controller.enqueue(bytes);
          controller.close();
        },
      });
    },
    async readHead(blobId, bytes) {
      return get(blobId).slice(0, bytes);
    },
    async delete(blobId) {
      blobs.delete(checkId(blobId));
      written.delete(blobId);
    },
    // Nothing survives a crash in memory, so nothing is ever left half-written.
    async sweepPartialWrites() {
      return { removed: 0, bytes: 0 };
    },
    async exists(blobId) {
      return blobs.has(checkId(blobId));
    },
    async *list() {
      for (const [id, bytes] of [...blobs]) yield { id, size: bytes.byteLength, written: written.get(id) ?? '' };
    },
    check: async () => undefined,
    blobCount: () => blobs.size,
  };
}
