/** Start-up manners of the server process: operator mistakes are one line, never a stack trace. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
});
