/**
 * Blobs in an S3 bucket (or an S3-compatible server) at `<prefix>blobs/<blobId>`.
 *
 * Bytes are uploaded straight to the final key (`s3-multipart-write.ts`), hashed and sized on the
 * way. No temp key and copy: S3 makes an object visible only when its single PUT or its
 * CompleteMultipartUpload succeeds, so the final key is either absent or complete, and a copy would
 * write every byte twice (and need UploadPartCopy past 5 GiB). A write cut short leaves at most an
 * incomplete multipart upload, which is invisible to reads and listings and which
 * `sweepPartialWrites` aborts.
 *
 * Memory per write is bounded: `queueSize` parts of `partSize` bytes in flight and one filling.
 */
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { DomainError, notFound, type FileStorage } from '@krs/domain';
import { assertSafeBlobId, isSafeBlobId } from './blob-id.ts';
import { MIN_PART_SIZE, writeS3Object } from './s3-multipart-write.ts';
import { DEFAULT_QUEUE_SIZE } from './s3-parts.ts';
import { idleBoundedBody } from './s3-timeouts.ts';

export interface S3FileStorageOptions {
  bucket: string;
  /** Keys start with it, so several deployments (or tests) can share a bucket; `a/b` and `a/b/` are the same. */
  prefix?: string;
  /**
   * Bytes per multipart part, at least 5 MiB (S3's minimum), more when a write's largest size
   * needs more than S3's 10,000 parts; smaller bodies go in one PUT.
   */
  partSize?: number;
  /** Parts uploaded at once per write. */
  queueSize?: number;
  /**
   * GetObject's own client and the bound on its body's chunks (s3-timeouts.ts: a download's socket
   * rests while its reader does); unset, `client` and no bound.
   */
  reads?: { client: S3Client; idleMs: number };
}

const missing = () => notFound('blob.not_found', 'Stored file content is missing.');

function errorName(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && typeof (e as { name?: unknown }).name === 'string' ? (e as { name: string }).name : undefined;
}

function httpStatus(e: unknown): number | undefined {
  const meta = typeof e === 'object' && e !== null ? (e as { $metadata?: { httpStatusCode?: unknown } }).$metadata : undefined;
  return typeof meta?.httpStatusCode === 'number' ? meta.httpStatusCode : undefined;
}

/** GET answers NoSuchKey, HEAD (which has no body to name the error) a bare 404 NotFound. */
const isMissingKey = (e: unknown) => errorName(e) === 'NoSuchKey' || (errorName(e) === 'NotFound' && httpStatus(e) === 404);
/** A range starting at or past the end (every range of an empty object) is a 416, not an error for us. */
const isUnsatisfiableRange = (e: unknown) => errorName(e) === 'InvalidRange' || httpStatus(e) === 416;

const emptyStream = () => new ReadableStream<Uint8Array>({ start: (c) => c.close() });

