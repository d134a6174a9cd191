/**
 * The domain's random sequences of depositors' steps (packages/domain/test/random-operations.ts)
 * on the stores the server runs on: the embedded stack (SQLite, files, FTS5; MiniSearch too), and two nodes over
 * one PostgreSQL and one S3 bucket, each step sent to the next node in turn. After each run the
 * stores must hold together as every node reads them, and again once they are closed and opened
 * anew, as a restart does.
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

/** `nodes` processes' stores over the same settings, each warmed as a start does. */
async function open(env: NodeJS.ProcessEnv, nodes: number): Promise<Composed[]> {
  const opened: Composed[] = [];
  for (let i = 0; i < nodes; i++) {
    const composed = await compose(readConfig(env));
    opened.push(composed);
    await composed.warmSearch();
  }
  return opened;
}

async function person(core: Core, email: string): Promise<Identity> {
  const userId = await core.users.authenticate((await core.users.createToken(email)).token);
  if (userId === null) throw new Error(`no user for ${email}`);
  return { userId, linkIds: [] };
}

/** `runs` random runs, each on stores of its own that `storesFor` sets up, through `nodes` nodes. */
async function randomRuns(runs: number, nodes: number, storesFor: (run: number) => Promise<NodeJS.ProcessEnv>): Promise<void> {
  const done = new Map<string, number>();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(batches(16), async (plan) => {
      const env = { ...process.env, KRS_MAX_FILES: '2', ...(await storesFor(++run)) };
      let opened = await open(env, nodes);
      const cores = () => opened.map((o) => o.core);
      try {
        const first = cores()[0] as Core;
        const people = { owner: await person(first, 'ada@example.org'), other: await person(first, 'bo@example.org') };
        const known = await runBatches(cores(), people, plan);
        for (const core of cores()) await expectConsistent(core, people, known.ids);
        // Stopped as the server stops (its index's snapshot saved, then closed), and started again.
        for (const o of opened) {
          await o.saveSearchSnapshot();
          await o.close();
        }
        opened = await open(env, nodes);
        for (const core of cores()) await expectConsistent(core, people, known.ids);
        for (const [op, n] of known.done) done.set(op, (done.get(op) ?? 0) + n);
      } finally {
        for (const o of opened) await o.close();
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
    await randomRuns(30, 1, async () => ({ KRS_DATA_DIR: dataDir(), KRS_SEARCH_ENGINE: 'sqlite' }));
  }, 600_000);

  it('hold together on SQLite and files with the MiniSearch engine, and after a restart from its saved index', async () => {
    await randomRuns(20, 1, async () => ({ KRS_DATA_DIR: dataDir(), KRS_SEARCH_ENGINE: 'minisearch' }));
  }, 600_000);

  it('hold together on two nodes over PostgreSQL and S3, and after a restart', async () => {
    s3 = await startTestS3('krs-random-operations');
    const bucket = s3.bucket;
    // The S3 client takes its endpoint, region and credentials from the process's environment.
    const saved = { ...process.env };
    Object.assign(process.env, s3.env);
    try {
      await randomRuns(24, 2, async (run) => ({ KRS_DATA_DIR: dataDir(), KRS_DATABASE_URL: await freshDatabase(), KRS_STORAGE: `s3://${bucket}/run-${run}` }));
    } finally {
      for (const name of Object.keys(s3.env)) if (saved[name] === undefined) delete process.env[name];
      Object.assign(process.env, saved);
    }
  }, 600_000);
});
