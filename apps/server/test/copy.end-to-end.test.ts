/**
 * Moving up: an embedded deployment with records and files is copied with `krs copy` into
 * PostgreSQL and S3, and a server started on those serves the same records and bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { freePort, runKrs, serverDir, startServer, type RealServer } from './real-server.ts';
import { startTestS3 } from './test-s3.ts';

usePostgresServer();

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function serve(extra: NodeJS.ProcessEnv, dataDir: string): Promise<{ base: string; env: NodeJS.ProcessEnv; server: RealServer }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir, ...extra };
  const server = await startServer(env);
  cleanup.push(() => server.stop());
  return { base, env, server };
}

const run = runKrs;

describe('krs copy', () => {
  it('copies an embedded deployment into PostgreSQL and S3, verified, and a server on them serves it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-copy-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const s3 = await startTestS3('krs-up');
    cleanup.push(() => s3.stop());

    const embedded = await serve({}, dataDir);
    const token = (await run(embedded.env, 'tokens', 'create', '--user', 'ada@example.org')).stdout.trim();
    const call = async (base: string, method: string, path: string, body?: string, type = 'application/json') => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': type } : {}) }, ...(body !== undefined ? { body } : {}) });
      return { status: res.status, text: await res.text() };
    };
    const metadata = { title: 'Flood extent maps', publication_date: '2024-09-01', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] };
    const id = JSON.parse((await call(embedded.base, 'POST', '/api/records', JSON.stringify({ metadata }))).text).id as string;
    await call(embedded.base, 'POST', `/api/records/${id}/draft/files`, JSON.stringify([{ key: 'extent.csv' }]));
    await call(embedded.base, 'PUT', `/api/records/${id}/draft/files/extent.csv/content`, 'lon,lat\n6.2,4.8\n', 'application/octet-stream');
    await call(embedded.base, 'POST', `/api/records/${id}/draft/files/extent.csv/commit`);
    expect((await call(embedded.base, 'POST', `/api/records/${id}/draft/actions/publish`)).status).toBe(202);
    const before = JSON.parse((await call(embedded.base, 'GET', `/api/records/${id}`)).text);
    await embedded.server.stop();

    const url = await freshDatabase();
    const storage = `s3://${s3.bucket}/site`;
    const copied = await run({ ...embedded.env, ...s3.env }, 'copy', '--to', url, '--storage', storage, '--json');
    const report = JSON.parse(copied.stdout);
    expect(report.ok).toBe(true);
    expect(report.tables.find((t: { table: string }) => t.table === 'record')).toMatchObject({ source: 1, target: 1, matches: true });
    expect(report.blobs).toMatchObject({ copied: 1, skipped: 0, verified: 1, differing: [] });
    // Again: nothing new to copy, still the same.
    expect(JSON.parse((await run({ ...embedded.env, ...s3.env }, 'copy', '--to', url, '--storage', storage, '--json')).stdout).blobs).toMatchObject({ copied: 0, skipped: 1 });

    const movedDir = mkdtempSync(join(tmpdir(), 'krs-copy-node-'));
    cleanup.push(() => rmSync(movedDir, { recursive: true, force: true }));
    const moved = await serve({ ...s3.env, KRS_DATABASE_URL: url, KRS_STORAGE: storage }, movedDir);
    const after = JSON.parse((await call(moved.base, 'GET', `/api/records/${id}`)).text);
    expect(after.metadata).toEqual(before.metadata);
    expect(after.revision_id).toBe(before.revision_id);
    const file = await fetch(`${moved.base}/api/records/${id}/files/extent.csv/content`);
    expect(await file.text()).toBe('lon,lat\n6.2,4.8\n');
    // The same token works: users and tokens came over too.
    expect((await call(moved.base, 'GET', '/api/user/records')).status).toBe(200);
  });

  it('refuses a target that is not PostgreSQL, naming the option', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-copy-bad-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const failed = await run({ ...process.env, KRS_DATA_DIR: dataDir, INIT_CWD: serverDir }, 'copy', '--to', 'mysql://db/krs').catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain('--to must be a PostgreSQL URL');
  });

  it('refuses a data dir that holds no store, before it touches the target', async () => {
    // Copying the empty store a wrong KRS_DATA_DIR would make deletes what the target holds.
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-copy-none-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const failed = await run({ ...process.env, KRS_DATA_DIR: dataDir, INIT_CWD: serverDir }, 'copy', '--to', 'postgres://krs@127.0.0.1:1/krs').catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain(`${join(dataDir, 'krs.sqlite')} does not exist`);
  });
});
