import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';

export async function* chunksOf(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}
const textChunks = (...parts: string[]) => (async function* () {
  for (const p of parts) yield new TextEncoder().encode(p);
})();
const bytesOf = async (s: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(s).arrayBuffer());
const textOf = (s: ReadableStream<Uint8Array>) => new Response(s).text();
const md5Of = (b: Uint8Array) => createHash('md5').update(b).digest('hex');

/** Deterministic bytes that are not all alike, so misplaced ranges show. */
function pattern(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + (i >> 8)) & 0xff;
  return out;
}

export function fileStorageContract(name: string, make: () => Promise<FileStorage>): void {
  describe(`file storage contract: ${name}`, () => {
    it('answers a readiness check before the first write and after it', async () => {
      const storage = await make();
      await expect(storage.check()).resolves.toBeUndefined();
      await storage.write('blob-ready', textChunks('x'), { maxBytes: 10 });
      await expect(storage.check()).resolves.toBeUndefined();
    });

    it('stores streamed bytes with their md5 and size, and reads them back', async () => {
      const storage = await make();
      expect(await storage.write('blob-0001', textChunks('hel', 'lo'), { maxBytes: 100 })).toEqual({ size: 5, md5: '5d41402abc4b2a76b9719d911017c592' });
      expect(await textOf(await storage.read('blob-0001'))).toBe('hello');
      expect(await storage.exists('blob-0001')).toBe(true);
    });

    it('round-trips a few megabytes in uneven chunks', async () => {
      const storage = await make();
      const bytes = pattern(3 * 1024 * 1024 + 17);
      const stored = await storage.write('blob-big', chunksOf(bytes, 65_521), { maxBytes: bytes.byteLength, expectedLength: bytes.byteLength });
      expect(stored).toEqual({ size: bytes.byteLength, md5: md5Of(bytes) });
      const back = await bytesOf(await storage.read('blob-big'));
      expect(back.byteLength).toBe(bytes.byteLength);
      expect(md5Of(back)).toBe(md5Of(bytes));
    });

    it('stores an empty body', async () => {
      const storage = await make();
      expect(await storage.write('blob-empty', textChunks(), { maxBytes: 10, expectedLength: 0 })).toEqual({ size: 0, md5: 'd41d8cd98f00b204e9800998ecf8427e' });
      expect((await bytesOf(await storage.read('blob-empty'))).byteLength).toBe(0);
      expect((await storage.readHead('blob-empty', 10)).byteLength).toBe(0);
    });

    it('keeps what each chunk held when it was given, even if the caller reuses its buffer', async () => {
      const storage = await make();
      const buffer = new Uint8Array(4);
      async function* reusing() {
        for (const fill of [1, 2, 3]) {
          buffer.fill(fill);
          yield buffer;
        }
      }
      const stored = await storage.write('blob-reuse', reusing(), { maxBytes: 100 });
      const expected = new Uint8Array([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
      expect(stored.md5).toBe(md5Of(expected));
      expect(await bytesOf(await storage.read('blob-reuse'))).toEqual(expected);
    });

    it('reads inclusive ranges: first byte, last byte, across chunks, and the whole', async () => {
      const storage = await make();
      const bytes = pattern(600_000);
      await storage.write('blob-range', chunksOf(bytes, 10_000), { maxBytes: 1_000_000 });
      const range = async (start: number, end: number) => bytesOf(await storage.read('blob-range', { start, end }));
      expect(await range(0, 0)).toEqual(bytes.subarray(0, 1));
      expect(await range(599_999, 599_999)).toEqual(bytes.subarray(599_999));
      expect(await range(262_000, 530_000)).toEqual(bytes.subarray(262_000, 530_001));
      expect(md5Of(await range(0, 599_999))).toBe(md5Of(bytes));
      expect(await textOf(await storage.read('blob-range', { start: 5, end: 4 }))).toBe('');
    });

    it('reads the head of a blob, or all of a shorter one', async () => {
      const storage = await make();
      await storage.write('blob-head', textChunks('hello'), { maxBytes: 100 });
      expect(new TextDecoder().decode(await storage.readHead('blob-head', 2))).toBe('he');
      expect(new TextDecoder().decode(await storage.readHead('blob-head', 4096))).toBe('hello');
    });

    it('accepts exactly the size limit', async () => {
      const storage = await make();
      expect((await storage.write('blob-limit', textChunks('12', '34'), { maxBytes: 4, expectedLength: 4 })).size).toBe(4);
    });

    it('refuses a body past the limit as soon as it passes it, keeping nothing', async () => {
      const storage = await make();
      let pulled = 0;
      async function* endless() {
        for (;;) {
          pulled++;
          yield new Uint8Array(3);
        }
      }
      await expect(storage.write('blob-large', endless(), { maxBytes: 10 })).rejects.toMatchObject({ kind: 'too_large', code: 'file.too_large' });
      expect(pulled).toBe(4);
      expect(await storage.exists('blob-large')).toBe(false);
    });

    it('refuses a body shorter or longer than announced, keeping nothing', async () => {
      const storage = await make();
      await expect(storage.write('blob-short', textChunks('abc'), { maxBytes: 100, expectedLength: 5 })).rejects.toMatchObject({ kind: 'invalid', code: 'file.content_length' });
      await expect(storage.write('blob-long', textChunks('abcdef'), { maxBytes: 100, expectedLength: 5 })).rejects.toMatchObject({ kind: 'invalid', code: 'file.content_length' });
      expect(await storage.exists('blob-short')).toBe(false);
      expect(await storage.exists('blob-long')).toBe(false);
    });

    it('keeps nothing when the body fails mid-way', async () => {
      const storage = await make();
      async function* broken() {
        yield new Uint8Array(5);
        throw new Error('client went away');
      }
      await expect(storage.write('blob-broken', broken(), { maxBytes: 100 })).rejects.toThrow('client went away');
      expect(await storage.exists('blob-broken')).toBe(false);
    });

    it('answers not_found for a missing blob, and deleting one is fine', async () => {
      const storage = await make();
      await expect(storage.read('blob-missing')).rejects.toMatchObject({ kind: 'not_found' });
      await expect(storage.readHead('blob-missing', 4)).rejects.toMatchObject({ kind: 'not_found' });
      expect(await storage.exists('blob-missing')).toBe(false);
      await storage.delete('blob-missing');
    });

    it('lists every stored blob with its size and write time, and nothing deleted or failed', async () => {
      const storage = await make();
      const listed = async () => {
        const out: { id: string; size: number; written: string }[] = [];
        for await (const b of storage.list()) out.push(b);
        return out.sort((a, b) => (a.id < b.id ? -1 : 1));
      };
      expect(await listed()).toEqual([]);
      const before = Date.now() - 2000;
      await storage.write('blob-list-a', textChunks('abc'), { maxBytes: 100 });
      await storage.write('zz-list-b', textChunks('hello!'), { maxBytes: 100 });
      await storage.write('blob-list-c', textChunks('x'), { maxBytes: 100 });
      await expect(storage.write('blob-list-d', textChunks('too long'), { maxBytes: 3 })).rejects.toThrow();
      await storage.delete('blob-list-c');
      const blobs = await listed();
      expect(blobs.map((b) => [b.id, b.size])).toEqual([
        ['blob-list-a', 3],
        ['zz-list-b', 6],
      ]);
      for (const b of blobs) expect(Date.parse(b.written)).toBeGreaterThanOrEqual(before);
    });

    it('sweeping partial writes leaves stored blobs and a write in flight alone', async () => {
      const storage = await make();
      await storage.write('blob-kept', textChunks('kept'), { maxBytes: 10 });
      let release: () => void = () => undefined;
      const gate = new Promise<void>((ok) => (release = ok));
      async function* paused() {
        yield new TextEncoder().encode('first half, ');
        await gate;
        yield new TextEncoder().encode('second half');
      }
      const writing = storage.write('blob-flight', paused(), { maxBytes: 100 });
      await new Promise((ok) => setTimeout(ok, 20));
      expect(await storage.sweepPartialWrites(new Date(Date.now() - 60_000).toISOString())).toEqual({ removed: 0, bytes: 0 });
      release();
      expect((await writing).size).toBe(23);
      expect(await textOf(await storage.read('blob-flight'))).toBe('first half, second half');
      expect(await storage.sweepPartialWrites(new Date(Date.now() + 60_000).toISOString())).toEqual({ removed: 0, bytes: 0 });
      expect(await textOf(await storage.read('blob-kept'))).toBe('kept');
    });

    it('deletes a blob', async () => {
      const storage = await make();
      await storage.write('blob-gone', textChunks('x'), { maxBytes: 10 });
      await storage.delete('blob-gone');
      expect(await storage.exists('blob-gone')).toBe(false);
      await expect(storage.read('blob-gone')).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('refuses ids that could name another path', async () => {
      const storage = await make();
      for (const id of ['../../etc/passwd', 'a/b', '..', 'a\\b', '', '.hidden', 'x\u0000y', 'ab cd']) {
        await expect(storage.write(id, textChunks('x'), { maxBytes: 10 }), id).rejects.toThrow();
        await expect(storage.read(id), id).rejects.toThrow();
        await expect(storage.readHead(id, 1), id).rejects.toThrow();
        await expect(storage.exists(id), id).rejects.toThrow();
        await expect(storage.delete(id), id).rejects.toThrow();
      }
    });
  });
}
