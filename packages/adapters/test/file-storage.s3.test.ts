import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';
import { createS3FileStorage } from '../src/index.ts';
import { fileStorageContract } from './contracts/file-storage.contract.ts';
import { startS3rver } from './s3rver-fixture.ts';

let s3: Awaited<ReturnType<typeof startS3rver>>;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3.close();
});

let runs = 0;
/** Every storage gets its own prefix in the one bucket, so the contract's listings start empty. */
const fresh = (prefix = `run-${++runs}`) => createS3FileStorage(s3.client(), { bucket: s3.bucket, prefix });

fileStorageContract('S3 (s3rver)', async () => fresh());

async function* text(s: string) {
  yield new TextEncoder().encode(s);
}
async function listed(storage: FileStorage): Promise<string[]> {
  const ids: string[] = [];
  for await (const b of storage.list()) ids.push(b.id);
  return ids.sort();
}
const sixMiB = 6 * 1024 * 1024 + 5;
function bytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 7 + (i >> 10)) & 0xff;
  return out;
}
async function* chunksOf(all: Uint8Array, size: number) {
  for (let at = 0; at < all.byteLength; at += size) yield all.subarray(at, at + size);
}

describe('S3 storage specifics', () => {
  it('keeps storages with different prefixes apart in one bucket', async () => {
    const a = fresh('tenant-a');
    const b = fresh('tenant-b/');
    await a.write('blob-a1', text('a'), { maxBytes: 10 });
    await b.write('blob-b1', text('b'), { maxBytes: 10 });
    expect(await listed(a)).toEqual(['blob-a1']);
    expect(await listed(b)).toEqual(['blob-b1']);
    expect(await a.exists('blob-b1')).toBe(false);
    await expect(a.read('blob-b1')).rejects.toMatchObject({ kind: 'not_found' });
    const unprefixed = createS3FileStorage(s3.client(), { bucket: s3.bucket });
    expect(await listed(unprefixed)).toEqual([]);
  });

  it('uploads a body past one part in several parts, with the md5 of the whole', async () => {
    const storage = fresh();
    const all = bytes(sixMiB);
    const stored = await storage.write('blob-multi', chunksOf(all, 100_003), { maxBytes: sixMiB, expectedLength: sixMiB });
    expect(stored).toEqual({ size: sixMiB, md5: createHash('md5').update(all).digest('hex') });
    const back = new Uint8Array(await new Response(await storage.read('blob-multi')).arrayBuffer());
    expect(createHash('md5').update(back).digest('hex')).toBe(stored.md5);
    const tail = new Uint8Array(await new Response(await storage.read('blob-multi', { start: sixMiB - 10, end: sixMiB + 100 })).arrayBuffer());
    expect(tail).toEqual(all.subarray(sixMiB - 10));
    expect(await listed(storage)).toEqual(['blob-multi']);
  });

  it('refuses a body past the limit after parts went up, leaving nothing listed', async () => {
    const storage = fresh();
    const all = bytes(sixMiB);
    await expect(storage.write('blob-over', chunksOf(all, 1 << 20), { maxBytes: sixMiB - 1 })).rejects.toMatchObject({ kind: 'too_large', code: 'file.too_large' });
    await expect(storage.write('blob-short', chunksOf(all, 1 << 20), { maxBytes: 2 * sixMiB, expectedLength: sixMiB + 1 })).rejects.toMatchObject({ kind: 'invalid' });
    expect(await storage.exists('blob-over')).toBe(false);
    expect(await listed(storage)).toEqual([]);
  });

  it('fails its readiness check when the bucket is missing', async () => {
    await expect(createS3FileStorage(s3.client(), { bucket: 'no-such-bucket' }).check()).rejects.toThrow();
  });
});
