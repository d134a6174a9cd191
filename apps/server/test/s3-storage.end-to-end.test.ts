/**
 * The server with `KRS_STORAGE=s3://...` against a real S3 server (s3rver, a process of its own):
 * a file goes up through the three-step API, is published, and comes back by a Range request,
 * while the data dir holds no blob.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serverDir, startServer, tsx, type RealServer } from './real-server.ts';

const bucket = 'krs-e2e';
let s3rver: ChildProcess;
let s3Dir = '';
let server: RealServer;
let base = '';
let env: NodeJS.ProcessEnv;

/** s3rver on a port of its choosing (`-p 0`), ready once it prints it. */
async function startS3rver(dir: string): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(join(serverDir, 'node_modules', '.bin', 's3rver'), ['-d', dir, '-a', '127.0.0.1', '-p', '0', '-s', '--configure-bucket', bucket], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`s3rver did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /listening on [\d.]+:(\d+)/.exec(out);
      if (listening?.[1]) {
        clearTimeout(timer);
        ok(listening[1]);
      }
    });
    child.on('exit', (code) => fail(new Error(`s3rver exited with ${code}: ${out}`)));
  });
  return { child, endpoint: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), 'krs-s3rver-'));
  const s3 = await startS3rver(s3Dir);
  s3rver = s3.child;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    ...process.env,
    PORT: String(port),
    KRS_DATA_DIR: mkdtempSync(join(tmpdir(), 'krs-e2e-s3-')),
    KRS_BASE_URL: base,
    INIT_CWD: serverDir,
    KRS_STORAGE: `s3://${bucket}/deploy-1`,
    KRS_S3_FORCE_PATH_STYLE: 'true',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  server = await startServer(env);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await new Promise<void>((ok) => {
    if (!s3rver || s3rver.exitCode !== null || s3rver.signalCode !== null) return ok();
    s3rver.on('exit', () => ok());
    s3rver.kill('SIGTERM');
  });
  rmSync(env['KRS_DATA_DIR'] ?? '', { recursive: true, force: true });
  rmSync(s3Dir, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await promisify(execFile)(tsx, ['src/cli.ts', ...args], { cwd: serverDir, env, encoding: 'utf8' })).stdout.trim();

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
    const objects = readdirSync(join(s3Dir, bucket, 'deploy-1', 'blobs')).filter((name) => name.endsWith('._S3rver_object'));
    expect(objects).toHaveLength(1);
    expect(existsSync(join(env['KRS_DATA_DIR'] ?? '', 'files', 'blobs'))).toBe(false);
    // The readiness probe asks the bucket too.
    expect((await call('GET', '/readyz', null)).status).toBe(200);
  });

  it('stops at start-up with one line when the bucket is not there', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-e2e-s3-'));
    try {
      // On Node 20 the AWS SDK's NodeVersionSupportWarning may come first; the krs line is the last.
      const started = startServer({ ...env, PORT: String(await freePort()), KRS_DATA_DIR: dataDir, KRS_STORAGE: 's3://no-such-bucket' }, { captureStderr: true });
      await expect(started).rejects.toThrow(/\skrs: [^\n]*S3 storage s3:\/\/no-such-bucket is not usable: bucket no-such-bucket does not exist\n$/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
