import { describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';
import { createInMemoryFileStorage } from '@krs/domain/testing';
import { createFsFileStorage } from '../src/fs-file-storage.ts';
import { withSmallBlobCache } from '../src/small-blob-cache.ts';
import { fileStorageContract } from './contracts/file-storage.contract.ts';
import { tempDir } from './sqlite-fixture.ts';

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
  const storage: FileStorage = { ...inner, read: (id, range, buffers) => (reads.push(id), inner.read(id, range, buffers)), readHead: (id, n) => (reads.push(`head:${id}`), inner.readHead(id, n)) };
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

  it("hands the reader's buffers down to the storage, and still keeps a small blob read that way", async () => {
    const { storage: inner, reads } = counting(createFsFileStorage(tempDir()));
    const storage = withSmallBlobCache(inner, { maxBlobBytes: 16, maxTotalBytes: 64 });
    const large = Uint8Array.from({ length: 300_000 }, (_, i) => i % 253);
    await storage.write('blob-large', once(large), limits);
    await storage.write('blob-small', once(new TextEncoder().encode('hello world')), limits);
    const own = new Uint8Array(64 * 1024);
    async function readInto(id: string): Promise<Buffer> {
      const reader = (await storage.read(id, undefined, () => own)).getReader();
      const got: Buffer[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return Buffer.concat(got);
        expect(value.buffer).toBe(own.buffer);
        got.push(Buffer.from(value));
      }
    }
    expect((await readInto('blob-large')).equals(Buffer.from(large))).toBe(true);
    expect((await readInto('blob-small')).toString()).toBe('hello world');
    own.fill(0);
    // Kept from that read (a copy, so the buffer's next use cannot touch it), answered from memory since.
    expect(await text(await storage.read('blob-small'))).toBe('hello world');
    expect(reads).toEqual(['blob-large', 'blob-small']);
  });

  it('reads no chunk of a blob it passes through before its reader asks for it', async () => {
    const storage = withSmallBlobCache(createFsFileStorage(tempDir()), { maxBlobBytes: 16, maxTotalBytes: 64 });
    await storage.write('blob-large', once(new Uint8Array(600_000)), limits);
    let chunksRead = 0;
    const reader = (await storage.read('blob-large', undefined, (n) => (chunksRead++, new Uint8Array(n)))).getReader();
    const settle = () => new Promise((ok) => setTimeout(ok, 20));
    await settle();
    expect(chunksRead).toBe(0);
    await reader.read();
    await settle();
    expect(chunksRead).toBe(1);
    await reader.cancel();
  });
});
