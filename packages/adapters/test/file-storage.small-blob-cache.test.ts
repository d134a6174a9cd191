import { describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';
import { createInMemoryFileStorage } from '@krs/domain/testing';
import { withSmallBlobCache } from '../src/small-blob-cache.ts';
import { fileStorageContract } from './contracts/file-storage.contract.ts';

// Small limits, so the contract's blobs are kept, evicted and passed through in turn.
fileStorageContract('in-memory behind the small-blob cache', async () => withSmallBlobCache(createInMemoryFileStorage(), { maxBlobBytes: 1024, maxTotalBytes: 4096 }));

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
const text = async (s: ReadableStream<Uint8Array>) => new TextDecoder().decode(await new Response(s).arrayBuffer());
const limits = { maxBytes: 1 << 20 };

/** Counts the reads that reach the storage underneath. */
function counting(inner: FileStorage) {
  const reads: string[] = [];
  const storage: FileStorage = { ...inner, read: (id, range) => (reads.push(id), inner.read(id, range)), readHead: (id, n) => (reads.push(`head:${id}`), inner.readHead(id, n)) };
  return { storage, reads };
}

describe('small-blob cache', () => {
  it('answers repeated whole and ranged reads of a small blob from memory, and forgets it when deleted', async () => {
    const { storage: inner, reads } = counting(createInMemoryFileStorage());
    const storage = withSmallBlobCache(inner, { maxBlobBytes: 16, maxTotalBytes: 64 });
    await storage.write('blob-a', once(new TextEncoder().encode('hello world')), limits);
    expect(await text(await storage.read('blob-a'))).toBe('hello world');
    expect(await text(await storage.read('blob-a'))).toBe('hello world');
    expect(await text(await storage.read('blob-a', { start: 6, end: 10 }))).toBe('world');
    expect(new TextDecoder().decode(await storage.readHead('blob-a', 5))).toBe('hello');
    expect(reads).toEqual(['blob-a']);
    await storage.delete('blob-a');
    await expect(storage.read('blob-a')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('passes larger blobs, ranged first reads and abandoned reads through without keeping them, and bounds its memory', async () => {
    const { storage: inner, reads } = counting(createInMemoryFileStorage());
    const storage = withSmallBlobCache(inner, { maxBlobBytes: 16, maxTotalBytes: 32 });
    await storage.write('blob-big', once(new Uint8Array(17)), limits);
    for (const id of ['blob-x', 'blob-y', 'blob-z']) await storage.write(id, once(new TextEncoder().encode(id.slice(-1).repeat(12))), limits);
    await text(await storage.read('blob-big'));
    await text(await storage.read('blob-big'));
    await text(await storage.read('blob-x', { start: 0, end: 1 }));
    await (await storage.read('blob-x')).cancel();
    await text(await storage.read('blob-x'));
    expect(reads).toEqual(['blob-big', 'blob-big', 'blob-x', 'blob-x', 'blob-x']);
    // 32 bytes hold two 12-byte blobs: reading y then z pushes x, the least recently used, out.
    await text(await storage.read('blob-y'));
    await text(await storage.read('blob-z'));
    await text(await storage.read('blob-x'));
    await text(await storage.read('blob-z'));
    expect(reads.slice(5)).toEqual(['blob-y', 'blob-z', 'blob-x']);
  });
});
