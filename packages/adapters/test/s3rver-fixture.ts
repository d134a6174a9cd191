import { S3Client } from '@aws-sdk/client-s3';
import { startPatchedS3rver } from './s3rver-server.ts';
import { tempDir } from './sqlite-fixture.ts';

/** A local S3 server in a temp dir on a free port, with `bucket` created. */
export async function startS3rver(bucket = 'krs-test'): Promise<{ endpoint: string; bucket: string; client: () => S3Client; close: () => Promise<void> }> {
  const { server, port } = await startPatchedS3rver(tempDir(), bucket);
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    endpoint,
    bucket,
    client() {
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients.splice(0)) c.destroy();
      await server.close();
    },
  };
}
