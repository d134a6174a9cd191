/**
 * The one mapping from domain errors to HTTP. The table is a Record over every ErrorKind, so a
 * new kind does not compile until it has a status. Bodies are always `{status, message}` plus
 * `errors: [{field, messages}]` when the error names fields (API-DECISIONS "Identity and errors").
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isDomainError, type ErrorKind, type FieldIssue } from '@krs/domain';
import { BodyBudgetExceeded } from './body-budget.ts';
import { CONTENT_CODING_CODE } from './content-coding.ts';
import { SearchesWaiting } from './search-gate.ts';

/** Work the server does one at a time is under way for another request: the client waits and asks again. */
export class Busy extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export const STATUS_OF: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  too_large: 413,
  unsupported_media_type: 415,
  not_acceptable: 406,
  range_not_satisfiable: 416,
};

export interface ErrorBody {
  status: number;
  message: string;
  errors?: FieldIssue[];
}

export interface HttpError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** What of the request changes the answer: only whether it carried `If-Match`. */
export interface ErrorContext {
  hasIfMatch: boolean;
}

const INTERNAL_ERROR_MESSAGE = 'Internal server error.';
const OUT_OF_SPACE_MESSAGE = 'The server has no room left to store this; nothing of it was kept. Try again later.';

/** Codes for a full disk or quota: Node's file system, SQLite, PostgreSQL (`disk_full`). */
const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);
/** An S3-compatible store's own words for it (the AWS SDK names its error after the code): MinIO's full drives, Ceph's and others' quotas. */
const S3_OUT_OF_SPACE = new Set(['XMinioStorageFull', 'QuotaExceeded', 'InsufficientStorage']);

/** What a store's error may say of itself: Node's and the drivers' `code`, the AWS SDK's `name` and HTTP status. */
interface StoreError {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** Whether `err`, or an error it wraps (a few `cause`s deep), `says` so. */
function saysSo(err: unknown, says: (e: StoreError) => boolean): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth <= 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (says(e as StoreError)) return true;
  }
  return false;
}

/** Whether the error says the disk or quota is full. */
const outOfSpace = (err: unknown): boolean =>
  saysSo(
    err,
    ({ code, name, $metadata }) =>
      (typeof code === 'string' && OUT_OF_SPACE_CODES.has(code)) || (typeof name === 'string' && S3_OUT_OF_SPACE.has(name)) || $metadata?.httpStatusCode === 507,
  );

const STORE_UNAVAILABLE_MESSAGE = 'The server cannot reach its database or file storage right now. Try again later.';

/**
 * Codes for a store that did not answer: Node's network errors (PostgreSQL or S3 stopped,
 * restarting, unreachable; a PostgreSQL statement past the client's bound), and PostgreSQL's
 * connection exceptions (class 08), shutdowns (57P01-03), `too_many_connections` (53300), a
 * statement it cancelled past `statement_timeout` (57014) and a session it ended past
 * `idle_in_transaction_session_timeout` (25P03).
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE', '57P01', '57P02', '57P03', '53300', '57014', '25P03']);
/** node-postgres says these without a code when a connection dies under a query or cannot be had in time. */
const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * Whether the error says the database or the object store did not answer (S3: a 5xx of its own,
 * or the AWS SDK's `TimeoutError`, which carries no code when a connect or idle bound ran out).
 */
const storeUnavailable = (err: unknown): boolean =>
  saysSo(
    err,
    ({ code, name, message, $metadata }) =>
      (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) ||
      name === 'TimeoutError' ||
      (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) ||
      (typeof $metadata?.httpStatusCode === 'number' && $metadata.httpStatusCode >= 500),
  );

/**
 * `revision.mismatch` from a `conflict` is a concurrent writer winning between our read and our
 * write. A client that sent `If-Match` asked for exactly that check, so it gets 412; a client that
 * did not gets 409 (its request conflicted and may be retried). The domain's own If-Match check
 * throws `precondition_failed` and is 412 by the table.
 */
function statusOf(kind: ErrorKind, code: string, request: ErrorContext): number {
  if (kind === 'conflict' && code === 'revision.mismatch' && request.hasIfMatch) return 412;
  return STATUS_OF[kind];
}

/** Pure: any thrown value -> status, JSON body and headers. Unknown errors are hidden from the client. */
export function toHttpError(err: unknown, request: ErrorContext = { hasIfMatch: false }): HttpError {
  if (isDomainError(err)) {
    const status = statusOf(err.kind, err.code, request);
    // RFC 9110: a 401 must say which scheme would be accepted.
    const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : err.code === CONTENT_CODING_CODE ? { 'Accept-Encoding': 'identity' } : {};
    const body: ErrorBody = { status, message: err.message };
    if (err.details && err.details.length > 0) body.errors = err.details;
    return { status, body, headers };
  }
  // The server's bound, not a fault of the request: the same request may pass in a moment.
  if (err instanceof BodyBudgetExceeded) {
    const status = err.reason === 'per_client' ? 429 : 503;
    return { status, body: { status, message: err.message }, headers: { 'Retry-After': '1' } };
  }
  if (err instanceof SearchesWaiting) return { status: 429, body: { status: 429, message: err.message }, headers: { 'Retry-After': '1' } };
  if (err instanceof Busy) return { status: 503, body: { status: 503, message: err.message }, headers: { 'Retry-After': String(err.retryAfterSeconds) } };
  // Hono's own middleware (validator, body limit) throws these; keep their status, in our body shape.
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    const headers: Record<string, string> = err.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
    return { status: err.status, body: { status: err.status, message: err.message || 'Bad request.' }, headers };
  }
  // The operator's to fix, not the client's: the write was rolled back (a blob's temp file is
  // removed), and the same request passes once there is room again.
  if (outOfSpace(err)) return { status: 507, body: { status: 507, message: OUT_OF_SPACE_MESSAGE }, headers: {} };
  // The operator's too: PostgreSQL or S3 went away. The node needs no restart; the same request
  // passes once the store answers again (/readyz says which one is failing meanwhile).
  if (storeUnavailable(err)) return { status: 503, body: { status: 503, message: STORE_UNAVAILABLE_MESSAGE }, headers: { 'Retry-After': '5' } };
  // Logged with its stack by the request log, as a JSON line with the request id.
  return { status: 500, body: { status: 500, message: INTERNAL_ERROR_MESSAGE }, headers: {} };
}

/** For `app.onError`: maps with the request's If-Match in view and writes the JSON response. */
export function errorResponse(err: unknown, c: Context): Response {
  const e = toHttpError(err, { hasIfMatch: c.req.header('if-match') !== undefined });
  return jsonError(c, e.status, e.body, e.headers);
}

const notFoundBody = (): ErrorBody => ({ status: 404, message: 'Not found.' });
const methodNotAllowedBody = (): ErrorBody => ({ status: 405, message: 'Method not allowed.' });

/** For `app.notFound`. */
export const notFoundResponse = (c: Context): Response => jsonError(c, 404, notFoundBody());

/** 405 with the `Allow` header RFC 9110 asks for, when the allowed methods are known. */
export function methodNotAllowedResponse(c: Context, allowed: readonly string[] = []): Response {
  return jsonError(c, 405, methodNotAllowedBody(), allowed.length > 0 ? { Allow: allowed.join(', ') } : {});
}

function jsonError(c: Context, status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, status as ContentfulStatusCode);
}
