/** Finds the draft or published version whose files a request is about, and checks the caller's level. */
import { atLeast, requireLevel, type AccessLevel } from '../../model/access.ts';
import { filesOpenAt } from '../../model/embargo.ts';
import { wellFormed } from '../../model/files.ts';
import type { AnyRecord, FileEntry, FileOwner, Identity, Parent, RecordKind } from '../../model/types.ts';
import type { FileRepository, Repositories } from '../../ports.ts';
import { levelFor, loadDraft, loadParent, loadPublished } from '../lookup.ts';

export interface FileTarget {
  record: AnyRecord;
  parent: Parent;
  owner: FileOwner;
}

export async function draftFileTarget(tx: Repositories, identity: Identity, kind: RecordKind, id: string, wanted: AccessLevel, now: string): Promise<FileTarget & { record: Extract<AnyRecord, { state: 'draft' }> }> {
  const record = await loadDraft(tx, kind, id);
  const parent = await loadParent(tx, record.parentId);
  requireLevel(identity, await levelFor(tx, identity, parent, now), wanted);
  return { record, parent, owner: { recordId: id, state: 'draft' } };
}

/**
 * Files of a published record: readable by anyone when record and files are public and no embargo
 * holds, else by `view` holders.
 */
export async function publishedFileTarget(tx: Repositories, identity: Identity, kind: RecordKind, id: string, now: string): Promise<FileTarget> {
  const record = await loadPublished(tx, kind, id);
  const parent = await loadParent(tx, record.parentId);
  if (!filesOpenAt(record.access, now)) requireLevel(identity, await levelFor(tx, identity, parent, now), 'view');
  return { record, parent, owner: { recordId: id, state: 'published' } };
}

/**
 * The published version whose files a page or an export of it lists, and whether `identity` may
 * read them; unlike `publishedFileTarget` it refuses no one, since public metadata with restricted
 * or embargoed files is read by everyone (the caller has already decided whether the record is).
 */
export async function publishedFilesShown(tx: Repositories, identity: Identity, kind: RecordKind, id: string, now: string): Promise<FileTarget & { readable: boolean }> {
  const record = await loadPublished(tx, kind, id);
  const parent = await loadParent(tx, record.parentId);
  const readable = filesOpenAt(record.access, now) || atLeast(await levelFor(tx, identity, parent, now), 'view');
  return { record, parent, owner: { recordId: id, state: 'published' }, readable };
}

/**
 * The entry under `key`. A key stored before keys were checked may hold a lone surrogate, which
 * no URL can carry: its links name it with U+FFFD, so that form finds it too.
 */
export async function findEntry(files: FileRepository, owner: FileOwner, key: string): Promise<FileEntry | null> {
  const exact = await files.get(owner, key);
  if (exact || !key.includes('\uFFFD')) return exact;
  return (await files.list(owner)).find((e) => e.key !== key && wellFormed(e.key) === key) ?? null;
}
