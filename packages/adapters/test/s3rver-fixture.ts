/** The S3 of the adapter tests: s3rver in process, or the caller's endpoint (external-s3.ts). */
import { S3Client } from '@aws-sdk/client-s3';
import { createScratchBucket, externalS3Endpoint, testS3Client } from './external-s3.ts';
import { startPatchedS3rver } from './s3rver-server.ts';
import { tempDir } from './sqlite-fixture.ts';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  client(): S3Client;
  close(): Promise<void>;
}

/**
 * An S3 bucket for a test file: on `KRS_TEST_S3_ENDPOINT` when it is set (a fresh bucket, removed
 * at the end), otherwise on a local s3rver in a temp dir on a free port.
 */
export async function startTestS3(bucket = 'krs-test'): Promise<TestS3> {
  const external = externalS3Endpoint();
  const clients: S3Client[] = [];
  const tracked = (client: S3Client) => (clients.push(client), client);
  const destroyClients = () => {
    for (const c of clients.splice(0)) c.destroy();
  };
  if (external) {
    const scratch = await createScratchBucket(external, bucket);
    return {
      endpoint: external,
      bucket: scratch.bucket,
      client: () => tracked(testS3Client(external)),
      async close() {
        destroyClients();
        await scratch.drop();
      },
    };
  }
  const { server, port } = await startPatchedS3rver(tempDir(), bucket);
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    client: () => tracked(testS3Client(endpoint, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' })),
    async close() {
      destroyClients();
      await server.close();
    },
  };
}
