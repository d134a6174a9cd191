import { close, fdatasync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Open, sync and close through the callback API: a promise FileHandle (an object with its own
 * close bookkeeping) cost 10-25 µs more CPU per fsync, in a loop on this machine.
 */
function syncFile(path: string, sync: typeof fdatasync): Promise<void> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      sync(fd, (syncError) => {
        close(fd, (closeError) => {
          const error = syncError ?? closeError;
          if (error) reject(error);
          else resolve();
        });
      });
    });
  });
}

/**
 * fsyncs the WAL file, coalescing: a call while an fsync runs waits for the next one, which
 * starts once the running one ends and covers every commit made until then. The file is opened
 * for each fsync: SQLite may delete and recreate it when the last connection closes.
 */
export function walSyncer(walFile: string): () => Promise<void> {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  let dirSynced = false;
  const syncOnce = async () => {
    try {
      await syncFile(walFile, fdatasync);
    } catch (e) {
      // No WAL file: nothing was written since the last checkpoint, which SQLite synced itself.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (!dirSynced) {
      // The WAL file's own directory entry, the first time: a new file must survive too.
      await syncFile(dirname(walFile), fsync);
      dirSynced = true;
    }
  };
  const start = (): Promise<void> => {
    running = syncOnce().finally(() => {
      running = null;
    });
    return running;
  };
  return () => {
    if (running === null) return start();
    next ??= running.then(
      () => ((next = null), start()),
      () => ((next = null), start()),
    );
    return next;
  };
}
