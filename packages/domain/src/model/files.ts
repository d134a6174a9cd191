/**
 * File entries of a draft: pending -> completed. Keys are user-supplied names and never reach
 * storage paths; blobs are addressed by generated ids.
 */
import { DomainError, invalid } from '../errors.ts';
import type { BlobRef, DraftRecord, FileEntry } from './types.ts';

const CONTROL = /[\u0000-\u001f\u007f]/;

export function keyProblem(key: string): string | null {
  if (key.length < 1 || key.length > 255) return 'File key must be 1 to 255 characters long.';
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

/** Publish blockers about files, as field issues. */
export function fileIssues(enabled: boolean, entries: FileEntry[]): { field: string; messages: string[] }[] {
  if (!enabled) return [];
  if (entries.length === 0) return [{ field: 'files.enabled', messages: ['Missing uploaded files. To disable files for this record please mark it as metadata-only.'] }];
  const pending = entries.filter((e) => e.status !== 'completed').map((e) => e.key);
  return pending.length > 0 ? [{ field: 'files', messages: [`Files not committed: ${pending.join(', ')}.`] }] : [];
}
