import SparkMD5 from 'spark-md5';
import { isDomainError } from '../../errors.ts';
import { searchDocuments } from '../../model/search-document.ts';
import type { FileOwner, RecordKind } from '../../model/types.ts';
import type { FileEntryCursor, OwnedFileEntry } from '../../ports.ts';
import type { CoreDeps } from '../deps.ts';
import { managerOwnerOf } from '../lookup.ts';
import { afterProjections } from '../project-search.ts';

export interface VerifyOptions {
  /** Only file entries updated at or after this instant (and parents changed after it, for the index). */
  since?: string;
  /** At most this many file entries, oldest `updated` first. */
  limit?: number;
  /** Compare the search index with the database too (default true). */
  index?: boolean;
  onProgress?: (p: VerifyProgress) => void;
}

export interface VerifyProgress {
  phase: 'files' | 'index';
  done: number;
  /** Known for the index phase only: file entries are paged, not counted first. */
  total: number | null;
  bytes: number;
}

export type FileProblemKind = 'missing' | 'size' | 'md5' | 'unreadable';

export interface FileProblem {
  kind: FileProblemKind;
  owner: FileOwner;
  key: string;
  blobId: string;
  message: string;
}

export interface IndexProblem {
  parentId: string;
  /** Documents the database implies that the index lacks. */
  missing: string[];
  /** Documents the index holds that the database no longer implies. */
  stale: string[];
}

export interface VerifyReport {
  ok: boolean;
  files: { checked: number; blobs: number; bytes: number; problems: FileProblem[] };
  index: { checked: number; problems: IndexProblem[] } | null;
  /** `updated` of the last entry checked: the `since` that continues a `limit`ed sweep. */
  lastUpdated: string | null;
}

const PAGE = 500;

/**
 * Fixity and consistency of what is stored: every file entry's blob is re-read and its md5 and
 * size compared with the ones recorded at upload, and each parent's search documents are
 * compared with what the database implies. Blobs shared by several versions are read once.
 * Reads only; repairs are left to the operator (`krs reindex`, a restore).
 */
export async function verifyStore(deps: CoreDeps, options: VerifyOptions = {}): Promise<VerifyReport> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const report: VerifyReport = { ok: true, files: { checked: 0, blobs: 0, bytes: 0, problems: [] }, index: null, lastUpdated: null };
  // Outcome per blob id: null when it matched.
  const seen = new Map<string, { problem: Omit<FileProblem, 'owner' | 'key'> | null }>();
  let after: FileEntryCursor | undefined;
  while (report.files.checked < limit) {
    const want = Math.min(PAGE, limit - report.files.checked);
    const page: OwnedFileEntry[] = await deps.repos.files.listAll({ after, updatedSince: options.since, limit: want });
    for (const { owner, entry } of page) {
      report.files.checked++;
      report.lastUpdated = entry.updated;
      if (entry.blob === null) continue;
      let outcome = seen.get(entry.blob.id);
      if (outcome === undefined) {
        outcome = { problem: await checkBlob(deps, entry.blob) };
        seen.set(entry.blob.id, outcome);
        report.files.blobs++;
        report.files.bytes += entry.blob.size;
      }
      if (outcome.problem !== null) report.files.problems.push({ ...outcome.problem, owner, key: entry.key });
      options.onProgress?.({ phase: 'files', done: report.files.checked, total: null, bytes: report.files.bytes });
    }
    const last = page.at(-1);
    if (last === undefined || page.length < want) break;
    after = { updated: last.entry.updated, state: last.owner.state, recordId: last.owner.recordId, key: last.entry.key };
  }
  if (options.index !== false) report.index = await verifyIndex(deps, options);
  report.ok = report.files.problems.length === 0 && (report.index?.problems.length ?? 0) === 0;
  return report;
}

async function checkBlob(deps: CoreDeps, blob: { id: string; size: number; md5: string }): Promise<Omit<FileProblem, 'owner' | 'key'> | null> {
  const problem = (kind: FileProblemKind, message: string) => ({ kind, blobId: blob.id, message });
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await deps.storage.read(blob.id);
  } catch (e) {
    if (isDomainError(e) && e.kind === 'not_found') return problem('missing', 'The stored content is missing.');
    return problem('unreadable', e instanceof Error ? e.message : String(e));
  }
  const md5 = new SparkMD5.ArrayBuffer();
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.byteLength;
      // SparkMD5 takes whole ArrayBuffers; a view into a larger one is copied out first.
      const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk.buffer : chunk.slice().buffer;
      md5.append(whole as ArrayBuffer);
    }
  } catch (e) {
    return problem('unreadable', e instanceof Error ? e.message : String(e));
  }
  if (size !== blob.size) return problem('size', `${size} bytes stored, ${blob.size} recorded.`);
  const digest = md5.end();
  if (digest !== blob.md5) return problem('md5', `md5 ${digest} stored, ${blob.md5} recorded.`);
  return null;
}

async function verifyIndex(deps: CoreDeps, options: VerifyOptions): Promise<{ checked: number; problems: IndexProblem[] }> {
  const kinds: RecordKind[] = ['resource', 'package'];
  const ids = await deps.repos.records.listParentIds(kinds, options.since);
  const problems: IndexProblem[] = [];
  let checked = 0;
  for (const parentId of ids) {
    // A write answered before this read has its documents in the index by then.
    await afterProjections(deps.search);
    const parent = await deps.repos.records.getParent(parentId);
    const expected = new Set<string>();
    if (parent !== null) {
      const [published, drafts, manager] = await Promise.all([
        deps.repos.records.listPublishedVersions(parentId),
        deps.repos.records.listDrafts(parentId),
        managerOwnerOf(deps.repos, parent),
      ]);
      for (const doc of searchDocuments(parent, published, drafts, manager ? [manager] : [])) expected.add(doc.key);
    }
    const actual = new Set(await deps.search.keysOfParent(parentId));
    const missing = [...expected].filter((k) => !actual.has(k));
    const stale = [...actual].filter((k) => !expected.has(k));
    if (missing.length > 0 || stale.length > 0) problems.push({ parentId, missing, stale });
    checked++;
    options.onProgress?.({ phase: 'index', done: checked, total: ids.length, bytes: 0 });
  }
  return { checked, problems };
}
