/**
 * S3's multipart bounds and what they cost a write in memory, apart from the SDK so that the
 * opener (which loads the SDK only on demand) can tell the server what an upload holds.
 */

/** S3's bounds: parts of at least 5 MiB (but the last), at most 10,000 of them. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PARTS = 10_000;
/** Three, not four: each part in flight holds 5 MiB, and three already outrun what one node can take in (docs/storage.md). */
export const DEFAULT_QUEUE_SIZE = 3;

/**
 * Bytes one download of `length` bytes holds in memory while its client has not taken them: the
 * response socket's chunks (Node reads at most 64 KiB at a time) and one handed on.
 */
export function s3ReadBufferBytes(length: number): number {
  return Math.max(1, Math.min(2 * 64 * 1024, length));
}

/**
 * Bytes one write holds at most: a body that fits one part holds that part's buffer; a larger
 * one, or one of unknown length, the parts in flight and the one filling.
 */
export function s3WriteBufferBytes(options: { partSize?: number | undefined; queueSize?: number | undefined }, expectedLength?: number): number {
  const partSize = Math.max(options.partSize ?? MIN_PART_SIZE, MIN_PART_SIZE);
  if (expectedLength !== undefined && expectedLength <= partSize) return partSize;
  return ((options.queueSize ?? DEFAULT_QUEUE_SIZE) + 1) * partSize;
}