export function createS3FileStorage(client: S3Client, options: S3FileStorageOptions): FileStorage {
  const { bucket } = options;
  const prefix = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
  const blobsPrefix = `${prefix}blobs/`;
  const partSize = Math.max(options.partSize ?? MIN_PART_SIZE, MIN_PART_SIZE);
  const queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
  const reads = options.reads ?? null;
  const keyOf = (blobId: string) => {
    assertSafeBlobId(blobId);
    return blobsPrefix + blobId;
  };

  async function exists(blobId: string): Promise<boolean> {
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(blobId) }));
      return true;
    } catch (e) {
      if (isMissingKey(e)) return false;
      throw e;
    }
  }

  async function get(blobId: string, start: number, end: number | undefined): Promise<ReadableStream<Uint8Array>> {
    const Key = keyOf(blobId);
    // S3 ignores a range whose end is before its start and sends the whole object; ours is empty.
    if (end !== undefined && end < start) {
      if (!(await exists(blobId))) throw missing();
      return emptyStream();
    }
    const Range = start === 0 && end === undefined ? undefined : `bytes=${start}-${end ?? ''}`;
    try {
      const answer = await (reads?.client ?? client).send(new GetObjectCommand({ Bucket: bucket, Key, Range }));
      if (!answer.Body) return emptyStream();
      const body = answer.Body.transformToWebStream() as ReadableStream<Uint8Array>;
      return reads === null ? body : idleBoundedBody(body, reads.idleMs);
    } catch (e) {
      if (isMissingKey(e)) throw missing();
      if (isUnsatisfiableRange(e)) return emptyStream();
      throw e;
    }
  }

  /** Bytes held by an incomplete upload and when a part was last added (or it began, with none). */
  async function partsOf(Key: string, UploadId: string, initiated: number): Promise<{ bytes: number; touched: number }> {
    let bytes = 0;
    let touched = initiated;
    let PartNumberMarker: string | undefined;
    for (;;) {
      const page = await client.send(new ListPartsCommand({ Bucket: bucket, Key, UploadId, PartNumberMarker }));
      for (const part of page.Parts ?? []) {
        bytes += part.Size ?? 0;
        touched = Math.max(touched, part.LastModified?.getTime() ?? 0);
      }
      if (!page.IsTruncated || page.NextPartNumberMarker === undefined) return { bytes, touched };
      PartNumberMarker = page.NextPartNumberMarker;
    }
  }

  return {
    async write(blobId, body, limits) {
      const Key = keyOf(blobId);
      const md5 = createHash('md5');
      let size = 0;
      // Throwing here fails the upload before it completes, so a refused body never becomes visible.
      async function* measured(): AsyncGenerator<Uint8Array> {
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > limits.maxBytes) throw new DomainError('too_large', 'file.too_large', `A file may be at most ${limits.maxBytes} bytes.`);
          md5.update(chunk);
          // Copied into a part before the next chunk is asked for, so callers may reuse their buffers.
          yield chunk;
        }
        if (limits.expectedLength !== undefined && limits.expectedLength !== size) {
          throw new DomainError('invalid', 'file.content_length', `Content-Length was ${limits.expectedLength} but ${size} bytes arrived.`);
        }
      }
      await writeS3Object(client, { Bucket: bucket, Key }, measured(), { partSize, queueSize, largestSize: limits.expectedLength ?? limits.maxBytes });
      return { size, md5: md5.digest('hex') };
    },

    read(blobId, range) {
      return get(blobId, range?.start ?? 0, range?.end);
    },

    async readHead(blobId, bytes) {
      const stream = await get(blobId, 0, bytes - 1);
      return new Uint8Array(await new Response(stream).arrayBuffer());
    },

    async delete(blobId) {
      // S3 answers 204 whether or not the key existed.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(blobId) }));
    },

    async sweepPartialWrites(before) {
      const cutoff = Date.parse(before);
      const swept = { removed: 0, bytes: 0 };
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      for (;;) {
        let page;
        try {
          page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: blobsPrefix, KeyMarker, UploadIdMarker }));
        } catch (e) {
          // Some S3-compatible servers (s3rver) keep no listable uploads: there is nothing to sweep.
          // On AWS, a lifecycle rule AbortIncompleteMultipartUpload is the backstop (docs/storage.md).
          if (errorName(e) === 'NotImplemented' || httpStatus(e) === 501) return swept;
          throw e;
        }
        for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
          if (!Key || !UploadId || !Initiated || Initiated.getTime() >= cutoff) continue;
          // A write in flight adds a part every `partSize` bytes: one that added none since the
          // cut-off has stopped (or trickles slower than any upload the server keeps open).
          const parts = await partsOf(Key, UploadId, Initiated.getTime());
          if (parts.touched >= cutoff) continue;
          try {
            await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }));
          } catch (e) {
            if (errorName(e) === 'NoSuchUpload') continue;
            throw e;
          }
          swept.removed++;
          swept.bytes += parts.bytes;
        }
        if (!page.IsTruncated) return swept;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
      }
    },

    exists,

    async *list() {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: blobsPrefix, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          const id = object.Key?.slice(blobsPrefix.length);
          if (id === undefined || !isSafeBlobId(id)) continue;
          yield { id, size: object.Size ?? 0, written: (object.LastModified ?? new Date(0)).toISOString() };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken !== undefined);
    },

    async check() {
      // One request: the bucket exists and these credentials may use it.
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (e) {
        // HEAD answers carry no error body, so the SDK can only say "UnknownError": name the status.
        const status = httpStatus(e);
        if (status === 404) throw new Error(`bucket ${bucket} does not exist`, { cause: e });
        if (status === 403) throw new Error(`access to bucket ${bucket} is denied`, { cause: e });
        throw e;
      }
    },
  };
}
