/**
 * Searches take turns between client addresses. A search may cost its engine hundreds of
 * milliseconds (a prefix of one letter, a fuzzy word, a range over every record), and the
 * engines answer the steps of every search in progress in the order they are asked: one client
 * sending such searches on a few hundred connections at once made everyone else's search wait
 * behind all of them. Now each address runs at most `perClient` searches at once, and at most
 * `total` run in all; the others wait, and each freed place goes to the next address in turn,
 * so a client's search waits for the searches of at most `perClient` places of each other
 * client, however many it sends. An address whose searches have lately taken longer than
 * `costlyMs` each (on average) runs one at a time, and all such addresses together run at most
 * `costlyAtOnce`: their costly steps then hold at most that many of the engine's threads, however
 * many addresses send them, and the others' searches find one free. A search whose query has a
 * costly shape (a fuzzy word, a short prefix, `_exists_`, a range, negation alone: the domain's
 * `costlyShape`) counts among them too, whatever its address: many addresses never seen before
 * cannot fill the engine with them. An address not seen lately runs one search until it has
 * ended and its cost is known. An address with `maxWaiting` searches
 * waiting is refused more (429, `Retry-After`). Behind a proxy every client has the proxy's
 * address: `perClient` null turns the per-address bounds off, and the searches then take turns in
 * the order they came.
 */
import type { MiddlewareHandler } from 'hono';
import { costlyShape, parseQuery } from '@krs/domain/search';
import { clientKey } from './connection-guard.ts';
import { outgoingOf, remoteAddressOf } from './routes/request.ts';

/**
 * Searches running at once in all: enough for the engines' own parallelism (two reader threads,
 * a pool of PostgreSQL connections) with a few on the event loop between their steps.
 */
export const SEARCHES_AT_ONCE = 16;
/** Searches one address may have waiting: a browser or a harvester has a few; a client with more sends them faster than they run. */
export const SEARCHES_WAITING_PER_CLIENT = 64;
/** A search taking longer than this is costly: the cheap ones take a few milliseconds to tens at 100k records, the costly hundreds. */
export const COSTLY_SEARCH_MS = 200;
/**
 * Searches of costly addresses running at once in all: the SQLite engine answers on two reader
 * threads, and one of them stays free for everyone else's searches.
 */
export const COSTLY_SEARCHES_AT_ONCE = 1;
/** Addresses whose searches' recent cost is remembered, the least recently seen forgotten first. */
const REMEMBERED_CLIENTS = 10_000;
/** Weight of a search's time in its address's running average. */
const RECENT_WEIGHT = 0.3;

export interface SearchGateBounds {
  /** Searches in progress at once from one client address (IPv6: one /64); null, no bound. */
  perClient: number | null;
  /** Searches in progress at once in all. */
  total: number;
  /** Searches one address may have waiting; past it, refused (with `perClient` null, no bound: connections bound them). */
  maxWaiting: number;
  /** An address whose searches lately took longer than this on average runs one at a time; null, never. */
  costlyMs: number | null;
  /** Searches of such addresses running at once in all (default 1). */
  costlyAtOnce?: number;
}

/** Thrown when an address already has as many searches waiting as it may; errors.ts answers 429. */
export class SearchesWaiting extends Error {
  constructor(readonly maxWaiting: number) {
    super(`This address has ${maxWaiting} searches waiting for their turn already; wait for some to finish and try again.`);
    this.name = 'SearchesWaiting';
  }
}

export interface SearchGate {
  /**
   * Resolves once the search may run, to the function that gives its place back (call it once,
   * when the answer is done); `abandoned` rejects nothing but takes a waiting search out of the
   * queue (its client has gone) and resolves to null. A `costly` search (by its query's shape)
   * runs among the costly addresses' searches, whatever its own address.
   */
  enter(address: string | undefined, abandoned?: Promise<void>, costly?: boolean): Promise<(() => void) | null>;
  /** Searches running and waiting now. */
  counts(): { running: number; waiting: number };
}

interface Client {
  running: number;
  waiting: Waiter[];
}

interface Waiter {
  admit: (release: (() => void) | null) => void;
  costly: boolean;
}

