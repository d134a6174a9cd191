/**
 * Uploads and downloads against a real server process: a stalled client is dropped after the idle
 * time (an upload with a JSON 408 and nothing kept), a slow but steady one is never cut, and temp
 * data a crash left is swept at start-up. The idle times are set to one second to keep the test short.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledEnv, freePort, krsArgs, serverDir, spawnServer } from './real-server.ts';

let server: ChildProcess;
let port = 0;
let dataDir = '';
let token = '';
/** What the server wrote to stderr: where unexpected errors are logged. */
const serverErrors: string[] = [];

beforeAll(async () => {
  port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'krs-uploads-'));
  // What a crash in the middle of an upload leaves: a temp file nobody touched for hours.
  mkdirSync(join(dataDir, 'files', 'tmp'), { recursive: true });
  const leftover = join(dataDir, 'files', 'tmp', 'crashed-0001.0b6c2a1e.part');
  writeFileSync(leftover, 'half an upload');
  const longAgo = new Date(Date.now() - 3 * 3600_000);
  utimesSync(leftover, longAgo, longAgo);
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: `http://127.0.0.1:${port}`, KRS_UPLOAD_IDLE_TIMEOUT: '1', KRS_DOWNLOAD_IDLE_TIMEOUT: '1', INIT_CWD: serverDir };
  token = execFileSync(...krsArgs('tokens', 'create', '--user', 'ada@example.org'), { cwd: serverDir, env: compiledEnv(env), encoding: 'utf8' }).trim();
  server = spawnServer(env, ['ignore', 'pipe', 'pipe']);
  server.stderr?.on('data', (chunk: Buffer) => serverErrors.push(chunk.toString()));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not start')), 30_000);
    server.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on')) {
        clearTimeout(timer);
        ok();
      }
    });
    server.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
}, 60_000);

