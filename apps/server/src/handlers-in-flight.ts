import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Counts the request handlers still running, so shutdown can wait for them. `server.close()`
 * calls back once every connection has closed, but a client that hangs up mid-request closes its
 * connection while the handler goes on: it commits, then projects into the search index, which
 * must stay open until the handler ends. Closed under it, the projection failed and the record
 * was left out of the index until the next start caught up.
 */
export function handlersInFlight(listener: Listener) {
  let running = 0;
  let waiting: (() => void)[] = [];
  const ended = () => {
    if (--running > 0) return;
    const wake = waiting;
    waiting = [];
    for (const resolve of wake) resolve();
  };
  return {
    listener(req: IncomingMessage, res: ServerResponse): void {
      running++;
      let outcome: unknown;
      try {
        outcome = listener(req, res);
      } catch (e) {
        ended();
        throw e;
      }
      if (outcome instanceof Promise) outcome.then(ended, ended);
      else ended();
    },
    /** Resolves true once no handler runs, or false after `timeoutMs` with some still running. */
    settled(timeoutMs: number): Promise<boolean> {
      if (running === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        waiting.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
