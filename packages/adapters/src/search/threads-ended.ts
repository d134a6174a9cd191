import type { Worker } from 'node:worker_threads';

/**
 * Resolves once the threads have ended. A process that exits while a thread is still loading
 * better-sqlite3 (a stop right after start) aborts with a fatal error in the addon, so shutdown
 * waits for them; they are kept referenced until then, or the process could end first.
 */
export function threadsEnded(workers: readonly Worker[]): Promise<void> {
  return Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.threadId === -1) return resolve();
          worker.ref();
          worker.once('exit', () => resolve());
        }),
    ),
  ).then(() => undefined);
}
