import { DomainError, invalid } from '../../errors.ts';
import { anonymousReadStamp } from '../../model/read-stamp.ts';
import type { FileEntry, Identity, RecordKind } from '../../model/types.ts';
import type { FileContent, FilesView, FileView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import type { ReadBuffers } from '../../ports.ts';
import { draftFileTarget, findEntry, publishedFilesShown, publishedFileTarget, type FileTarget } from './file-target.ts';
import { fileNotFound } from './start-uploads.ts';

export type FileSide = 'draft' | 'published';

function target(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, side: FileSide): Promise<FileTarget> {
  const now = deps.clock.now();
  return side === 'draft'
    ? draftFileTarget(deps.repos, identity, kind, id, 'preview', now)
    : publishedFileTarget(deps.repos, identity, kind, id, now);
}

export async function listFiles(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, side: FileSide): Promise<FilesView> {
  const t = await target(deps, identity, kind, id, side);
  const entries = (await deps.repos.files.list(t.owner)).filter((e) => visible(e, side));
  return { kind, recordId: id, state: side, bucketId: t.record.bucketId, options: t.record.files, entries };
}

/**
 * The committed files a published version's landing page, exports and Signposting list for this
 * reader: all of them when the reader may download them, else none, with `closed` set. A record
 * with public metadata and restricted or embargoed files is shown to everyone, without its files,
 * as InvenioRDM shows it.
 */
export async function shownFiles(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<{ entries: FileEntry[]; closed: boolean }> {
  const t = await publishedFilesShown(deps.repos, identity, kind, id, deps.clock.now());
  if (!t.record.files.enabled) return { entries: [], closed: false };
  if (!t.readable) return { entries: [], closed: true };
  return { entries: (await deps.repos.files.list(t.owner)).filter((e) => visible(e, 'published')), closed: false };
}

export async function getFile(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, side: FileSide, key: string): Promise<FileView> {
  const t = await target(deps, identity, kind, id, side);
  const entry = await findEntry(deps.repos.files, t.owner, key);
  if (!entry || !visible(entry, side)) throw fileNotFound(key);
  return { kind, recordId: id, state: side, bucketId: t.record.bucketId, entry, readStamp: side === 'published' ? await fileReadStamp(deps, t) : null };
}

/**
 * A file's answer is stamped as its version's (the fast path checks both against one read): for
 * a resource a package manages, with that package's parent's revision, though the file's answer
 * does not depend on the package; that one read is made for managed resources alone.
 */
async function fileReadStamp(deps: CoreDeps, t: FileTarget): Promise<string | null> {
  const { managedBy } = t.parent;
  const manager = managedBy === null ? null : await deps.repos.records.getParent(managedBy);
  return anonymousReadStamp({ ...t, holder: manager === null ? null : { revisionId: manager.revisionId, lapses: false } });
}

/** Published versions show committed files only: older data may hold pending entries published before that was refused. */
const visible = (entry: FileEntry, side: FileSide) => side === 'draft' || entry.status === 'completed';

export interface ByteRange {
  start: number;
  /** Inclusive; null means to the end. */
  end: number | null;
}

/** Bytes of an uploaded file (pending drafts included once content arrived). */
export async function readFileContent(
  deps: CoreDeps,
  identity: Identity,
  kind: RecordKind,
  id: string,
  side: FileSide,
  key: string,
  range: ByteRange | null,
  buffers?: ReadBuffers,
): Promise<FileContent> {
  const { entry } = await getFile(deps, identity, kind, id, side, key);
  const blob = requireContent(entry);
  if (range === null) return { entry, body: await deps.storage.read(blob.id, undefined, buffers), range: null };
  const end = Math.min(range.end ?? blob.size - 1, blob.size - 1);
  if (range.start > end || range.start >= blob.size) {
    throw new DomainError('range_not_satisfiable', 'file.range', 'Range not satisfiable.');
  }
  return { entry, body: await deps.storage.read(blob.id, { start: range.start, end }, buffers), range: { start: range.start, end } };
}

function requireContent(entry: FileEntry) {
  if (entry.blob === null) throw invalid('file.no_content', `File "${entry.key}" has no content yet.`);
  return entry.blob;
}