export function createSearchGate(bounds: SearchGateBounds, onRefused: () => void = () => undefined, now: () => number = () => performance.now()): SearchGate {
  const clients = new Map<string, Client>();
  /** Each address's running average of its searches' times (ms), least recently seen first. */
  const recent = new Map<string, number>();
  /** Addresses with searches waiting, in the order their turn comes; each once. */
  let turns: string[] = [];
  const costlyAtOnce = bounds.costlyAtOnce ?? COSTLY_SEARCHES_AT_ONCE;
  let running = 0;
  let runningCostly = 0;
  let waiting = 0;

  const isCostly = (key: string) => bounds.perClient !== null && bounds.costlyMs !== null && (recent.get(key) ?? 0) > bounds.costlyMs;
  const mayRun = (key: string, client: Client, costlyQuery: boolean) => {
    if (running >= bounds.total) return false;
    if (costlyQuery && runningCostly >= costlyAtOnce) return false;
    if (bounds.perClient === null) return true;
    if (isCostly(key)) return client.running < 1 && runningCostly < costlyAtOnce;
    // An address not seen lately runs one search until one has ended and its cost is known: a
    // crowd of new addresses starts with one search each, not `perClient`.
    if (bounds.costlyMs !== null && !recent.has(key)) return client.running < 1;
    return client.running < bounds.perClient;
  };

  const remember = (key: string, ms: number) => {
    const before = recent.get(key);
    recent.delete(key);
    recent.set(key, before === undefined ? ms : before + RECENT_WEIGHT * (ms - before));
    if (recent.size > REMEMBERED_CLIENTS) recent.delete(recent.keys().next().value as string);
  };

  const placeFor = (key: string, client: Client, costlyQuery: boolean): (() => void) => {
    const costly = costlyQuery || isCostly(key);
    running++;
    if (costly) runningCostly++;
    client.running++;
    const started = now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      if (costly) runningCostly--;
      client.running--;
      if (bounds.costlyMs !== null && bounds.perClient !== null) remember(key, now() - started);
      forgetIfIdle(key, client);
      admitNext();
    };
  };

  const forgetIfIdle = (key: string, client: Client) => {
    if (client.running === 0 && client.waiting.length === 0) clients.delete(key);
  };

  /**
   * Gives free places to the waiting searches, one address after another. An address held by its
   * own bound (or by the costly addresses' bound) keeps its place in the turns; one given a place
   * goes behind the others.
   */
  const admitNext = () => {
    if (turns.length === 0 || running >= bounds.total) return;
    const held: string[] = [];
    const served: string[] = [];
    for (const key of turns) {
      const client = clients.get(key);
      if (client === undefined || client.waiting.length === 0) continue;
      // The first that may run: a plain search need not wait behind one of a costly shape.
      const at = client.waiting.findIndex((w) => mayRun(key, client, w.costly));
      if (at < 0) {
        held.push(key);
        continue;
      }
      const next = client.waiting.splice(at, 1)[0] as Waiter;
      waiting--;
      next.admit(placeFor(key, client, next.costly));
      if (client.waiting.length > 0) served.push(key);
    }
    turns = [...held, ...served];
  };

  return {
    counts: () => ({ running, waiting }),
    enter(address, abandoned, costly = false) {
      const key = bounds.perClient === null ? '' : clientKey(address);
      let client = clients.get(key);
      if (client === undefined) {
        client = { running: 0, waiting: [] };
        clients.set(key, client);
      }
      // Nobody waiting before it: no one's turn is taken.
      if (client.waiting.length === 0 && turns.length === 0 && mayRun(key, client, costly)) return Promise.resolve(placeFor(key, client, costly));
      if (bounds.perClient !== null && client.waiting.length >= bounds.maxWaiting) {
        forgetIfIdle(key, client);
        onRefused();
        return Promise.reject(new SearchesWaiting(bounds.maxWaiting));
      }
      const queued = client;
      return new Promise((resolve) => {
        let settled = false;
        const waiter: Waiter = {
          admit: (release) => {
            settled = true;
            resolve(release);
          },
          costly,
        };
        queued.waiting.push(waiter);
        waiting++;
        if (queued.waiting.length === 1) turns.push(key);
        void abandoned?.then(() => {
          if (settled) return;
          const at = queued.waiting.indexOf(waiter);
          if (at < 0) return;
          queued.waiting.splice(at, 1);
          waiting--;
          const turn = turns.indexOf(key);
          if (queued.waiting.length === 0 && turn >= 0) turns.splice(turn, 1);
          forgetIfIdle(key, queued);
          waiter.admit(null);
        });
        // A place may be free already (others were waiting only on their own bound).
        admitNext();
      });
    },
  };
}

/** Whether the query text `q` has a costly shape; none, or one over the parser's bounds (read as plain words), has not. */
export function costlyQuery(q: string | undefined): boolean {
  return q !== undefined && q.trim() !== '' && costlyShape(parseQuery(q));
}

/**
 * The gate around a search route's handler: the place is taken before the search and given back
 * once the answer is sent (or its connection is gone); a client that goes while its search waits
 * takes it out of the queue.
 */
export function searchTurns(gate: SearchGate): MiddlewareHandler {
  return async (c, next) => {
    const outgoing = outgoingOf(c);
    const gone = outgoing === undefined ? undefined : new Promise<void>((resolve) => outgoing.once('close', () => resolve()));
    const release = await gate.enter(remoteAddressOf(c), gone, costlyQuery(c.req.query('q')));
    if (release === null) return c.body(null, 400);
    try {
      return await next();
    } finally {
      release();
    }
  };
}
