/** Start-up manners of the server process: operator mistakes are one line, never a stack trace. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawExchange } from './raw-exchange.ts';
import { freePort, outcome, spawnServer, startServer } from './real-server.ts';

const serverDir = resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'krs-start-'));

const start = (env: NodeJS.ProcessEnv) => outcome(spawnServer({ ...process.env, KRS_DATA_DIR: dataDir, KRS_BASE_URL: '', ...env }, ['ignore', 'pipe', 'pipe']));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('server start-up', () => {
  it('says in one line that the port is taken, and exits non-zero', async () => {
    const taken: Server = createServer();
    const port = await new Promise<number>((ok) =>
      taken.listen(0, '127.0.0.1', () => {
        const a = taken.address();
        ok(typeof a === 'object' && a ? a.port : 0);
      }),
    );
    try {
      const run = await start({ PORT: String(port), HOST: '127.0.0.1' });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`krs: port ${port} is in use on 127.0.0.1 (another krs or another program); stop it or set PORT\n`);
      expect(run.stdout).not.toContain('listening');
    } finally {
      taken.close();
    }
  });

  it('stops cleanly on Ctrl-C through pnpm start: exit 0, no package-manager error', async () => {
    const port = await new Promise<number>((ok) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const a = probe.address();
        probe.close(() => ok(typeof a === 'object' && a ? a.port : 0));
      });
    });
    // A terminal's Ctrl-C signals the whole foreground process group: pnpm, its shells and the server.
    const child = spawn('pnpm', ['start'], {
      cwd: resolve(serverDir, '../..'),
      // As a person runs it: the compiled server, without the test run's source-resolving NODE_OPTIONS.
      env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: '' },
      detached: true,
    });
    let output = '';
    let interrupted = false;
    const collect = (c: Buffer) => {
      output += c.toString();
      if (!interrupted && output.includes('listening on') && child.pid !== undefined) {
        interrupted = true;
        process.kill(-child.pid, 'SIGINT');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
    expect(output).toContain('krs: stopped');
    expect(output).not.toMatch(/ELIFECYCLE|ERR_PNPM/);
    expect(code).toBe(0);
  });

  it('names a bad setting in one line and exits 2', async () => {
    const run = await start({ PORT: 'abc' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('krs: PORT must be a whole number from 0 to 65535, got "abc".\n');
  });

  it('says in one line that PostgreSQL cannot be reached, naming it without its password, and exits 1', async () => {
    // A port nobody listens on: refused at once.
    const port = await freePort();
    const run = await start({ KRS_DATABASE_URL: `postgres://krs:s3cret-password@127.0.0.1:${port}/krs` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`krs: cannot start: PostgreSQL at postgres://krs@127.0.0.1:${port}/krs is not usable: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  it('says in one line that the data dir holds something that is not its database, and exits 1', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'krs-start-broken-'));
    try {
      writeFileSync(join(broken, 'krs.sqlite'), 'not a database, but long enough to be read as one: '.repeat(20));
      const run = await start({ KRS_DATA_DIR: broken });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`krs: cannot start: the database in the data dir ${broken} is not usable: file is not a database\n`);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('answers a client holding too many connections 429 in JSON, serves it again once it closes one, and counts the refusal', async () => {
    const port = await freePort();
    const server = await startServer({ ...process.env, KRS_DATA_DIR: dataDir, KRS_BASE_URL: '', PORT: String(port), KRS_MAX_CONNECTIONS_PER_CLIENT: '3' });
    const held: Socket[] = [];
    try {
      const open = () =>
        new Promise<Socket>((ok) => {
          const socket = connect(port, '127.0.0.1', () => ok(socket));
        });
      for (let i = 0; i < 3; i++) held.push(await open());
      const refused = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('application/json');
      expect(await refused.json()).toEqual({ status: 429, message: expect.stringContaining('at most 3') });

      held.pop()?.destroy();
      // Served again once the server has seen that connection go (at once when the machine is quiet).
      let refusals = 1;
      let metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      for (let i = 0; i < 50 && metrics.status === 429; i++) {
        refusals++;
        await new Promise((r) => setTimeout(r, 100));
        metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      }
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(new RegExp(`^krs_http_connections_refused_total\\{reason="per_client"\\} ${refusals}$`, 'm'));
    } finally {
      for (const s of held) s.destroy();
      await server.stop();
    }
  });

  it("answers what Node's HTTP parser refuses in JSON, as every other refusal: a URL past the header size 431, bytes that are not HTTP 400", async () => {
    const port = await freePort();
    const server = await startServer({ ...process.env, KRS_DATA_DIR: dataDir, KRS_BASE_URL: '', PORT: String(port) });
    const exchange = (raw: string) => rawExchange(port, raw);
    try {
      const long = await exchange(`GET /api/search?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(long.slice(0, 12)).toBe('HTTP/1.1 431');
      expect(long).toMatch(/\r\ncontent-type: application\/json\r\n/i);
      expect(JSON.parse(long.slice(long.indexOf('\r\n\r\n') + 4))).toEqual({ status: 431, message: expect.stringContaining('shorter URL') });
      const garbage = await exchange('HELLO THERE\r\n\r\n');
      expect(garbage.slice(0, 12)).toBe('HTTP/1.1 400');
      expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toEqual({ status: 400, message: 'The request is not valid HTTP/1.1.' });
      // The server goes on answering.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses request bodies past the memory bound at once, in JSON: 429 to the address holding its share, 503 to others while the server is full; takes them again once a body is done', async () => {
    const port = await freePort();
    const server = await startServer({ ...process.env, KRS_DATA_DIR: dataDir, KRS_BASE_URL: '', PORT: String(port), KRS_MAX_BODY_MEMORY: '1', KRS_MAX_BODY_MEMORY_PER_CLIENT: '1' });
    const size = 700 * 1024;
    const body = JSON.stringify({ metadata: { title: 'x'.repeat(size - 30) } }).padEnd(size, ' ');
    const head = (from: string) => `POST /api/records HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nX-From: ${from}\r\n\r\n`;
    /** Sends a request's head and `sent` bytes of its body from `localAddress`; the answer when it comes. */
    const begin = (localAddress: string, sent: number) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress });
      socket.write(head(localAddress) + body.slice(0, sent));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      const answered = new Promise<string>((ok) => {
        socket.on('data', () => text.includes('\r\n\r\n') && /content-length: (\d+)/i.exec(text) && text.length >= text.indexOf('\r\n\r\n') + 4 + Number(/content-length: (\d+)/i.exec(text)?.[1]) && ok(text));
        socket.on('close', () => ok(text));
      });
      return { socket, answered, rest: () => socket.write(body.slice(sent)) };
    };
    const statusOf = (answer: string) => Number(answer.slice(9, 12));
    const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: number; message: string };
    const holding = begin('127.0.0.1', 1000);
    try {
      // The first body's declared length is held (once the server has read its head): a second
      // from its address passes its share,
      const held = async () => Number(/^krs_http_body_bytes_held (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1]);
      for (let i = 0; i < 100 && (await held()) < size; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await held()).toBeGreaterThanOrEqual(size);
      const same = await begin('127.0.0.1', 0).answered;
      expect(statusOf(same)).toBe(429);
      expect(same).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(jsonOf(same)).toEqual({ status: 429, message: expect.stringContaining('request bodies, downloads and large answers at once') });
      // and one from another address passes the server's whole.
      const other = await begin('127.0.0.2', 0).answered;
      expect(statusOf(other)).toBe(503);
      expect(jsonOf(other)).toEqual({ status: 503, message: expect.stringContaining('try again shortly') });
      // Once the first body is read and answered (anonymous: 401), the same request passes the budget.
      holding.rest();
      expect(statusOf(await holding.answered)).toBe(401);
      const again = begin('127.0.0.2', 0);
      again.rest();
      expect(statusOf(await again.answered)).toBe(401);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/^krs_http_bodies_refused_total\{reason="per_client"\} 1$/m);
      expect(metrics).toMatch(/^krs_http_bodies_refused_total\{reason="total"\} 1$/m);
      // The searches' turns are counted too (search-gate.ts): none running or waiting now.
      expect(metrics).toMatch(/^krs_searches\{state="waiting"\} 0$/m);
      expect(metrics).toMatch(/^krs_http_searches_refused_total 0$/m);
    } finally {
      holding.socket.destroy();
      await server.stop();
    }
  });
});
