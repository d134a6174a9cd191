/**
 * Copies every stored blob from one file storage into another (local files into S3), resumable:
 * a blob the target already holds is skipped, and a write is atomic on either side, so a copy cut
 * short leaves no partial blob. Verification hashes both sides.
 */
import { createHash } from 'node:crypto';
import type { FileStorage } from '@krs/domain';

export interface BlobCopyProgress {
  copied: number;
  skipped: number;
  bytes: number;
}

export interface BlobReport {
  blobs: number;
  /** Blob ids missing from the target, or whose bytes differ from the source's. */
  differing: string[];
}

async function* chunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function md5Of(storage: FileStorage, id: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of chunks(await storage.read(id))) hash.update(chunk);
  return hash.digest('hex');
}

export async function copyBlobs(from: FileStorage, to: FileStorage, onProgress?: (p: BlobCopyProgress) => void): Promise<BlobCopyProgress> {
  const progress: BlobCopyProgress = { copied: 0, skipped: 0, bytes: 0 };
  for await (const blob of from.list()) {
    if (await to.exists(blob.id)) {
      progress.skipped++;
    } else {
      const sourceHash = createHash('md5');
      const body = (async function* () {
        for await (const chunk of chunks(await from.read(blob.id))) {
          sourceHash.update(chunk);
          yield chunk;
        }
      })();
      const stored = await to.write(blob.id, body, { maxBytes: blob.size, expectedLength: blob.size });
      const expected = sourceHash.digest('hex');
      if (stored.md5 !== expected) {
        await to.delete(blob.id);
        throw new Error(`blob ${blob.id} arrived with md5 ${stored.md5}, sent ${expected}; removed from the target`);
      }
      progress.copied++;
      progress.bytes += blob.size;
    }
    onProgress?.({ ...progress });
  }
  return progress;
}

/** Every source blob re-read on both sides and compared by md5. */
export async function verifyBlobs(from: FileStorage, to: FileStorage, onProgress?: (checked: number) => void): Promise<BlobReport> {
  const report: BlobReport = { blobs: 0, differing: [] };
  for await (const blob of from.list()) {
    report.blobs++;
    if (!(await to.exists(blob.id)) || (await md5Of(from, blob.id)) !== (await md5Of(to, blob.id))) report.differing.push(blob.id);
    onProgress?.(report.blobs);
  }
  return report;
}
