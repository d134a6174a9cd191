/**
 * An S3 bucket that stalls (a server stopped, a host that drops packets): every call of the S3
 * storage fails within its bounds and serves again once the bucket answers, while a download its
 * reader takes slowly is never cut.
 */
import { createHash, randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStorage } from '@krs/domain';
import { createS3FileStorage } from '../src/storage/s3-file-storage.ts';
import { answeredRetries, boundedClientConfig, boundedReadClientConfig, S3_MAX_ATTEMPTS, type S3Timeouts } from '../src/storage/s3-timeouts.ts';
import { chunksOf } from './contracts/file-storage.contract.ts';
import { testS3Region } from './external-s3.ts';
import { startFreezableProxy, type FreezableProxy } from './freezable-proxy.ts';
import { startTestS3, type TestS3 } from './s3rver-fixture.ts';

const timeouts: S3Timeouts = { connectMs: 300, idleMs: 300 };
/** One attempt's bounds (a call that timed out is not tried again), with room for a loaded machine. */
const BOUND_MS = timeouts.connectMs + timeouts.idleMs + 1_500;

let s3: TestS3;
let proxy: FreezableProxy;
const clients: S3Client[] = [];
beforeAll(async () => {
  s3 = await startTestS3('krs-stalls');
  const target = new URL(s3.endpoint);
  proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port || 80) });
});
afterAll(async () => {
  proxy.thaw();
  for (const c of clients.splice(0)) c.destroy();
  await proxy.close();
  await s3.close();
});

let runs = 0;
/** The storage as openS3FileStorage builds it, through the proxy. */
function storageBehindProxy(): FileStorage {
  const endpoint = `http://${proxy.host}:${proxy.port}`;
  const credentials = s3.endpoint.includes('127.0.0.1') ? { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {};
  const base = { endpoint, region: testS3Region(), forcePathStyle: true, ...credentials };
  const client = new S3Client({ ...base, ...boundedClientConfig(timeouts) });
  const readClient = new S3Client({ ...base, ...boundedReadClientConfig(timeouts) });
  clients.push(client, readClient);
  return createS3FileStorage(client, { bucket: s3.bucket, prefix: `stalled-${++runs}`, reads: { client: readClient, idleMs: timeouts.idleMs } });
}

const bytes = (length: number) => new Uint8Array(randomBytes(length));
const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const sixMiB = 6 * 1024 * 1024 + 3;

/** How long `work` took to fail, and with what. */
async function failure(work: () => Promise<unknown>): Promise<{ ms: number; error: { name?: unknown; code?: unknown } }> {
  const started = Date.now();
  try {
    await work();
  } catch (error) {
    return { ms: Date.now() - started, error: error as { name?: unknown } };
  }
  throw new Error('expected a failure');
}

describe('an S3 bucket that stalls', () => {
  it('fails writes, reads and heads within the bounds, then serves once it answers again', async () => {
    const storage = storageBehindProxy();
    // Connections open and kept alive, as on a busy node.
    await storage.write('blob-before', chunksOf(bytes(10), 10), { maxBytes: 10 });
    proxy.freeze();
    try {
      const calls = {
        small: () => storage.write('blob-small', chunksOf(bytes(1000), 100), { maxBytes: 1000 }),
        multipart: () => storage.write('blob-large', chunksOf(bytes(sixMiB), 1 << 20), { maxBytes: sixMiB, expectedLength: sixMiB }),
        read: async () => new Response(await storage.read('blob-before')).arrayBuffer(),
        exists: () => storage.exists('blob-before'),
      };
      const failed = await Promise.all(Object.values(calls).map(failure));
      for (const f of failed) {
        expect(f.error.name).toBe('TimeoutError');
        expect(f.ms).toBeLessThan(BOUND_MS);
      }
    } finally {
      proxy.thaw();
    }
    const all = bytes(sixMiB);
    expect(await storage.write('blob-after', chunksOf(all, 1 << 20), { maxBytes: sixMiB })).toEqual({ size: sixMiB, md5: md5(all) });
    expect(md5(new Uint8Array(await new Response(await storage.read('blob-after')).arrayBuffer()))).toBe(md5(all));
    // A write that failed left nothing readable.
    expect(await storage.exists('blob-large')).toBe(false);
  });

  it('fails a download whose bytes stop coming mid-way, within the idle bound', async () => {
    const storage = storageBehindProxy();
    const all = bytes(sixMiB);
    await storage.write('blob-cut', chunksOf(all, 1 << 20), { maxBytes: sixMiB });
    const reader = (await storage.read('blob-cut')).getReader();
    expect((await reader.read()).done).toBe(false);
    proxy.freeze();
    try {
      const cut = await failure(async () => {
        for (;;) if ((await reader.read()).done) return;
      });
      expect(cut.error).toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT' });
      expect(cut.ms).toBeLessThan(timeouts.idleMs + 1_500);
    } finally {
      proxy.thaw();
    }
  });

  it('never cuts a download whose reader rests longer than the idle bound between chunks', async () => {
    const storage = storageBehindProxy();
    const all = bytes(sixMiB);
    await storage.write('blob-slow', chunksOf(all, 1 << 20), { maxBytes: sixMiB });
    const reader = (await storage.read('blob-slow')).getReader();
    const got: Uint8Array[] = [];
    for (let n = 0; ; n++) {
      const { done, value } = await reader.read();
      if (done) break;
      got.push(value);
      // Three rests of three idle bounds each, as a client that reads slowly makes the server do.
      if (n < 3) await new Promise((r) => setTimeout(r, 3 * timeouts.idleMs));
    }
    expect(md5(Buffer.concat(got))).toBe(md5(all));
  });
});

describe('retries of S3 calls', () => {
  const retries = answeredRetries();
  type ErrorInfo = Parameters<typeof retries.refreshRetryTokenForRetry>[1];
  const failed = (errorType: ErrorInfo['errorType'], name: string): ErrorInfo => ({ errorType, error: Object.assign(new Error(name), { name, $metadata: {}, cause: undefined }) });

  it('tries again what S3 answered with a server error, throttling or a reset, up to the attempts', async () => {
    for (const info of [failed('SERVER_ERROR', 'InternalError'), failed('THROTTLING', 'SlowDown'), failed('TRANSIENT', 'ECONNRESET')]) {
      let token = await retries.acquireInitialRetryToken('');
      for (let attempt = 1; attempt < S3_MAX_ATTEMPTS; attempt++) {
        token = await retries.refreshRetryTokenForRetry(token, info);
        expect(token.getRetryCount()).toBe(attempt);
        expect(token.getRetryDelay()).toBeLessThanOrEqual(2_000);
      }
      await expect(retries.refreshRetryTokenForRetry(token, info)).rejects.toThrow();
    }
  });

  it('never tries again a call that timed out, nor one S3 refused', async () => {
    const first = await retries.acquireInitialRetryToken('');
    await expect(retries.refreshRetryTokenForRetry(first, failed('TRANSIENT', 'TimeoutError'))).rejects.toThrow();
    await expect(retries.refreshRetryTokenForRetry(first, failed('CLIENT_ERROR', 'AccessDenied'))).rejects.toThrow();
  });
});
