/** Blob storage in memory, with the same limits and atomicity as the filesystem adapter. */
import SparkMD5 from 'spark-md5';
import { DomainError, notFound } from '../errors.ts';
import type { FileStorage } from '../ports.ts';

export function createInMemoryFileStorage(): FileStorage & { blobCount(): number } {
  const blobs = new Map<string, Uint8Array>();
  const get = (id: string) => {
    const b = blobs.get(id);
    if (!b) throw notFound('blob.not_found', 'Stored file content is missing.');
    return b;
  };
  return {
    async write(blobId, body, limits) {
      const parts: Uint8Array[] = [];
      const md5 = new SparkMD5.ArrayBuffer();
      let size = 0;
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > limits.maxBytes) throw new DomainError('too_large', 'file.too_large', `A file may be at most ${limits.maxBytes} bytes.`);
        md5.append(chunk.slice().buffer);
        parts.push(chunk.slice());
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
      return { size, md5: md5.end() };
    },
    async read(blobId, range) {
      const b = get(blobId);
      const slice = range ? b.slice(range.start, range.end + 1) : b.slice();
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(slice);
          controller.close();
        },
      });
    },
    async readHead(blobId, bytes) {
      return get(blobId).slice(0, bytes);
    },
    async delete(blobId) {
      blobs.delete(blobId);
    },
    async exists(blobId) {
      return blobs.has(blobId);
    },
    blobCount: () => blobs.size,
  };
}
