/**
 * The domain's random sequences of depositors' steps (packages/domain/test/random-operations.ts)
 * on the stores the server runs on: the embedded stack (SQLite, files, FTS5) and PostgreSQL + S3.
 * After each run the stores must hold together, and again after the process's stores are closed
 * and opened anew, as a restart does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Core, Identity } from '@krs/domain';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { batches, expectConsistent, RANDOM_SEED, runBatches, runsTimes, STEPS_THAT_MUST_HAPPEN } from '../../../packages/domain/test/random-operations.ts';
import { compose, type Composed } from '../src/compose.ts';
import { readConfig } from '../src/config.ts';
import { startTestS3, type TestS3 } from './test-s3.ts';

usePostgresServer();

async function open(env: NodeJS.ProcessEnv): Promise<Composed> {
  const composed = await compose(readConfig(env));
  await composed.warmSearch();
  return composed;
}

async function person(core: Core, email: string): Promise<Identity> {
  const userId = await core.users.authenticate((await core.users.createToken(email)).token);
  if (userId === null) throw new Error(`no user for ${email}`);
  return { userId, linkIds: [] };
}

/** `runs` random runs, each on stores of its own that `storesFor` sets up. */
async function randomRuns(runs: number, storesFor: (run: number) => Promise<NodeJS.ProcessEnv>): Promise<void> {
  const done = new Map<string, number>();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(batches(16), async (plan) => {
      const env = { ...process.env, KRS_MAX_FILES: '2', ...(await storesFor(++run)) };
      let stores = await open(env);
      try {
        const people = { owner: await person(stores.core, 'ada@example.org'), other: await person(stores.core, 'bo@example.org') };
        const known = await runBatches(stores.core, people, plan);
        await expectConsistent(stores.core, people, known.ids);
        await stores.close();
        stores = await open(env);
        await expectConsistent(stores.core, people, known.ids);
        for (const [op, n] of known.done) done.set(op, (done.get(op) ?? 0) + n);
      } finally {
        await stores.close();
      }
    }),
    { seed: RANDOM_SEED, numRuns: runsTimes(runs), endOnFailure: true },
  );
  for (const op of STEPS_THAT_MUST_HAPPEN) expect(done.get(op) ?? 0, op).toBeGreaterThan(0);
}

describe("random sequences of depositors' steps on the server's stores", () => {
  const dirs: string[] = [];
  let s3: TestS3 | null = null;
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await s3?.stop();
  });
  const dataDir = () => {
    dirs.push(mkdtempSync(join(tmpdir(), 'krs-random-operations-')));
    return dirs.at(-1) as string;
  };

  it('hold together on SQLite, files and FTS5, and after a restart', async () => {
    await randomRuns(40, async () => ({ KRS_DATA_DIR: dataDir(), KRS_SEARCH_ENGINE: 'sqlite' }));
  }, 600_000);

  it('hold together on PostgreSQL and S3, and after a restart', async () => {
    s3 = await startTestS3('krs-random-operations');
    const bucket = s3.bucket;
    // The S3 client takes its endpoint, region and credentials from the process's environment.
    const saved = { ...process.env };
    Object.assign(process.env, s3.env);
    try {
      await randomRuns(30, async (run) => ({ KRS_DATA_DIR: dataDir(), KRS_DATABASE_URL: await freshDatabase(), KRS_STORAGE: `s3://${bucket}/run-${run}` }));
    } finally {
      for (const name of Object.keys(s3.env)) if (saved[name] === undefined) delete process.env[name];
      Object.assign(process.env, saved);
    }
  }, 600_000);
});
