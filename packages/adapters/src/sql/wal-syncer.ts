import { close, fdatasync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';

const opened = (path: string): Promise<number> =>
  new Promise((resolve, reject) => open(path, 'r', (error, fd) => (error ? reject(error) : resolve(fd))));
const synced = (fd: number, sync: typeof fdatasync): Promise<void> =>
  new Promise((resolve, reject) => sync(fd, (error) => (error ? reject(error) : resolve())));
const closed = (fd: number): Promise<void> => new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));

export interface WalSyncer {
  /** Resolves once an fsync that began after the call has ended. */
  sync(): Promise<void>;
  /** Syncs what is left and closes the file; call before the last connection closes. */
  close(): Promise<void>;
}

/**
 * fsyncs the WAL file, coalescing: a call while an fsync runs waits for the next one, which
 * starts once the running one ends and covers every commit made until then.
 *
 * The file is opened once, the first time it exists, and kept open (through the callback API: a
 * promise FileHandle cost 10-25 µs more CPU per fsync). SQLite deletes the WAL file only when the
 * last connection to the database closes, and the connection this syncs for stays open until
 * `close`; checkpoints truncate or rewrite it in place. An open and a close per fsync were two
 * more trips through the thread pool on every group commit.
 */
export function walSyncer(walFile: string): WalSyncer {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  let fd: number | null = null;
  const syncOnce = async () => {
    if (fd === null) {
      let opening: number;
      try {
        opening = await opened(walFile);
      } catch (e) {
        // No WAL file: nothing was written since the last checkpoint, which SQLite synced itself.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
      // The WAL file's own directory entry, once: a new file must survive too.
      try {
        const dir = await opened(dirname(walFile));
        try {
          await synced(dir, fsync);
        } finally {
          await closed(dir);
        }
      } catch (e) {
        await closed(opening);
        throw e;
      }
      fd = opening;
    }
    await synced(fd, fdatasync);
  };
  const start = (): Promise<void> => {
    running = syncOnce().finally(() => {
      running = null;
    });
    return running;
  };
  const sync = (): Promise<void> => {
    if (running === null) return start();
    next ??= running.then(
      () => ((next = null), start()),
      () => ((next = null), start()),
    );
    return next;
  };
  return {
    sync,
    async close() {
      await sync();
      if (fd !== null) await closed(fd);
      fd = null;
    },
  };
}
