/**
 * File entries of a draft: pending -> completed. Keys are user-supplied names and never reach
 * storage paths; blobs are addressed by generated ids.
 */
import { DomainError, invalid, type FieldIssue } from '../errors.ts';
import type { BlobRef, DraftRecord, FileEntry, FilesOptions } from './types.ts';

/** C0, DEL and C1 controls. */
const CONTROL = /\p{Cc}/u;
/** With the `u` flag a lone surrogate is one code point of category Cs; a valid pair never matches. */
const LONE_SURROGATE = /\p{Cs}/u;
/** U+FDD0..U+FDEF and the last two code points of every plane: never meant for interchange. */
const NONCHARACTER = /[\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;
export const MAX_KEY_CHARACTERS = 255;

/** Length in characters (code points), as users count them: an emoji is one, not two UTF-16 units. */
const characters = (key: string): number => key.length - (key.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

/**
 * The text with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder would write it.
 * Entries stored before keys were checked may hold lone surrogates: their links and lookups go
 * through this form so they stay listable, reachable and deletable.
 */
export const wellFormed = (text: string): string => text.replace(/\p{Cs}/gu, '\uFFFD');

export function keyProblem(key: string): string | null {
  if (LONE_SURROGATE.test(key)) return 'File key must be valid Unicode (it contains a lone surrogate).';
  if (NONCHARACTER.test(key)) return 'File key must not contain Unicode non-characters.';
  const length = characters(key);
  if (length < 1 || length > MAX_KEY_CHARACTERS) return `File key must be 1 to ${MAX_KEY_CHARACTERS} characters long.`;
  if (key.includes('/') || key.includes('\\')) return 'File key must not contain a slash.';
  if (CONTROL.test(key)) return 'File key must not contain control characters.';
  if (key === '.' || key === '..') return 'File key must not be "." or "..".';
  return null;
}

export function assertFilesEnabled(draft: { files: { enabled: boolean } }): void {
  if (!draft.files.enabled) throw new DomainError('forbidden', 'files.disabled', 'Files are not enabled.');
}

/** The edit draft of a published record keeps the published files: they cannot change. */
export function assertFilesUnlocked(draft: DraftRecord): void {
  if (draft.isEditOfPublished) {
    throw invalid('files.locked', 'Files of a published record cannot be changed; create a new version instead.', [
      { field: 'files', messages: ['Files are locked on the draft of a published record.'] },
    ]);
  }
}

export function pendingEntry(key: string, now: string): FileEntry {
  return {
    key,
    status: 'pending',
    created: now,
    updated: now,
    blob: null,
    metadata: null,
    mimetype: null,
    fileId: null,
    versionId: null,
    storageClass: null,
  };
}

export function withContent(entry: FileEntry, blob: BlobRef, now: string): FileEntry {
  if (entry.status !== 'pending') {
    throw invalid('file.committed', `File "${entry.key}" is already committed; delete it to upload new content.`);
  }
  return { ...entry, blob, updated: now };
}

export interface CommitFacts {
  mimetype: string;
  versionId: string;
  dimensions: { width: number; height: number } | null;
}

export function committed(entry: FileEntry, facts: CommitFacts, now: string): FileEntry {
  if (entry.status !== 'pending') throw invalid('file.committed', `File "${entry.key}" is already committed.`);
  if (entry.blob === null) throw invalid('file.no_content', `File "${entry.key}" has no content yet; upload it before committing.`);
  return {
    ...entry,
    status: 'completed',
    updated: now,
    mimetype: facts.mimetype,
    fileId: entry.blob.id,
    versionId: facts.versionId,
    storageClass: 'L',
    metadata: facts.dimensions ? { ...facts.dimensions } : {},
  };
}

export const METADATA_ONLY_WITH_FILES = 'You must first delete all files to set the record to be metadata-only.';
const metadataOnlyWithFiles = (): FieldIssue => ({ field: 'files.enabled', messages: [METADATA_ONLY_WITH_FILES] });

/**
 * The files options a draft save asks for, as InvenioRDM takes them: disabling files while the
 * draft holds some is a draft error, and files stay as enabled as they were.
 */
export function filesOptionsAfterSave(current: FilesOptions, requested: FilesOptions, fileCount: number): { files: FilesOptions; issues: FieldIssue[] } {
  if (requested.enabled || fileCount === 0) return { files: requested, issues: [] };
  return { files: { ...requested, enabled: current.enabled }, issues: [metadataOnlyWithFiles()] };
}

/** Publish blockers about files, as field issues: a published version never carries a pending entry. */
export function fileIssues(enabled: boolean, entries: FileEntry[]): FieldIssue[] {
  // Only drafts saved before the save-time rule existed can be here: metadata-only, yet with files.
  if (!enabled) return entries.length > 0 ? [metadataOnlyWithFiles()] : [];
  if (entries.length === 0) return [{ field: 'files.enabled', messages: ['Missing uploaded files. To disable files for this record please mark it as metadata-only.'] }];
  const pending = entries.filter((e) => e.status !== 'completed').map((e) => e.key);
  return pending.length > 0 ? [{ field: 'files', messages: [`Files not committed: ${pending.join(', ')}.`] }] : [];
}
