/**
 * A backup of a live deployment: a real server process takes writes and publishes from eight
 * clients while `krs backup` runs; the backup is restored into a new data dir, verified, and
 * served by a second process, where every write acknowledged before the backup began is found.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runKrs, serverDir, spawnServer } from './real-server.ts';

const scratch = mkdtempSync(join(tmpdir(), 'krs-backup-e2e-'));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

async function deployment(name: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: join(scratch, name), KRS_BASE_URL: base, INIT_CWD: serverDir, KRS_LOG_LEVEL: 'warn' };
  /** Resolves with stdout and the exit status; never throws on a non-zero exit. */
  const cli = async (...args: string[]) => {
    try {
      const { stdout } = await runKrs(env, ...args);
      return { code: 0, stdout };
    } catch (e) {
      const failed = e as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, stdout: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
    }
  };
  const start = async () => {
    const child = spawnServer({ ...env, KRS_LOG_LEVEL: 'info' }, ['ignore', 'pipe', 'inherit']);
    children.push(child);
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('server did not start')), 30_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening on')) {
          clearTimeout(timer);
          ok();
        }
      });
      child.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
    });
    return {
      stop: () =>
        new Promise<void>((ok) => {
          child.on('exit', () => ok());
          child.kill('SIGTERM');
        }),
    };
  };
  const http = async (method: string, path: string, token: string | null, body?: string | object) => {
    const headers: Record<string, string> = {};
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (typeof body === 'string') headers['content-type'] = 'application/octet-stream';
    else if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith('{') || text.startsWith('[') ? (JSON.parse(text) as any) : null };
  };
  return { env, cli, start, http };
}

const metadata = (title: string) => ({
  title,
  publication_date: '2024-09-01',
  resource_type: { id: 'dataset' },
  creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }],
});

interface Acknowledged {
  id: string;
  content: string;
}

describe('backup of a live deployment', () => {
  it('restores every write acknowledged before the backup began, with its content, and verifies clean', { timeout: 240_000 }, async () => {
    const live = await deployment('live');
    const server = await live.start();
    const tokens = await Promise.all(Array.from({ length: 8 }, async (_, i) => (await live.cli('tokens', 'create', '--user', `client${i}@example.org`)).stdout.trim()));
    const acknowledged: Acknowledged[] = [];
    let stop = false;
    let failures = 0;

    async function client(n: number, token: string) {
      for (let round = 0; !stop; round++) {
        const content = `client ${n} round ${round} ${'x'.repeat((n * 97 + round * 13) % 400)}`;
        const draft = await live.http('POST', '/api/records', token, { metadata: metadata(`Client ${n} round ${round}`) });
        const id: string = draft.json.id;
        await live.http('POST', `/api/records/${id}/draft/files`, token, [{ key: 'data.txt' }]);
        const put = await live.http('PUT', `/api/records/${id}/draft/files/data.txt/content`, token, content);
        const commit = await live.http('POST', `/api/records/${id}/draft/files/data.txt/commit`, token);
        const published = await live.http('POST', `/api/records/${id}/draft/actions/publish`, token);
        if (draft.status !== 201 || put.status !== 200 || commit.status !== 200 || published.status !== 202) {
          failures++;
          continue;
        }
        acknowledged.push({ id, content });
      }
    }
    const clients = tokens.map((token, n) => client(n, token));
    while (acknowledged.length < 24) await new Promise((ok) => setTimeout(ok, 50));

    const backupDir = join(scratch, 'backup');
    const countAtStart = acknowledged.length;
    const backup = await live.cli('backup', backupDir);
    const countAtEnd = acknowledged.length;
    stop = true;
    await Promise.all(clients);
    await server.stop();
    expect(failures).toBe(0);
    expect(backup.code, backup.stdout).toBe(0);
    // The clients kept publishing while the backup ran.
    expect(countAtEnd).toBeGreaterThan(countAtStart);

    const restored = await deployment('restored');
    const restore = await restored.cli('restore', backupDir);
    expect(restore.code, restore.stdout).toBe(0);
    expect(restore.stdout).toContain('verify: OK');
    const verify = await restored.cli('verify', '--json');
    expect(verify.code, verify.stdout).toBe(0);
    const report = JSON.parse(verify.stdout) as { ok: boolean; files: { checked: number; problems: unknown[] }; index: { problems: unknown[] } };
    expect(report.ok).toBe(true);
    expect(report.files.checked).toBeGreaterThanOrEqual(countAtStart);

    const second = await restored.start();
    try {
      // Told apart by count, not by time: an acknowledgement in the millisecond the backup began
      // carried the same time and was left out of those before it.
      const before = acknowledged.slice(0, countAtStart);
      expect(before.length).toBeGreaterThanOrEqual(24);
      for (const a of before) {
        const record = await restored.http('GET', `/api/records/${a.id}`, null);
        expect(record.status, a.id).toBe(200);
        expect((await restored.http('GET', `/api/records/${a.id}/files/data.txt/content`, null)).text).toBe(a.content);
      }
      // What the backup caught of the writes made while it ran is complete too (verify read every blob).
      const during = acknowledged.slice(countAtStart);
      let caught = 0;
      for (const a of during) {
        const record = await restored.http('GET', `/api/records/${a.id}`, null);
        if (record.status === 404) continue;
        caught++;
        expect((await restored.http('GET', `/api/records/${a.id}/files/data.txt/content`, null)).text).toBe(a.content);
      }
      // The rebuilt index finds them too.
      const listed = await restored.http('GET', '/api/records?size=1', null);
      expect(listed.json.hits.total).toBe(before.length + caught);
    } finally {
      await second.stop();
    }
  });
});
