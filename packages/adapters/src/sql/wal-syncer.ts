import { open } from 'node:fs/promises';
import { dirname } from 'node:path';

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
    let handle;
    try {
      handle = await open(walFile, 'r');
    } catch (e) {
      // No WAL file: nothing was written since the last checkpoint, which SQLite synced itself.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    if (!dirSynced) {
      // The WAL file's own directory entry, the first time: a new file must survive too.
      const dir = await open(dirname(walFile), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
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
  return () => {
    if (running === null) return start();
    next ??= running.then(
      () => ((next = null), start()),
      () => ((next = null), start()),
    );
    return next;
  };
}
