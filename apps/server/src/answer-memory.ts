/**
 * A bound on the memory listing answers hold. Each page is bounded on its own (32 MiB of stored
 * records), but nothing bounded how many were made at once: a page of 14 records of the largest
 * legal size (23 MiB of JSON) took the process 140 MiB above where it was, and four at once, from
 * an anonymous client, 670 MiB. So a page takes what it will hold from the budget request bodies
 * and downloads share (body-budget.ts), before its records are read, and gives it back once its
 * client has taken the answer: refused at once past the budget, 429 or 503 with `Retry-After`,
 * as a body is. A client that stops reading a large answer is dropped after the download idle
 * time, as a download is.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AnswerMemory } from '@krs/domain';
import type { BodyBudget, BodyHold } from './body-budget.ts';
import { heldDownload } from './held-download.ts';
import { remoteAddressOf, socketOf, type Env } from './routes/request.ts';

/**
 * Memory an answer holds per stored byte of its records: the parsed records, their JSON text and
 * the encoded answer (a page of 23 MiB of stored records peaked 140 MiB above where it began).
 */
export const ANSWER_BYTES_PER_STORED_BYTE = 6;
/** A held answer is handed to the connection in chunks of this size, so a client reading steadily is never taken for idle. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Answers up to this size give their share back once written, as one body: the fast path keeps
 * only such answers (the largest it keeps is a sixteenth of its 16 MiB), and a streamed one it
 * would not keep, so a popular record of some hundreds of KiB would be made again for each reader.
 */
const HELD_FROM_BYTES = 1024 * 1024;

/** A request's share of the budget: the domain's AnswerMemory, and the hold once the answer is made. */
export interface AnswerScope extends AnswerMemory {
  /** The hold, if the answer took anything, now the answer's to give back; null otherwise. */
  handOver(): BodyHold | null;
}

/**
 * Gives each request a scope (`answerOf`); what it took and did not hand over to its answer is
 * given back once the handler has answered.
 */
export function answerScopes(budget: BodyBudget): MiddlewareHandler<Env> {
  return async (c, next) => {
    let hold: BodyHold | null = null;
    let handedOver = false;
    c.set('answer', {
      take(storedBytes) {
        hold ??= budget.hold(remoteAddressOf(c));
        hold.take(storedBytes * ANSWER_BYTES_PER_STORED_BYTE);
      },
      handOver() {
        if (hold !== null) handedOver = true;
        return hold;
      },
    });
    try {
      await next();
    } finally {
      if (!handedOver) (hold as BodyHold | null)?.release();
    }
  };
}

/** The request's scope; outside `answerScopes` (an app without a budget), none. */
export const answerOf = (c: Context<Env>): AnswerScope | undefined => c.get('answer');

/**
 * The answer's bytes as its body: held until its client has taken them when the answer took
 * anything from the budget and is larger than HELD_FROM_BYTES, else as they are.
 */
export function heldAnswer(c: Context<Env>, bytes: Uint8Array<ArrayBuffer>, idleMs: number): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  // A HEAD's body is never read: its hold is given back with the handler's answer, as a small
  // answer's is.
  const hold = c.req.method === 'HEAD' || bytes.length <= HELD_FROM_BYTES ? null : (answerOf(c)?.handOver() ?? null);
  if (hold === null) return bytes;
  let offset = 0;
  const chunks = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + CHUNK_BYTES));
      offset += CHUNK_BYTES;
    },
  });
  const socket = socketOf(c);
  return heldDownload(chunks, { hold, idleMs, drop: () => socket?.destroy() });
}
