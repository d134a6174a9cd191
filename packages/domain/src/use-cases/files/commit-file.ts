import { imageSize } from 'image-size';
import mime from 'mime';
import { committed, type CommitFacts } from '../../model/files.ts';
import type { Identity, RecordKind } from '../../model/types.ts';
import type { FileView } from '../../model/views.ts';
import type { FileStorage } from '../../ports.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';
import { fileNotFound } from './start-uploads.ts';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/tiff']);
/** Enough for every supported header, including JPEGs with large EXIF blocks before the frame. */
const SNIFF_BYTES = 512 * 1024;

async function dimensionsOf(storage: FileStorage, blobId: string, mimetype: string): Promise<CommitFacts['dimensions']> {
  if (!IMAGE_TYPES.has(mimetype)) return null;
  try {
    const { width, height } = imageSize(await storage.readHead(blobId, SNIFF_BYTES));
    return typeof width === 'number' && typeof height === 'number' ? { width, height } : null;
  } catch {
    // Bytes that do not parse as the extension claims are kept; they just carry no dimensions.
    return null;
  }
}

/** Completes a pending upload: type from the key's extension, image dimensions, ids. */
export async function commitFile(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, key: string): Promise<FileView> {
  const entry = await deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const target = await draftFileTarget(tx, identity, kind, id, 'edit', now);
    const current = await tx.files.get(target.owner, key);
    if (!current) throw fileNotFound(key);
    const mimetype = mime.getType(key) ?? 'application/octet-stream';
    const dimensions = current.blob && current.status === 'pending' ? await dimensionsOf(deps.storage, current.blob.id, mimetype) : null;
    const next = committed(current, { mimetype, versionId: deps.ids.uuid(), dimensions }, now);
    await tx.files.save(target.owner, next);
    return { next, bucketId: target.record.bucketId };
  });
  return { kind, recordId: id, state: 'draft', bucketId: entry.bucketId, entry: entry.next };
}
