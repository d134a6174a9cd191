/**
 * The S3 of the server's end-to-end tests: on `KRS_TEST_S3_ENDPOINT` when it is set (a fresh
 * bucket of this run's, removed at the end; region and credentials from the AWS_* variables),
 * otherwise the patched s3rver as a process of its own in a temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchBucket, externalS3Endpoint, listKeys, testS3Client, testS3Region } from '../../../packages/adapters/test/external-s3.ts';
import { startS3rver } from './s3rver-process.ts';

export interface TestS3 {
  bucket: string;
  /** What a krs process needs on top of `KRS_STORAGE=s3://<bucket>/...` to reach it. */
  env: Record<string, string>;
  /** The object keys under `prefix`, as S3 lists them. */
  keys(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** `hint` names the bucket (s3rver) or starts its name (an endpoint shared with other runs). */
export async function startTestS3(hint: string): Promise<TestS3> {
  const external = externalS3Endpoint();
  if (external) {
    const scratch = await createScratchBucket(external, hint);
    const client = testS3Client(external);
    return {
      bucket: scratch.bucket,
      env: { AWS_ENDPOINT_URL_S3: external, AWS_REGION: testS3Region(), KRS_S3_FORCE_PATH_STYLE: 'true' },
      keys: (prefix) => listKeys(client, scratch.bucket, prefix),
      async stop() {
        client.destroy();
        await scratch.drop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'krs-s3rver-'));
  const { child, endpoint } = await startS3rver(dir, hint);
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = testS3Client(endpoint, credentials);
  return {
    bucket: hint,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      KRS_S3_FORCE_PATH_STYLE: 'true',
    },
    keys: (prefix) => listKeys(client, hint, prefix),
    async stop() {
      client.destroy();
      await new Promise<void>((ok) => {
        if (child.exitCode !== null || child.signalCode !== null) return ok();
        child.once('exit', () => ok());
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
