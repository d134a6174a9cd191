/**
 * A download holds its storage's read buffer in memory for as long as its client has not taken
 * the bytes: thousands of clients that open large downloads and then stop reading held hundreds
 * of MiB, and each an open file, with nothing to end them. So a download takes what it may hold
 * from the same budget as request bodies (refused at once past it, 429 or 503, like a body), gives
 * it back when it ends however it ends, and is dropped when its client takes nothing for the idle
 * time.
 *
 * Where the storage reads into the reader's buffers (the filesystem's does), a download of
 * several chunks reads every chunk into one buffer (`reusedBuffers`): a new buffer per chunk left
 * every chunk the socket had already sent waiting for a collection, and 384 paused downloads
 * (each having pushed a few hundred KiB into the kernel before it stalled) took 100-200 MiB more
 * than the buffers they held.
 */
import type { ReadBuffers } from '@krs/domain';
import type { BodyHold } from './body-budget.ts';

/** Thrown into the answer's stream when its client took nothing for the idle time; the connection is then closed. */
export class DownloadStalled extends Error {
  constructor(idleMs: number) {
    super(`The client took no bytes for ${idleMs / 1000} seconds; the download was dropped.`);
    this.name = 'DownloadStalled';
  }
}

export interface HeldDownloadOptions {
  /** Taken from the budget by the caller; released once the stream ends, fails, is cancelled or stalls. */
  hold: BodyHold;
  idleMs: number;
  /** Closes the connection of a stalled download (see `heldDownload`). */
  drop?: (e: DownloadStalled) => void;
}

/**
 * The buffers a download hands its storage (ReadBuffers): one, given again for each chunk while
 * `flushed()` says the connection holds none of the chunk before; else a new one, which is then
 * the one given again.
 */
export function reusedBuffers(flushed: () => boolean): ReadBuffers {
  let buffer: Uint8Array | null = null;
  return (bytes) => {
    if (buffer === null || !flushed() || buffer.length < bytes) buffer = new Uint8Array(bytes);
    return buffer;
  };
}

/**
 * `source`'s chunks, read one at a time as the connection asks for them (no chunk read ahead),
 * the hold released once the stream ends, fails, is cancelled or stalls. A stalled connection is
 * waiting to drain and asks for nothing, so an error in the stream alone would never reach it:
 * `drop` closes it.
 */
export function heldDownload(source: ReadableStream<Uint8Array>, options: HeldDownloadOptions): ReadableStream<Uint8Array> {
  const { hold, idleMs, drop = () => undefined } = options;
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
