import { describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}
const text = (s: ReadableStream<Uint8Array>) => new Response(s).text();

export function fileStorageContract(name: string, make: () => Promise<FileStorage>): void {
  describe(`file storage contract: ${name}`, () => {
    it('stores streamed bytes with their md5 and size, and reads them back whole or by range', async () => {
      const storage = await make();
      const stored = await storage.write('blob-0001', chunks('hel', 'lo'), { maxBytes: 100 });
      expect(stored).toEqual({ size: 5, md5: '5d41402abc4b2a76b9719d911017c592' });
      expect(await text(await storage.read('blob-0001'))).toBe('hello');
      expect(await text(await storage.read('blob-0001', { start: 1, end: 3 }))).toBe('ell');
      expect(new TextDecoder().decode(await storage.readHead('blob-0001', 2))).toBe('he');
      expect(await storage.exists('blob-0001')).toBe(true);
      await storage.delete('blob-0001');
      expect(await storage.exists('blob-0001')).toBe(false);
    });

    it('keeps nothing when the size limit is passed or the length does not match', async () => {
      const storage = await make();
      await expect(storage.write('blob-0002', chunks('0123456789'), { maxBytes: 4 })).rejects.toMatchObject({ kind: 'too_large' });
      await expect(storage.write('blob-0003', chunks('abc'), { maxBytes: 100, expectedLength: 5 })).rejects.toMatchObject({ kind: 'invalid' });
      expect(await storage.exists('blob-0002')).toBe(false);
      expect(await storage.exists('blob-0003')).toBe(false);
    });

    it('answers not found for a missing blob', async () => {
      const storage = await make();
      await expect(storage.read('blob-missing')).rejects.toMatchObject({ kind: 'not_found' });
    });
  });
}
