/**
 * How the normal path tells the fast path under which read stamp an answer may be kept: the
 * record GET handler notes the stamp of the view it answered with against the Node request, and
 * the fast path, watching that request go through, keeps the answer only when one was noted.
 */
import type { Context } from 'hono';

const noted = new WeakMap<object, string>();

/** The Node request under @hono/node-server; absent under `app.request()`, where nothing is kept. */
interface IncomingBinding {
  incoming?: object;
}

/** `stamp` as the domain gave it: null (or absent) when the answer must not be kept. */
export function noteReadStamp(c: Context, stamp: string | null | undefined): void {
  const incoming = (c.env as IncomingBinding | undefined)?.incoming;
  if (incoming !== undefined && typeof stamp === 'string') noted.set(incoming, stamp);
}

export const notedReadStamp = (incoming: object): string | undefined => noted.get(incoming);
