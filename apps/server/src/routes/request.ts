/** Small request readers shared by the route modules. */
import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { DomainError, type ExpectedRevision, type Identity } from '@krs/domain';
import type { AnswerScope } from '../answer-memory.ts';
import { entityTags } from '../entity-tags.ts';

export type Env = {
  Variables: {
    identity: Identity;
    /** Set where the app bounds what answers hold (answer-memory.ts). */
    answer?: AnswerScope;
    /** The client behind a trusted proxy (client-address.ts); unset, the connection's peer. */
    clientAddress?: string;
  };
};

export const identityOf = (c: Context<Env>): Identity => c.get('identity');

/**
 * The revisions `If-Match` names: `"3"`, `3`, or a list (`"3", "4"`) of which any may be the
 * draft's revision (RFC 9110, 13.1.1). Comparison is strong: a weak tag, or one that is no
 * revision, never matches, so it is left out; a list of only such tags leaves none, and the
 * domain answers 412 once it has checked that the caller may see the draft. `*` asks only that
 * the record exist, which the action checks anyway, so it is no condition. A field that is not
 * a list of entity tags is a client error.
 */
export function ifMatch(c: Context): ExpectedRevision | undefined {
  const raw = c.req.header('if-match');
  if (raw === undefined) return undefined;
  const bare = /^\s*(\d+)\s*$/.exec(raw);
  if (bare) return [Number(bare[1])];
  const tags = entityTags(raw);
  if (tags === null) throw new DomainError('invalid', 'request.if_match', 'If-Match must be a revision id or a list of entity tags.');
  if (tags === '*') return undefined;
  return tags.filter((t) => !t.weak && /^\d+$/.test(t.opaque)).map((t) => Number(t.opaque));
}

/** Declared upload length; a malformed header is a client error. */
export function contentLength(c: Context): number | undefined {
  const raw = c.req.header('content-length');
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new DomainError('invalid', 'request.content_length', 'Content-Length must be a whole number.');
  return Number(raw);
}

export async function* streamOf(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  if (body === null) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

const nodeBinding = (c: Context, name: 'incoming' | 'outgoing'): unknown => {
  const bindings: unknown = c.env;
  return typeof bindings === 'object' && bindings !== null ? (bindings as Record<string, unknown>)[name] : undefined;
};

/** Node's own request stream, where the app runs under @hono/node-server; undefined through `app.request`. */
export function incomingOf(c: Context): Readable | undefined {
  const incoming = nodeBinding(c, 'incoming');
  return incoming instanceof Readable ? incoming : undefined;
}

/** Node's own response, where the app runs under @hono/node-server; undefined through `app.request`. */
export function outgoingOf(c: Context): ServerResponse | undefined {
  const outgoing = nodeBinding(c, 'outgoing');
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

/** The connection the request came on; undefined through `app.request`. */
export function socketOf(c: Context): Socket | undefined {
  return (incomingOf(c) as (Readable & { socket?: Socket }) | undefined)?.socket;
}

/**
 * The client's address: the one behind a trusted proxy (client-address.ts), else the
 * connection's peer; undefined through `app.request`.
 */
export function remoteAddressOf(c: Context): string | undefined {
  return (c as Context<Env>).get('clientAddress') ?? socketOf(c)?.remoteAddress;
}

/** What `first` reads, or, when it finds nothing (`not_found`), what `otherwise` reads; other refusals stand. */
export async function orIfNotFound<T>(first: () => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
  try {
    return await first();
  } catch (e) {
    if (e instanceof DomainError && e.kind === 'not_found') return otherwise();
    throw e;
  }
}
