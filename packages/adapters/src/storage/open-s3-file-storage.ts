/**
 * The S3 adapter with its own client, loaded on demand: the AWS SDK adds about 0.2 s and 28 MB to
 * a process that imports it, which deployments on the filesystem (and every `krs` command there)
 * should not pay. So the package entry exports only this opener, not the SDK-bound module.
 */
import type { FileStorage } from '@krs/domain';
import type { S3FileStorageOptions } from './s3-file-storage.ts';
import { s3ReadBufferBytes, s3WriteBufferBytes } from './s3-parts.ts';
import { boundedClientConfig, boundedReadClientConfig, DEFAULT_S3_TIMEOUTS, type S3Timeouts } from './s3-timeouts.ts';

/**
 * The client is configured the AWS SDK's standard way (`AWS_ENDPOINT_URL_S3`, `AWS_REGION`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, profiles, instance roles), so operators set S3 up
 * as for any other tool. `forcePathStyle` puts the bucket in the URL path, which most
 * S3-compatible servers need. `close` ends the clients' idle connections. Every call is
 * bounded by `timeouts` (s3-timeouts.ts).
 */
export async function openS3FileStorage(
  options: Omit<S3FileStorageOptions, 'reads'> & { forcePathStyle?: boolean; timeouts?: S3Timeouts },
): Promise<{ storage: FileStorage; close(): void; writeBufferBytes(expectedLength?: number): number; readBufferBytes(length: number): number }> {
  const [{ S3Client }, { createS3FileStorage }] = await Promise.all([import('@aws-sdk/client-s3'), import('./s3-file-storage.ts')]);
  const timeouts = options.timeouts ?? DEFAULT_S3_TIMEOUTS;
  const forcePathStyle = options.forcePathStyle ?? false;
  const client = new S3Client({ forcePathStyle, ...boundedClientConfig(timeouts) });
  const readClient = new S3Client({ forcePathStyle, ...boundedReadClientConfig(timeouts) });
  const storage = createS3FileStorage(client, { ...options, reads: { client: readClient, idleMs: timeouts.idleMs } });
  const close = () => {
    client.destroy();
    readClient.destroy();
  };
  return { storage, close, writeBufferBytes: (expectedLength) => s3WriteBufferBytes(options, expectedLength), readBufferBytes: s3ReadBufferBytes };
}
