import type { Repositories } from '../../ports.ts';

/**
 * The blob id when, inside the transaction that dropped a reference to it, no entry of any
 * version points at it any more; else null. Versions share blobs (edit drafts and imports copy
 * entries), so bytes are never deleted on the word of one entry. Checked in the transaction, the
 * answer stays true after it commits: a blob gains references only by copying an existing one.
 * The caller deletes the bytes after the commit; if it crashes first, `krs gc` finds them.
 */
export async function unreferencedAfter(tx: Repositories, blobId: string | null): Promise<string | null> {
  if (blobId === null) return null;
  return (await tx.files.referencesBlob(blobId)) ? null : blobId;
}