afterAll(async () => {
  if (server.exitCode === null) {
    await new Promise<void>((ok) => {
      server.on('exit', () => ok());
      server.kill('SIGTERM');
    });
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function draftWithPendingFile(key: string): Promise<string> {
  const draft = await api('POST', '/api/records', { metadata: { title: 'Uploads' } });
  expect((await api('POST', `/api/records/${draft.json.id}/draft/files`, [{ key }])).status).toBe(201);
  return draft.json.id as string;
}

/** A PUT whose body the test writes piece by piece; resolves with the answer, whenever it comes. */
function openUpload(path: string, headers: Record<string, string> = {}) {
  let answered = false;
  const req = request({ host: '127.0.0.1', port, path, method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', ...headers } });
  const response = new Promise<{ status: number; headers: Record<string, unknown>; json: any }>((ok, fail) => {
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', (e) => (answered ? undefined : fail(e)));
  });
  return { req, response };
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const tmpFiles = () => readdirSync(join(dataDir, 'files', 'tmp'));
const blobCount = () => (existsSync(join(dataDir, 'files', 'blobs')) ? readdirSync(join(dataDir, 'files', 'blobs')).flatMap((d) => readdirSync(join(dataDir, 'files', 'blobs', d))).length : 0);

describe('upload timeouts on a real server', () => {
  it('swept the temp data of an upload a crash cut short when it started', () => {
    expect(tmpFiles()).toEqual([]);
  });

  it('drops an upload that sends some bytes and then stalls: JSON 408 after the idle time, nothing kept', async () => {
    const id = await draftWithPendingFile('stalled.bin');
    const blobsBefore = blobCount();
    const { req, response } = openUpload(`/api/records/${id}/draft/files/stalled.bin/content`, { 'content-length': '1000' });
    req.write(Buffer.alloc(100, 1));
    const answer = await response;
    req.destroy();
    expect(answer.status).toBe(408);
    expect(answer.json).toEqual({ status: 408, message: 'No upload data arrived for 1 seconds; nothing was kept.' });
    expect(answer.headers['connection']).toBe('close');
    expect(tmpFiles()).toEqual([]);
    expect(blobCount()).toBe(blobsBefore);
    const entry = await api('GET', `/api/records/${id}/draft/files/stalled.bin`);
    expect(entry.json.status).toBe('pending');
    expect(entry.json.size).toBeUndefined();
  }, 30_000);

  it('keeps nothing of an upload whose client goes away mid-body, and logs no server fault', async () => {
    const id = await draftWithPendingFile('gone.bin');
    const blobsBefore = blobCount();
    const faultsBefore = serverErrors.length;
    const { req, response } = openUpload(`/api/records/${id}/draft/files/gone.bin/content`, { 'content-length': '100000' });
    response.catch(() => undefined);
    req.write(Buffer.alloc(5000, 2));
    await pause(200);
    req.destroy();
    // The server notices, cleans up, and goes on answering.
    for (let i = 0; i < 50 && tmpFiles().length > 0; i++) await pause(100);
    expect(tmpFiles()).toEqual([]);
    expect(blobCount()).toBe(blobsBefore);
    expect((await api('GET', `/api/records/${id}/draft/files/gone.bin`)).json.status).toBe('pending');
    expect(serverErrors.slice(faultsBefore).join('')).not.toContain('Internal');
    expect(serverErrors.slice(faultsBefore).join('')).not.toMatch(/Error/);
  }, 30_000);

  it('never cuts a slow but steady upload, however much longer than the idle time it takes', async () => {
    const id = await draftWithPendingFile('steady.bin');
    const { req, response } = openUpload(`/api/records/${id}/draft/files/steady.bin/content`);
    // Three and a half idle times in all, never silent for more than half of one.
    for (let i = 0; i < 7; i++) {
      req.write(Buffer.alloc(1000, i));
      await pause(500);
    }
    req.end();
    const answer = await response;
    expect(answer.status).toBe(200);
    const committed = await api('POST', `/api/records/${id}/draft/files/steady.bin/commit`);
    expect(committed.json).toMatchObject({ status: 'completed', size: 7000 });
  }, 30_000);
});

describe('download timeouts on a real server', () => {
  const SIZE = 32 * 1024 * 1024;
  // Bytes that differ everywhere, so a chunk sent twice or overwritten shows.
  const CONTENT = randomBytes(SIZE);
  /** A draft of the test's user with a committed file of SIZE bytes; its content's path. */
  async function draftWithLargeFile(key: string): Promise<string> {
    const id = await draftWithPendingFile(key);
    const put = await fetch(`http://127.0.0.1:${port}/api/records/${id}/draft/files/${key}/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: CONTENT,
    });
    expect(put.status).toBe(200);
    expect((await api('POST', `/api/records/${id}/draft/files/${key}/commit`)).status).toBe(200);
    return `/api/records/${id}/draft/files/${key}/content`;
  }
  /** A download on a raw socket that the test reads from only when it says so; counts the bytes that came. */
  function openDownload(path: string) {
    const socket = connect({ host: '127.0.0.1', port });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    let received = 0;
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => {
      received += c.length;
      chunks.push(c);
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((ok) => socket.on('close', () => ok()));
    const body = () => {
      const all = Buffer.concat(chunks);
      return all.subarray(all.indexOf('\r\n\r\n') + 4);
    };
    return { socket, closed, received: () => received, body };
  }
  const bytesHeld = async () => Number(/^krs_http_body_bytes_held (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1]);

  it('drops a download whose client stops reading after the idle time, and gives back what it held', async () => {
    const path = await draftWithLargeFile('stalled.bin');
    const download = openDownload(path);
    // Stops reading at its first bytes: a quiet machine sends the whole file in well under a second.
    download.socket.once('data', () => download.socket.pause());
    // While the client takes nothing, the download's read buffer is counted against the body budget.
    await pause(500);
    expect(await bytesHeld()).toBeGreaterThan(0);
    // Dropped after the idle time: what it held is given back, and the connection is closed (which
    // a paused client sees once it reads again).
    for (let i = 0; i < 100 && (await bytesHeld()) > 0; i++) await pause(50);
    expect(await bytesHeld()).toBe(0);
    download.socket.resume();
    await download.closed;
    expect(download.received()).toBeLessThan(SIZE);
    // The server goes on serving the same file whole.
    const again = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(200);
    expect((await again.arrayBuffer()).byteLength).toBe(SIZE);
    expect(serverErrors.join('')).not.toMatch(/"level":(50|60)/);
  }, 30_000);

  it('never cuts a download read slowly but steadily, however much longer than the idle time it takes', async () => {
    const path = await draftWithLargeFile('steady-read.bin');
    const download = openDownload(path);
    let dropped = false;
    void download.closed.then(() => (dropped = true));
    // Three and a half idle times in all, the client reading a little every half of one.
    for (let i = 0; i < 7; i++) {
      download.socket.pause();
      await pause(450);
      download.socket.resume();
      await pause(50);
    }
    expect(dropped).toBe(false);
    download.socket.resume();
    while (download.received() < SIZE && !dropped) await pause(50);
    expect(download.received()).toBeGreaterThan(SIZE);
    while (download.body().length < SIZE && !dropped) await pause(50);
    // Byte for byte, though the connection often held chunks the server had read.
    expect(download.body().equals(CONTENT)).toBe(true);
    download.socket.destroy();
  }, 30_000);
});
