import { close, closeSync, fdatasync, fstatSync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';

export interface WalSyncer {
  /** Resolves once an fsync of the WAL file begun after this call has ended. */
  sync(): Promise<void>;
  /** Closes the descriptor kept open (after the database itself, so the last sync has run). */
  close(): void;
}

const openFile = (path: string) => new Promise<number>((ok, fail) => open(path, 'r', (e, fd) => (e ? fail(e) : ok(fd))));
const call = (fn: (fd: number, done: (e: NodeJS.ErrnoException | null) => void) => void, fd: number) =>
  new Promise<void>((ok, fail) => fn(fd, (e) => (e ? fail(e) : ok())));

/**
 * fsyncs the WAL file, coalescing: a call while an fsync runs waits for the next one, which
 * starts once the running one ends and covers every commit made until then.
 *
 * The descriptor stays open between fsyncs: opening and closing the file for each one tripled
 * the thread-pool round trips of every commit. SQLite deletes the WAL file only when the last
 * connection closes, which ours does not while the handle lives; should it happen anyway (the
 * file unlinked, a new one created), the kept descriptor is of a file with no links left, and
 * the next fsync opens the new one instead of syncing the old.
 */
export function walSyncer(walFile: string): WalSyncer {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  let fd: number | null = null;
  let dirSynced = false;
  const current = async (): Promise<number | null> => {
    if (fd !== null && fstatSync(fd).nlink > 0) return fd;
    if (fd !== null) closeSync(fd);
    fd = null;
    try {
      fd = await openFile(walFile);
    } catch (e) {
      // No WAL file: nothing was written since the last checkpoint, which SQLite synced itself.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    // A file opened anew needs its directory entry synced too, or it may not survive.
    dirSynced = false;
    return fd;
  };
  const syncOnce = async () => {
    const wal = await current();
    if (wal === null) return;
    await call(fdatasync, wal);
    if (!dirSynced) {
      const dir = await openFile(dirname(walFile));
      try {
        await call(fsync, dir);
      } finally {
        await call(close, dir);
      }
      dirSynced = true;
    }
  };
  const start = (): Promise<void> => {
    running = syncOnce().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    sync() {
      if (running === null) return start();
      next ??= running.then(
        () => ((next = null), start()),
        () => ((next = null), start()),
      );
      return next;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
