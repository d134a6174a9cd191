/**
 * `KRS_TEST_S3_ENDPOINT`: an S3 endpoint of the caller's (MinIO, Ceph, AWS...) for the S3 tests
 * instead of s3rver, with the region and credentials of the usual AWS_* variables, as
 * `KRS_TEST_DATABASE_URL` stands in for the embedded PostgreSQL. Each run makes a bucket of its
 * own and removes it with everything in it at the end, so runs sharing the endpoint never meet.
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';

export const externalS3Endpoint = (): string | undefined => process.env['KRS_TEST_S3_ENDPOINT'] || undefined;

export const testS3Region = (): string => process.env['AWS_REGION'] || 'us-east-1';

/** Path-style addressing: what S3-compatible servers expect, and what AWS still answers. */
export function testS3Client(endpoint: string, credentials?: S3ClientConfig['credentials']): S3Client {
  return new S3Client({ endpoint, region: testS3Region(), forcePathStyle: true, ...(credentials ? { credentials } : {}) });
}

export async function listKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

let made = 0;

/** A new bucket on the caller's endpoint, named after `hint`, this process and the time (S3's rules: lower case, at most 63). */
export async function createScratchBucket(endpoint: string, hint: string): Promise<{ bucket: string; drop(): Promise<void> }> {
  const bucket = `${hint}-${process.pid}-${Date.now().toString(36)}-${++made}`.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 63);
  const client = testS3Client(endpoint);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    async drop() {
      try {
        const keys = await listKeys(client, bucket);
        for (let at = 0; at < keys.length; at += 1000) {
          await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(at, at + 1000).map((Key) => ({ Key })) } }));
        }
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
    },
  };
}
