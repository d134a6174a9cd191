/**
 * Blob ids come from the domain's generators; anything else could name a path outside the
 * filesystem root or a key outside the S3 prefix, so every storage adapter refuses it.
 */
const SAFE_ID = /^[A-Za-z0-9-]{2,128}$/;

export const isSafeBlobId = (blobId: string): boolean => SAFE_ID.test(blobId);

export function assertSafeBlobId(blobId: string): void {
  if (!SAFE_ID.test(blobId)) throw new Error(`Refusing unsafe blob id ${JSON.stringify(blobId)}`);
}
