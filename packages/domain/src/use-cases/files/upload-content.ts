import { DomainError, invalid } from '../../errors.ts';
import { assertFilesEnabled, assertFilesUnlocked, withContent } from '../../model/files.ts';
import type { FileEntry, Identity, RecordKind } from '../../model/types.ts';
import type { FileView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';
import { unreferencedAfter } from './release-blob.ts';
import { fileNotFound } from './start-uploads.ts';

/** How often an upload renews its record while bytes flow: well within gc's shortest useful grace period. */
const UPLOAD_RENEWAL_MS = 60_000;

const uploadExpired = () =>
  new DomainError('conflict', 'file.upload_expired', 'The upload stalled for longer than unfinished uploads are kept, and its content was removed; upload the file again.');

/**
 * The body as it flows to storage, renewing the upload's record when a chunk arrives a renewal
 * period after the last: one small write a minute per upload, none for a quick one. A record
 * found gone stops the write, which then stores nothing.
 */
async function* renewingUpload(deps: CoreDeps, blobId: string, body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let renewed = Date.parse(deps.clock.now());
  for await (const chunk of body) {
    const now = deps.clock.now();
    if (Date.parse(now) - renewed >= UPLOAD_RENEWAL_MS) {
      if (!(await deps.uow.run((tx) => tx.blobUploads.renew(blobId, now)))) throw uploadExpired();
      renewed = Date.parse(now);
    }
    yield chunk;
  }
}

/** Best effort, after a failure that is the error to report: a record left behind goes stale and gc removes it. */
async function endAbandonedUpload(deps: CoreDeps, blobId: string): Promise<void> {
  try {
    await deps.uow.run((tx) => tx.blobUploads.end(blobId));
  } catch {
    // Swept by gc once older than its grace period.
  }
}

/**
 * Streams the bytes to storage under a fresh blob id, then points the pending entry at them.
 * The slow part runs outside any transaction; the entry is re-checked before it is changed,
 * and bytes that end up referenced by nothing are deleted (the replaced ones only once no entry of
 * any version points at them).
 *
 * The blob's upload is recorded before its first byte is stored and renewed while bytes flow
 * (see BlobUploadRepository), so `krs gc` leaves the blob alone until an entry points at it;
 * the record ends in the transaction that saves the entry. Should gc have ended the record as
 * stale meanwhile (an upload stalled past its grace period), the upload fails rather than point
 * an entry at bytes gc deletes.
 */
export async function uploadContent(
  deps: CoreDeps,
  identity: Identity,
  kind: RecordKind,
  id: string,
  key: string,
  body: AsyncIterable<Uint8Array>,
  contentLength: number | undefined,
): Promise<FileView> {
  const check = async () => {
    const target = await draftFileTarget(deps.repos, identity, kind, id, 'edit', deps.clock.now());
    assertFilesEnabled(target.record);
    assertFilesUnlocked(target.record);
    const entry = await deps.repos.files.get(target.owner, key);
    if (!entry) throw fileNotFound(key);
    if (entry.status !== 'pending') throw invalid('file.committed', `File "${key}" is already committed; delete it to upload new content.`);
  };
  await check();
  if (contentLength !== undefined && contentLength > deps.settings.maxFileSize) {
    throw new DomainError('too_large', 'file.too_large', `A file may be at most ${deps.settings.maxFileSize} bytes.`);
  }
  const blobId = deps.ids.uuid();
  await deps.uow.run((tx) => tx.blobUploads.begin(blobId, deps.clock.now()));
  let saved: { next: FileEntry; bucketId: string; replaced: string | null };
  try {
    const stored = await deps.storage.write(blobId, renewingUpload(deps, blobId, body), { maxBytes: deps.settings.maxFileSize, expectedLength: contentLength });
    saved = await deps.uow.run(async (tx) => {
      const now = deps.clock.now();
      const target = await draftFileTarget(tx, identity, kind, id, 'edit', now);
      const current = await tx.files.get(target.owner, key);
      if (!current) throw fileNotFound(key);
      if (!(await tx.blobUploads.end(blobId))) throw uploadExpired();
      const next = withContent(current, { id: blobId, size: stored.size, md5: stored.md5 }, now);
      await tx.files.save(target.owner, next);
      return { next, bucketId: target.record.bucketId, replaced: await unreferencedAfter(tx, current.blob?.id ?? null) };
    });
  } catch (e) {
    // Never committed, so nothing points at the new bytes (a failed write stored none).
    const cleanedUp = deps.storage.delete(blobId).then(
      () => endAbandonedUpload(deps, blobId),
      // The upload's record stays: gc deletes the bytes once it is older than the grace period.
      () => undefined,
    );
    // A failure the rules gave (too large, too short, the draft changed) leaves the store
    // answering: the bytes are gone before the client hears. Any other is the store's own (a
    // bucket or database that did not answer), and a delete would wait for it as long again
    // (a frozen bucket held the upload's 503 for twice its bound): the client hears now.
    if (e instanceof DomainError) await cleanedUp;
    throw e;
  }
  if (saved.replaced !== null) await deps.storage.delete(saved.replaced);
  return { kind, recordId: id, state: 'draft', bucketId: saved.bucketId, entry: saved.next };
}
