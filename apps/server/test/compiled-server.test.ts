/**
 * The server as production runs it: compiled by `pnpm build` (which `pnpm install` and
 * `pnpm start` run) and started by plain Node from dist/, where @krs/domain and @krs/adapters
 * resolve to their compiled JavaScript: no tsx and no TypeScript source on the way. dist/ is built
 * before the suite (build-dist.ts), from the same project `pnpm build` compiles.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './real-server.ts';

const serverDir = resolve(import.meta.dirname, '..');
const exec = promisify(execFile);
// Without the source export condition the tests give the processes they start.
const { NODE_OPTIONS: _nodeOptions, ...plainEnv } = process.env;
const dataDir = mkdtempSync(join(tmpdir(), 'krs-compiled-'));

function untilListening(child: ChildProcess): Promise<void> {
  return new Promise((ok, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on')) ok();
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code} before listening`)));
  });
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the compiled server', () => {
  it('creates a token with the krs bin, serves the API from dist/ on an empty data dir, and exits cleanly on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { ...plainEnv, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base };

    const { stdout } = await exec(process.execPath, ['bin/krs.js', 'tokens', 'create', '--user', 'ada@example.org'], { cwd: serverDir, env });
    const token = stdout.trim();
    expect(token).toMatch(/^\S{20,}$/);

    const server = spawn(process.execPath, ['dist/main.js'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((ok) => server.on('exit', (code) => ok(code)));
    await untilListening(server);

    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/records`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { title: 'Flood extent maps' } }),
    });
    expect(created.status).toBe(201);
    const own = (await (await fetch(`${base}/api/user/records`, { headers: auth })).json()) as { hits: { total: number } };
    expect(own.hits.total).toBe(1);

    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
