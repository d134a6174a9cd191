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
  outgoing?: { once(event: 'close', listener: () => void): unknown; writableFinished: boolean; socket: { bytesWritten: number } | null };
}

export function requestLog(logger: Logger | null, observe: RequestObserver | null): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const offered = c.req.header('x-request-id');
    const id = offered !== undefined && CLIENT_ID.test(offered) ? offered : randomUUID();
    // Set before the handler runs, so it goes out with the response's own headers: added
    // afterwards, it would make the server rebuild the response it had ready to send.
    c.header('X-Request-Id', id);
    await next();
    // A handler returning its own Response (file content) drops headers set before it.
    if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', id);
    const method = c.req.method;
    const route = routeLabel(c);
    const status = c.res.status;
    const error = c.error;
    const record = (bytes: number | null, completed: boolean) => {
      const seconds = (performance.now() - started) / 1000;
      observe?.({ method, route, status, seconds, bytes });
      if (logger === null) return;
      const line = { req_id: id, method, route, path: c.req.path, status, duration_ms: Math.round(seconds * 1e4) / 10, bytes, ...(completed ? {} : { aborted: true }) };
      if (status >= 500) logger.error({ ...line, err: error }, 'request failed');
      else logger.info(line, 'request');
    };
    const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
    if (outgoing === undefined) {
      const length = c.res.headers.get('content-length');
      record(length === null ? null : Number(length), true);
      return;
    }
    // Logged when the body has gone out, so a download's duration is its transfer. The response
    // is written after this returns: what the socket sends from here on is this response, headers
    // included (nginx's `bytes_sent`), also for streamed bodies of no declared length.
    const socket = outgoing.socket;
    const before = socket?.bytesWritten ?? 0;
    outgoing.once('close', () => record(socket ? socket.bytesWritten - before : null, outgoing.writableFinished));
  };
}
