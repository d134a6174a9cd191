/**
 * JSON bodies: Content-Type must be JSON (415), size at most 10 MiB (413), nesting and the number
 * of objects and arrays within limits (400, measured as the bytes arrive, before parsing), and text
 * that does not parse is a 400 with InvenioRDM's message. An empty body reads as `{}` so bodiless
 * POSTs work.
 */
import type { Readable } from 'node:stream';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { DomainError, largeValueSlices, METADATA_LIMITS, nextIteration, parseJsonInTurns } from '@krs/domain';
import type { BodyBudget, BodyHold } from './body-budget.ts';
import { requireIdentityCoding } from './content-coding.ts';
import { JsonShapeScanner, type ShapeProblem } from './json-shape.ts';
import { incomingOf, remoteAddressOf } from './routes/request.ts';

export const MAX_JSON_BYTES = 10 * 1024 * 1024;
/** `metadata` sits one level below the body, so the body may nest one level more than metadata. */
export const MAX_JSON_DEPTH = METADATA_LIMITS.maxDepth + 1;
/**
 * Objects and arrays in one body. The largest legal metadata (limited to 2 MiB once normalised)
 * holds about 100,000; parsing millions of empty ones would hold the loop for seconds.
 */
export const MAX_JSON_CONTAINERS = 200_000;
/** List items in one body: the largest legal metadata has under 150,000 (positions included). */
export const MAX_JSON_ITEMS = 250_000;
/**
 * Bytes of one JSON string as sent. No member may hold more than 100,000 characters, which is
 * at most 1.2 MB however it is escaped (a `\uXXXX\uXXXX` pair per character); a longer string
 * is refused as it arrives, not parsed first.
 */
export const MAX_JSON_STRING_BYTES = 2 * 1024 * 1024;

/**
 * What a JSON body holds per byte sent, counted against the body budget: its text, and the
 * objects parsing makes of it (about twice the text for a body of many small objects, the
 * largest kind; measured on the heap).
 */
const PARSED_BYTES_PER_BYTE = 3;

/** Bodies longer than this hand the loop to others after parsing, before the handler's own work. */
const YIELD_AFTER_CHARS = 64 * 1024;

/**
 * Bytes read in one turn before the request's stream is paused until its turn comes again in the
 * queue of long work (nextIteration). libuv reads up to 32 chunks of 64 KiB from a socket in one
 * go, and each is scanned and decoded as it comes (about 6 ms a MiB): a turn of 128 KiB stays
 * within the 2 ms slice of other long work.
 */
const BYTES_PER_TURN = 128 * 1024;


/** Requests whose body was already read here (the app and `validate` both mount this). */
const read = new WeakSet<object>();

export const jsonBody: MiddlewareHandler = (c, next) => readJsonBody(c, next, null);

/**
 * `jsonBody` with the body's bytes taken from `budget` as they arrive (refused with
 * BodyBudgetExceeded past it) and given back once the handler has answered.
 */
export function jsonBodyWithin(budget: BodyBudget): MiddlewareHandler {
  return async (c, next) => {
    const hold = budget.hold(remoteAddressOf(c));
    try {
      return await readJsonBody(c, next, hold);
    } finally {
      hold.release();
    }
  };
}

async function readJsonBody(c: Context, next: Next, hold: BodyHold | null): Promise<Response | void> {
  const method = c.req.method;
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE') return next();
  if (read.has(c.req)) return next();
  read.add(c.req);
  requireIdentityCoding(c.req.header('content-encoding'));
  const length = c.req.header('content-length');
  if (length !== undefined && Number(length) > MAX_JSON_BYTES) throw tooLarge();
  // A declared length is taken whole before a byte is read, so a body the budget cannot hold is
  // refused at once rather than after most of it arrived.
  if (hold !== null && length !== undefined && Number(length) > 0) hold.take(PARSED_BYTES_PER_BYTE * Number(length));
  const text = await readBody(c, hold, Number(length) || 0);
  if (text.trim() === '') {
    // A bodiless request counts as `{}` (Hono's json validator passes `{}` too when there is no
    // JSON content type).
    keepBody(c, '{}', {});
    return next();
  }
  const type = c.req.header('content-type');
  if (!type || !/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i.test(type.trim())) {
    throw new DomainError('unsupported_media_type', 'request.content_type', 'The request body must be JSON (Content-Type: application/json).');
  }
  // The body's last chunks were read in this turn: a large one is parsed in turns of its own, in
  // slices (parsing the largest legal body at once held the loop for 10-20 ms).
  let parsed: unknown;
  try {
    if (text.length <= YIELD_AFTER_CHARS) parsed = JSON.parse(text);
    else {
      await nextIteration();
      parsed = await parseJsonInTurns(text, largeValueSlices());
    }
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw new DomainError('invalid', 'request.json', 'Unable to decode JSON data in request body.');
  }
  keepBody(c, text, parsed);
  // Reading and parsing a large body took its share of the loop: other requests go first. A timer,
  // not setImmediate: the body ends in the loop's poll phase, and an immediate set there runs in
  // the same iteration, so the handler's first steps would follow the parse with no request read
  // in between (one block of 20-30 ms for the largest legal body).
  if (text.length > YIELD_AFTER_CHARS) await nextIteration();
  return next();
};

