/**
 * A download holds its storage's read buffer in memory for as long as its client has not taken
 * the bytes: thousands of clients that open large downloads and then stop reading held hundreds
 * of MiB, and each an open file, with nothing to end them. So a download takes what it may hold
 * from the same budget as request bodies (refused at once past it, 429 or 503, like a body), gives
 * it back when it ends however it ends, and is dropped when its client takes nothing for the idle
 * time.
 */
import type { BodyHold } from './body-budget.ts';

/** Thrown into the answer's stream when its client took nothing for the idle time; the connection is then closed. */
export class DownloadStalled extends Error {
  constructor(idleMs: number) {
    super(`The client took no bytes for ${idleMs / 1000} seconds; the download was dropped.`);
    this.name = 'DownloadStalled';
  }
}

/**
 * `source`'s chunks, read one at a time as the connection asks for them (no chunk read ahead),
 * `hold` released once the stream ends, fails, is cancelled or stalls. A stalled connection is
 * waiting to drain and asks for nothing, so an error in the stream alone would never reach it:
 * `drop` closes it.
 */
export function heldDownload(source: ReadableStream<Uint8Array>, hold: BodyHold, idleMs: number, drop: (e: DownloadStalled) => void = () => undefined): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: NodeJS.Timeout | null = null;
  const settle = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    hold.release();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Re-armed by every read the connection asks for: a client reading slowly but steadily is never cut.
        timer = setTimeout(() => {
          settle();
          reader.cancel().catch(() => undefined);
          const stalled = new DownloadStalled(idleMs);
          controller.error(stalled);
          drop(stalled);
        }, idleMs);
        timer.unref();
      },
      async pull(controller) {
        timer?.refresh();
        try {
          const { done, value } = await reader.read();
          if (done) {
            settle();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (e) {
          settle();
          controller.error(e);
        }
      },
      cancel(reason) {
        settle();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
