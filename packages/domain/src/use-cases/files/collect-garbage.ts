import { invalid } from '../../errors.ts';
import type { StoredBlobInfo } from '../../ports.ts';
import type { CoreDeps } from '../deps.ts';

export interface GarbageReport {
  /** Blobs no file entry points at, deleted. */
  removed: number;
  removedBytes: number;
  /** Blobs still referenced, or too young to judge. */
  kept: number;
  /** Temp data of uploads cut short by a crash, deleted. */
  partialUploads: { removed: number; bytes: number };
}

const cutoffOf = (deps: CoreDeps, graceMinutes: number): string => {
  if (!Number.isInteger(graceMinutes) || graceMinutes < 0) throw invalid('gc.grace', 'The grace period must be a whole number of minutes, 0 or more.');
  return new Date(Date.parse(deps.clock.now()) - graceMinutes * 60_000).toISOString();
};

/**
 * Deletes what uploads cut short by a crash left in storage, untouched for `graceMinutes`: an
 * upload in flight touches its temp data at least every minute, in this process or another.
 */
export async function sweepPartialUploads(deps: CoreDeps, graceMinutes: number): Promise<{ removed: number; bytes: number }> {
  return deps.storage.sweepPartialWrites(cutoffOf(deps, graceMinutes));
}

/**
 * Deletes stored blobs that no file entry points at, and the temp data of uploads cut short: content of discarded drafts, of deleted or
 * re-uploaded draft files. Deleting those at the time would need reference counts, since a new
 * version shares its files' blobs with the versions before it; a sweep needs none.
 *
 * Blobs written less than `graceMinutes` ago are kept: an upload writes its blob before the
 * transaction that points its entry at it. Older blobs are listed before the references are
 * read, and an old blob never gains its first reference (an import copies references that
 * already exist), so a blob judged unreferenced stays so.
 */
export async function collectGarbage(deps: CoreDeps, graceMinutes: number): Promise<GarbageReport> {
  const cutoff = cutoffOf(deps, graceMinutes);
  const partialUploads = await deps.storage.sweepPartialWrites(cutoff);
  const old: StoredBlobInfo[] = [];
  let kept = 0;
  for await (const blob of deps.storage.list()) {
    if (blob.written < cutoff) old.push(blob);
    else kept++;
  }
  const referenced = await deps.repos.files.referencedBlobIds();
  const report: GarbageReport = { removed: 0, removedBytes: 0, kept, partialUploads };
  for (const blob of old) {
    if (referenced.has(blob.id)) {
      report.kept++;
      continue;
    }
    await deps.storage.delete(blob.id);
    report.removed++;
    report.removedBytes += blob.size;
  }
  return report;
}