function shapeRefused(problem: ShapeProblem): DomainError {
  const details =
    problem.kind === 'too_deep'
      ? [{ field: problem.path, messages: [`Nested deeper than ${METADATA_LIMITS.maxDepth} levels.`] }]
      : problem.kind === 'too_many_items'
        ? [{ field: problem.path, messages: [`More than ${MAX_JSON_ITEMS} list items in one body.`] }]
        : problem.kind === 'too_long'
          ? [{ field: problem.path, messages: [`Longer than any member may be (${METADATA_LIMITS.maxHtml} characters).`] }]
          : [{ field: '_schema', messages: [`More than ${MAX_JSON_CONTAINERS} objects and arrays in one body.`] }];
  return new DomainError('invalid', 'request.shape', 'A validation error occurred: the record is larger than the documented limits.', details);
}

const tooLarge = () => new DomainError('too_large', 'request.too_large', `Request bodies may be at most ${MAX_JSON_BYTES} bytes.`);

/**
 * The body as read, for whoever reads it next: `c.req.json()` answers this parse (parsing a
 * 10 MiB body holds the event loop for tens of milliseconds; the validators get it instead of
 * parsing again) and `c.req.text()` this text. The request's own stream has been consumed.
 */
function keepBody(c: Context, text: string, parsed: unknown): void {
  Object.defineProperty(c.req, 'json', { value: () => Promise.resolve(parsed) });
  Object.defineProperty(c.req, 'text', { value: () => Promise.resolve(text) });
}

/**
 * The body's text as its bytes arrive, refused (by throwing) past the size limit or a shape
 * limit. Decoded chunk by chunk: decoding ten megabytes at the end held the loop for tens of
 * milliseconds, and joining the chunks first for as long again.
 */
function bodyText(hold: BodyHold | null, prepaid: number) {
  const decoder = new TextDecoder();
  const shape = new JsonShapeScanner(MAX_JSON_DEPTH, MAX_JSON_CONTAINERS, MAX_JSON_ITEMS, MAX_JSON_STRING_BYTES);
  let text = '';
  let size = 0;
  return {
    write(chunk: Uint8Array): void {
      size += chunk.byteLength;
      if (size > MAX_JSON_BYTES) throw tooLarge();
      if (size > prepaid) hold?.take(PARSED_BYTES_PER_BYTE * (size - Math.max(prepaid, size - chunk.byteLength)));
      const problem = shape.write(chunk);
      if (problem) throw shapeRefused(problem);
      text += decoder.decode(chunk, { stream: true });
    },
    end: (): string => text + decoder.decode(),
  };
}

type BodyText = ReturnType<typeof bodyText>;

/**
 * On Node the request's own stream is read: the web Request that @hono/node-server builds only
 * when its body is asked for, its web-stream wrapper, and the Request rebuilt around the text
 * read took a large share of a small write's time. Elsewhere (tests through `app.request`) the
 * web body is read.
 */
function readBody(c: Context, hold: BodyHold | null, prepaid: number): Promise<string> {
  const incoming = incomingOf(c);
  if (incoming !== undefined) return readIncoming(incoming, bodyText(hold, prepaid));
  return readWebBody(c.req.raw.body, bodyText(hold, prepaid));
}

/** Refusing mid-body cancels the stream. */
async function readWebBody(body: ReadableStream<Uint8Array> | null, text: BodyText): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text.end();
    try {
      text.write(value);
    } catch (e) {
      await reader.cancel();
      throw e;
    }
  }
}

/**
 * Refusing mid-body keeps the connection, so the client reads the refusal: what is left of the
 * body is read and dropped, up to the size limit; a body still arriving past it is cut off.
 */
function readIncoming(incoming: Readable, text: BodyText): Promise<string> {
  return new Promise((ok, fail) => {
    let dropped = 0;
    const drop = (chunk: Uint8Array) => {
      dropped += chunk.byteLength;
      if (dropped > MAX_JSON_BYTES) incoming.destroy();
    };
    let readThisTurn = 0;
    const read = (chunk: Uint8Array) => {
      try {
        text.write(chunk);
      } catch (e) {
        incoming.off('data', read).off('end', done).on('data', drop);
        fail(e);
        return;
      }
      readThisTurn += chunk.byteLength;
      if (readThisTurn >= BYTES_PER_TURN) {
        readThisTurn = 0;
        incoming.pause();
        void nextIteration().then(() => incoming.resume());
      }
    };
    const done = () => {
      incoming.off('close', closed);
      ok(text.end());
    };
    const closed = () => fail(new Error('aborted'));
    incoming.on('data', read).once('end', done).once('close', closed).once('error', fail);
  });
}
