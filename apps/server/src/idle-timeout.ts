/**
 * Uploads are limited by silence, not by duration: a 50 GiB file over a normal link takes hours,
 * but a client that sends nothing for the idle time has gone away or stalled.
 */
import { HTTPException } from 'hono/http-exception';


/** The body's chunks as they come; throws a 408 when none arrives for `idleMs`. */
export function idleLimited(source: AsyncIterable<Uint8Array>, idleMs: number): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      let finished = false;
      let stalled = false;
      try {
        for (;;) {
          const next = it.next();
          let timer: ReturnType<typeof setTimeout> | undefined;
          const idle = new Promise<'idle'>((ok) => {
            timer = setTimeout(() => ok('idle'), idleMs);
          });
          const result = await Promise.race([next, idle]).finally(() => clearTimeout(timer));
          if (result === 'idle') {
            stalled = true;
            // Settles when the connection closes, after the 408 went out.
            next.catch(() => undefined);
            throw new HTTPException(408, { message: `No upload data arrived for ${idleMs / 1000} seconds; nothing was kept.` });
          }
          if (result.done) {
            finished = true;
            return;
          }
          yield result.value;
        }
      } finally {
        // Release the source when the consumer stops early. After a stall a read is still
        // pending, and a stream's iterator would only return once it settles: do not wait.
        if (!finished) {
          const closing = it.return?.();
          if (stalled) void Promise.resolve(closing).catch(() => undefined);
          else await closing;
        }
      }
    },
  };
}
