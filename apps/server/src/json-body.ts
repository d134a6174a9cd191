/**
 * JSON bodies: Content-Type must be JSON (415), size at most 10 MiB (413), nesting and the number
 * of objects and arrays within limits (400, measured as the bytes arrive, before parsing), and text
 * that does not parse is a 400 with InvenioRDM's message. An empty body reads as `{}` so bodiless
 * POSTs work.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError, METADATA_LIMITS } from '@krs/domain';
import { JsonShapeScanner, type ShapeProblem } from './json-shape.ts';

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

/** Bodies longer than this hand the loop to others after parsing, before the handler's own work. */
const YIELD_AFTER_CHARS = 64 * 1024;

/** Requests whose body was already read here (the app and `validate` both mount this). */
const read = new WeakSet<object>();

export const jsonBody: MiddlewareHandler = async (c, next) => {
  const method = c.req.method;
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE') return next();
  if (read.has(c.req)) return next();
  read.add(c.req);
  const length = c.req.header('content-length');
  if (length !== undefined && Number(length) > MAX_JSON_BYTES) throw tooLarge();
  const text = await readLimited(bodyOf(c));
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('invalid', 'request.json', 'Unable to decode JSON data in request body.');
  }
  keepBody(c, text, parsed);
  // Reading and parsing a large body took its share of the loop: other requests go first.
  if (text.length > YIELD_AFTER_CHARS) await new Promise((resolve) => setImmediate(resolve));
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
 * On Node the request's own stream is read: the web Request that @hono/node-server builds only
 * when its body is asked for, its web-stream wrapper, and the Request rebuilt around the text
 * read cost a small write more than its whole unit of work. Elsewhere (tests through
 * `app.request`) the web body is read.
 */
function bodyOf(c: Context): AsyncIterable<Uint8Array> | null {
  const bindings: unknown = c.env;
  const incoming = typeof bindings === 'object' && bindings !== null ? (bindings as { incoming?: unknown }).incoming : undefined;
  if (incoming && typeof incoming === 'object' && Symbol.asyncIterator in incoming) return incoming as AsyncIterable<Uint8Array>;
  return c.req.raw.body;
}

/** Refusing mid-body stops the reading and discards the stream (the loop's early exit cancels it). */
async function readLimited(body: AsyncIterable<Uint8Array> | null): Promise<string> {
  if (body === null) return '';
  // Decoded chunk by chunk as the bytes arrive: decoding ten megabytes at the end held the loop
  // for tens of milliseconds, and joining the chunks first for as long again.
  const decoder = new TextDecoder();
  let text = '';
  const shape = new JsonShapeScanner(MAX_JSON_DEPTH, MAX_JSON_CONTAINERS, MAX_JSON_ITEMS, MAX_JSON_STRING_BYTES);
  let size = 0;
  for await (const value of body) {
    size += value.byteLength;
    if (size > MAX_JSON_BYTES) throw tooLarge();
    const problem = shape.write(value);
    if (problem) throw shapeRefused(problem);
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
