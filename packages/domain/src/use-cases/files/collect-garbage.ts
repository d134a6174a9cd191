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
  /**
   * Records of uploads untouched for the grace period (a crashed or stalled upload's), ended;
   * their blobs, when complete, are among those removed.
   */
  abandonedUploads: number;
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
 * Deletes stored blobs that no file entry points at, and the temp data of uploads cut short:
 * content of discarded drafts, of deleted or re-uploaded draft files, of uploads that failed or
 * crashed. Deleting those at the time would
 * need reference counts, since a new version shares its files' blobs with the versions before it;
 * a sweep needs none.
 *
 * A blob may exist before any entry points at it: an upload writes its blob, then commits the
 * entry. Its upload record (see BlobUploadRepository), made before the first byte and ended in
 * the entry's transaction, covers that window, whatever time the storage dates the blob by (S3
 * dates a multipart upload by its start). So the order of reads matters:
 * 1. storage is listed;
 * 2. then the upload records are read: a blob listed has had its record since before step 1, so
 *    a blob with no record here either had its entry committed or lost its upload;
 * 3. then the references: a commit that ended a record before step 2 is seen here.
 * A blob neither referenced nor under a record is garbage for good: an old blob never gains
 * its first reference (an import copies references that already exist). Its `written` time
 * must still be older than the grace period, for blobs of uploads by servers that kept no
 * records. A record untouched for the grace period is a crashed or stalled upload's: it is
 * ended, in a statement that fails should the upload commit or renew first, and only then is
 * its blob (if it got so far) deleted; the upload, if it goes on, finds its record gone and
 * fails without pointing at anything.
 */
export async function collectGarbage(deps: CoreDeps, graceMinutes: number): Promise<GarbageReport> {
  const cutoff = cutoffOf(deps, graceMinutes);
  const partialUploads = await deps.storage.sweepPartialWrites(cutoff);
  const listed: StoredBlobInfo[] = [];
  for await (const blob of deps.storage.list()) listed.push(blob);
  const uploads = await deps.repos.blobUploads.list();
  const referenced = await deps.repos.files.referencedBlobIds();
  const report: GarbageReport = { removed: 0, removedBytes: 0, kept: 0, partialUploads, abandonedUploads: 0 };
  const endIfStale = async (blobId: string, touched: string | undefined): Promise<boolean> => {
    if (touched === undefined || touched >= cutoff) return false;
    const ended = await deps.uow.run((tx) => tx.blobUploads.endIfStale(blobId, cutoff));
    if (ended) report.abandonedUploads++;
    return ended;
  };
  for (const blob of listed) {
    const garbage = referenced.has(blob.id) ? false : uploads.has(blob.id) ? await endIfStale(blob.id, uploads.get(blob.id)) : blob.written < cutoff;
    if (!garbage) {
      report.kept++;
      continue;
    }
    await deps.storage.delete(blob.id);
    report.removed++;
    report.removedBytes += blob.size;
  }
  // Uploads that crashed before their blob was complete: the record alone goes.
  const stored = new Set(listed.map((b) => b.id));
  for (const [blobId, touched] of uploads) if (!stored.has(blobId)) await endIfStale(blobId, touched);
  return report;
}
