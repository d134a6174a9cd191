/**
 * Uploads are limited by silence, not by duration: a 50 GiB file over a normal link takes hours,
 * but a client that sends nothing for the idle time has gone away or stalled.
 */
import { HTTPException } from 'hono/http-exception';

/**
 * The body's chunks as they come; throws a 408 when none arrives for `idleMs` after it was asked
 * for. One timer per upload, re-armed per chunk: this runs for every chunk of every upload.
 */
export function idleLimited(source: AsyncIterable<Uint8Array>, idleMs: number): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const it = source[Symbol.asyncIterator]();
      let wake: ((idle: 'idle') => void) | null = null;
      const timer = setTimeout(() => wake?.('idle'), idleMs);
      let stalled = false;
      return {
        async next() {
          timer.refresh();
          const pending = it.next();
          const result = await Promise.race([pending, new Promise<'idle'>((ok) => (wake = ok))]);
          wake = null;
          if (result === 'idle') {
            stalled = true;
            clearTimeout(timer);
            // The read settles when the connection closes, after the 408 went out; a stream's
            // iterator returns only once it has, so neither is waited for.
            pending.catch(() => undefined);
            void Promise.resolve(it.return?.()).catch(() => undefined);
            throw new HTTPException(408, { message: `No upload data arrived for ${idleMs / 1000} seconds; nothing was kept.` });
          }
          if (result.done) clearTimeout(timer);
          return result;
        },
        // The consumer stopped early (a limit was passed): release the source.
        async return() {
          clearTimeout(timer);
          if (!stalled) await it.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
