/**
 * `pnpm --filter @krs/server dev` runs the TypeScript sources through tsx, whose loader names
 * inner functions with a helper of its own. The SQLite engine's reader threads run decoder
 * functions taken as source text, where that helper does not exist: a function embedded there
 * with inner named functions worked in the compiled server and failed every search in dev mode
 * (`__name is not defined`). The compiled server and vitest's transform never show it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, tsxLoader } from './real-server.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'krs-dev-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the server run from its sources through tsx (dev mode)', () => {
  it("answers phrase, fuzzy and field searches from the SQLite engine's reader threads", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { ...process.env, KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, PORT: String(port), KRS_LOG_LEVEL: 'warn' };
    const token = (await runKrs(env, 'tokens', 'create', '--user', 'dev@example.org')).stdout.trim();
    const child = spawn(process.execPath, ['--conditions=@krs/source', ...tsxLoader, 'src/main.ts'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((ok, fail) => {
        let out = '';
        child.stdout?.on('data', (c: Buffer) => (out += c.toString()) && out.includes('listening on') && ok());
        child.on('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
      });
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const metadata = { title: 'Sea ice extent maps', publication_date: '2024', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] };
      const { id } = (await (await fetch(`${base}/api/records`, { method: 'POST', headers, body: JSON.stringify({ metadata, files: { enabled: false } }) })).json()) as { id: string };
      expect((await fetch(`${base}/api/records/${id}/draft/actions/publish`, { method: 'POST', headers })).status).toBe(202);
      for (const q of ['"sea ice"', 'extnt~', 'metadata.title:"sea ice"', 'metadata.title:ice AND metadata.title:sea']) {
        const res = await fetch(`${base}/api/search?q=${encodeURIComponent(q)}`);
        expect(res.status, q).toBe(200);
        expect(((await res.json()) as { hits: { total: number } }).hits.total, q).toBe(1);
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((ok) => child.once('exit', ok));
    }
  });
});
