import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Client } from '@aws-sdk/client-s3';
import type { FileStorage } from '@krs/domain';
import { createS3FileStorage } from '../src/storage/s3-file-storage.ts';
import { fileStorageContract } from './contracts/file-storage.contract.ts';
import { externalS3Endpoint } from './external-s3.ts';
import { startTestS3, type TestS3 } from './s3rver-fixture.ts';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3.close();
});

let runs = 0;
/** Every storage gets its own prefix in the one bucket, so the contract's listings start empty. */
const fresh = (prefix = `run-${++runs}`) => createS3FileStorage(s3.client(), { bucket: s3.bucket, prefix });

fileStorageContract(externalS3Endpoint() ? 'S3 (KRS_TEST_S3_ENDPOINT)' : 'S3 (s3rver)', async () => fresh());

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

  it('stops reading the body and keeps nothing when S3 fails mid-upload', async () => {
    const client = s3.client();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UploadPartCommand') throw new Error('S3 went away');
        return next(args);
      },
      { step: 'initialize', name: 'failParts' },
    );
    const storage = createS3FileStorage(client, { bucket: s3.bucket, prefix: `run-${++runs}` });
    let closed = false;
    async function* endless() {
      try {
        for (;;) yield new Uint8Array(1 << 20);
      } finally {
        closed = true;
      }
    }
    await expect(storage.write('blob-s3-down', endless(), { maxBytes: 2 ** 40 })).rejects.toThrow('S3 went away');
    expect(closed).toBe(true);
    expect(await listed(storage)).toEqual([]);
  });

  it('fails its readiness check when the bucket is missing', async () => {
    await expect(createS3FileStorage(s3.client(), { bucket: `${s3.bucket}-absent` }).check()).rejects.toThrow();
  });

  it('deletes twice without error, and then answers not_found for its head', async () => {
    const storage = fresh();
    await storage.write('blob-twice', text('x'), { maxBytes: 10 });
    await storage.delete('blob-twice');
    await storage.delete('blob-twice');
    await expect(storage.readHead('blob-twice', 1)).rejects.toMatchObject({ kind: 'not_found', code: 'blob.not_found' });
  });
});

/**
 * s3rver keeps no listable multipart uploads, so the sweep is checked against an S3 stand-in for
 * the three calls it makes, answering from a table of uploads as S3 would (paged, by prefix).
 */
describe('S3 storage sweep of incomplete multipart uploads', () => {
  const now = Date.now();
  const ago = (minutes: number) => new Date(now - minutes * 60_000);
  interface FakeUpload {
    Key: string;
    UploadId: string;
    Initiated: Date;
    parts: { Size: number; LastModified: Date }[];
  }

  function fakeS3(uploads: FakeUpload[]): S3Client {
    const client = new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const input = args.input as { Prefix?: string; KeyMarker?: string; Key?: string; UploadId?: string };
        const answer = (output: object) => ({ output: { $metadata: {}, ...output }, response: {} });
        switch (context.commandName) {
          case 'ListMultipartUploadsCommand': {
            // Two uploads a page, so the sweep must follow the markers.
            const matching = uploads.filter((u) => u.Key.startsWith(input.Prefix ?? '')).sort((a, b) => (a.Key < b.Key ? -1 : 1));
            const from = input.KeyMarker === undefined ? 0 : matching.findIndex((u) => u.Key === input.KeyMarker) + 1;
            const page = matching.slice(from, from + 2);
            const last = page[page.length - 1];
            return answer({ Uploads: page, IsTruncated: from + 2 < matching.length, NextKeyMarker: last?.Key, NextUploadIdMarker: last?.UploadId }) as never;
          }
          case 'ListPartsCommand':
            return answer({ Parts: uploads.find((u) => u.UploadId === input.UploadId)?.parts ?? [], IsTruncated: false }) as never;
          case 'AbortMultipartUploadCommand': {
            const at = uploads.findIndex((u) => u.UploadId === input.UploadId);
            if (at < 0) throw Object.assign(new Error('The specified upload does not exist.'), { name: 'NoSuchUpload', $metadata: { httpStatusCode: 404 } });
            uploads.splice(at, 1);
            return answer({}) as never;
          }
          default:
            throw new Error(`unexpected ${context.commandName ?? 'command'}`);
        }
      },
      { step: 'initialize', name: 'fakeS3' },
    );
    return client;
  }

  it('aborts uploads untouched since the cut-off, and keeps fresh, active and foreign ones', async () => {
    const uploads: FakeUpload[] = [
      { Key: 'krs/blobs/blob-stalled', UploadId: 'u1', Initiated: ago(180), parts: [{ Size: 5_242_880, LastModified: ago(170) }, { Size: 5_242_880, LastModified: ago(150) }] },
      { Key: 'krs/blobs/blob-no-parts', UploadId: 'u2', Initiated: ago(120), parts: [] },
      { Key: 'krs/blobs/blob-slow', UploadId: 'u3', Initiated: ago(180), parts: [{ Size: 5_242_880, LastModified: ago(1) }] },
      { Key: 'krs/blobs/blob-fresh', UploadId: 'u4', Initiated: ago(5), parts: [] },
      { Key: 'other/blobs/blob-foreign', UploadId: 'u5', Initiated: ago(600), parts: [{ Size: 7, LastModified: ago(600) }] },
    ];
    const storage = createS3FileStorage(fakeS3(uploads), { bucket: 'b', prefix: 'krs' });
    expect(await storage.sweepPartialWrites(ago(60).toISOString())).toEqual({ removed: 2, bytes: 2 * 5_242_880 });
    expect(uploads.map((u) => u.UploadId).sort()).toEqual(['u3', 'u4', 'u5']);
    expect(await storage.sweepPartialWrites(ago(60).toISOString())).toEqual({ removed: 0, bytes: 0 });
  });
});
