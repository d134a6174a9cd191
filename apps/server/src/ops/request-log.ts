/**
 * One JSON line per request and the request id that ties it to the client's view. Only the
 * route pattern and path are logged, never the query string (it may carry `?token=` access-link
 * secrets) nor any header (Authorization carries bearer tokens).
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Logger } from './logger.ts';

/** What a client may choose as its id: short, printable, no separators a log parser trips on. */
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestObserver {
  (info: { method: string; route: string; status: number; seconds: number; bytes: number | null }): void;
}

/**
 * The pattern of the route that answered (`/api/records/:id`), for bounded label cardinality.
 * A request refused by middleware (401, 406) is labelled with the route it was headed for;
 * one no route matches is `unmatched`.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  const answered = routes[c.req.routeIndex];
  if (answered !== undefined && answered.method !== 'ALL') return answered.path;
  return routes.find((r) => r.method !== 'ALL')?.path ?? 'unmatched';
}

/** The Node response under @hono/node-server; absent under `app.request()`. */
interface NodeBindings {
  outgoing?: SentResponse;
}

/** What of a Node response the request line reads. */
export interface SentResponse {
  once(event: 'close', listener: () => void): unknown;
  writableFinished: boolean;
  socket: { bytesWritten: number } | null;
}

/** The fields of one request line, known once the response is chosen. */
export interface RequestLine {
  id: string;
  method: string;
  route: string;
  path: string;
  status: number;
  error?: unknown;
}

/** The request id: the client's when it is one we can log safely, else a fresh one. */
export function requestIdOf(offered: string | undefined): string {
  return offered !== undefined && CLIENT_ID.test(offered) ? offered : randomUUID();
}

/**
 * Logs and counts a response once its body has gone out, so a download's duration is its
 * transfer. It is written after this returns: what the socket sends from here on is this
 * response, headers included (nginx's `bytes_sent`), also for streamed bodies of no declared
 * length. Shared by the middleware and the fast path (`fast-path/`), so their lines are alike.
 */
export function recordWhenSent(logger: Logger | null, observe: RequestObserver | null, outgoing: SentResponse, started: number, line: RequestLine): void {
  const socket = outgoing.socket;
  const before = socket?.bytesWritten ?? 0;
  outgoing.once('close', () => record(logger, observe, started, line, socket ? socket.bytesWritten - before : null, outgoing.writableFinished));
}

function record(logger: Logger | null, observe: RequestObserver | null, started: number, line: RequestLine, bytes: number | null, completed: boolean): void {
  const { id, method, route, path, status, error } = line;
  const seconds = (performance.now() - started) / 1000;
  observe?.({ method, route, status, seconds, bytes });
  // A failed request is logged at any level; the others' lines are `info`.
  if (logger === null || (status < 500 && !logger.isLevelEnabled('info'))) return;
  const fields = { req_id: id, method, route, path, status, duration_ms: Math.round(seconds * 1e4) / 10, bytes, ...(completed ? {} : { aborted: true }) };
  if (status >= 500) logger.error({ ...fields, err: error }, 'request failed');
  else logger.info(fields, 'request');
}

export function requestLog(logger: Logger | null, observe: RequestObserver | null): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const id = requestIdOf(c.req.header('x-request-id'));
    // Set before the handler runs, so it goes out with the response's own headers: added
    // afterwards, it would make the server rebuild the response it had ready to send.
    c.header('X-Request-Id', id);
    await next();
    // A handler returning its own Response (file content) drops headers set before it.
    if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', id);
    const line = { id, method: c.req.method, route: routeLabel(c), path: c.req.path, status: c.res.status, error: c.error };
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    if (outgoing === undefined) {
      const length = c.res.headers.get('content-length');
      record(logger, observe, started, line, length === null ? null : Number(length), true);
      return;
    }
    recordWhenSent(logger, observe, outgoing, started, line);
  };
}
