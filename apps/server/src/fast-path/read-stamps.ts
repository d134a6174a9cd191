/**
 * How the normal path tells the fast path under which read stamp an answer may be kept: the
 * record GET handler notes the stamp of the view it answered with against the Node request, and
 * the fast path, watching that request go through, keeps the answer only when one was noted.
 */
import type { Context } from 'hono';
import { anonymousReadStamp, type RecordView } from '@krs/domain';

const noted = new WeakMap<object, string>();

/** The Node request under @hono/node-server; absent under `app.request()`, where nothing is kept. */
interface IncomingBinding {
  incoming?: object;
}

export function noteReadStamp(c: Context, view: RecordView): void {
  const incoming = (c.env as IncomingBinding | undefined)?.incoming;
  if (incoming === undefined) return;
  const stamp = anonymousReadStamp(view);
  if (stamp !== null) noted.set(incoming, stamp);
}

export const notedReadStamp = (incoming: object): string | undefined => noted.get(incoming);
