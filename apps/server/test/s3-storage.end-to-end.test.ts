/**
 * The server with `KRS_STORAGE=s3://...` against a real S3 server (s3rver, a process of its own,
 * or the endpoint in `KRS_TEST_S3_ENDPOINT`):
 * a file goes up through the three-step API, is published, and comes back by a Range request,
 * while the data dir holds no blob.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { startTestS3, type TestS3 } from './test-s3.ts';

let s3: TestS3;
let server: RealServer;
let base = '';
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  s3 = await startTestS3('krs-e2e');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    ...process.env,
    PORT: String(port),
    KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-e2e-s3-')),
    KRS_BASE_URL: base,
    INIT_CWD: serverDir,
    ...s3.env,
    KRS_STORAGE: `s3://${s3.bucket}/deploy-1`,
  };
  server = await startServer(env);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await s3?.stop();
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await runKrs(env, ...args)).stdout.trim();

async function call(method: string, url: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { ...headers };
  if (token) h['authorization'] = `Bearer ${token}`;
  let payload: string | Uint8Array | undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) payload = body;
  else if (body !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  return fetch(url.startsWith('http') ? url : `${base}${url}`, { method, headers: h, body: payload });
}
const json = async (res: Response) => (await res.json()) as { [key: string]: any };

const metadata = {
  title: 'Sentinel-1 backscatter over the Po valley',
  publication_date: '2025-03-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
};

describe('S3 storage end to end', () => {
  it('uploads through the three-step API into the bucket, publishes, and serves a Range from S3', { timeout: 120_000 }, async () => {
    const token = await cli('tokens', 'create', '--user', 'ada@example.org');
    const draft = await json(await call('POST', '/api/records', token, { metadata }));
    expect(draft['errors']).toBeUndefined();
    const entry = (await json(await call('POST', draft['links'].files, token, [{ key: 'backscatter.bin' }])))['entries'][0];

    // Past S3's 5 MiB minimum part, so the upload is multipart.
    const body = new Uint8Array(6 * 1024 * 1024 + 123);
    for (let i = 0; i < body.byteLength; i++) body[i] = (i * 13 + (i >> 12)) & 0xff;
    const put = await call('PUT', entry.links.content, token, body, { 'content-type': 'application/octet-stream' });
    expect(put.status).toBe(200);
    const committed = await json(await call('POST', entry.links.commit, token));
    expect(committed).toMatchObject({ status: 'completed', size: body.byteLength, checksum: `md5:${createHash('md5').update(body).digest('hex')}` });
    const published = await call('POST', draft['links'].publish, token);
    expect(published.status).toBe(202);
    const record = await json(published);

    const files = await json(await call('GET', record['links'].files, null));
    const content = files['entries'][0].links.content as string;
    // Across the boundary between the first and second part.
    const start = 5 * 1024 * 1024 - 100;
    const end = 5 * 1024 * 1024 + 99;
    const ranged = await call('GET', content, null, undefined, { range: `bytes=${start}-${end}` });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${end}/${body.byteLength}`);
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(body.subarray(start, end + 1));

    // The bytes are in the bucket under the prefix, and nowhere in the data dir.
    expect(await s3.keys('deploy-1/blobs/')).toHaveLength(1);
    expect(existsSync(join(env['KRS_DATA_DIR'] ?? '', 'files', 'blobs'))).toBe(false);
    // The readiness probe asks the bucket too.
    expect((await call('GET', '/readyz', null)).status).toBe(200);
  });

  it('stops at start-up with one line when the bucket is not there', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-e2e-s3-'));
    try {
      // On Node 20 the AWS SDK's NodeVersionSupportWarning may come first; the krs line is the last.
      // Named after this run's bucket: a fixed name might exist on a shared endpoint.
      const absent = `${s3.bucket}-absent`;
      const started = startServer({ ...env, PORT: String(await freePort()), KRS_DATA_DIR: dataDir, KRS_STORAGE: `s3://${absent}` }, { captureStderr: true });
      await expect(started).rejects.toThrow(new RegExp(`\\skrs: [^\\n]*S3 storage s3://${absent} is not usable: bucket ${absent} does not exist\\n$`));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
