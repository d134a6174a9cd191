import { DomainError, invalid } from '../../errors.ts';
import { assertFilesEnabled, assertFilesUnlocked, withContent } from '../../model/files.ts';
import type { FileEntry, Identity, RecordKind } from '../../model/types.ts';
import type { FileView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';
import { unreferencedAfter } from './release-blob.ts';
import { fileNotFound } from './start-uploads.ts';

/**
 * Streams the bytes to storage under a fresh blob id, then points the pending entry at them.
 * The slow part runs outside any transaction; the entry is re-checked before it is changed,
 * and bytes that end up referenced by nothing are deleted (the replaced ones only once no entry of
 * any version points at them).
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
  const stored = await deps.storage.write(blobId, body, { maxBytes: deps.settings.maxFileSize, expectedLength: contentLength });
  let saved: { next: FileEntry; bucketId: string; replaced: string | null };
  try {
    saved = await deps.uow.run(async (tx) => {
      const now = deps.clock.now();
      const target = await draftFileTarget(tx, identity, kind, id, 'edit', now);
      const current = await tx.files.get(target.owner, key);
      if (!current) throw fileNotFound(key);
      const next = withContent(current, { id: blobId, size: stored.size, md5: stored.md5 }, now);
      await tx.files.save(target.owner, next);
      return { next, bucketId: target.record.bucketId, replaced: await unreferencedAfter(tx, current.blob?.id ?? null) };
    });
  } catch (e) {
    // Never committed, so nothing points at the new bytes.
    await deps.storage.delete(blobId);
    throw e;
  }
  if (saved.replaced !== null) await deps.storage.delete(saved.replaced);
  return { kind, recordId: id, state: 'draft', bucketId: saved.bucketId, entry: saved.next };
}
