/**
 * A bound on the memory request bodies hold at once. A JSON body is read whole and parsed before
 * its handler runs, and an upload holds its write buffers until it ends: each is bounded, but
 * nothing bounded how many a client sent at once, so a few hundred concurrent bodies at the size
 * limit (anonymous ones included: a body is read before the route decides who may write) held
 * gigabytes and could take the process past its heap. Each request now takes its bytes from a
 * budget as they arrive and gives them back when its answer is done; a request that would pass
 * the budget is refused at once: 429 when its own client holds its share, 503 when the server
 * as a whole is full.
 */
import { clientKey } from './connection-guard.ts';

export interface BodyBudgetBounds {
  /** Bytes held at once by every request's body; null, no bound. */
  total: number | null;
  /** Bytes held at once by the bodies of one client address (IPv6: one /64); null, no bound. */
  perClient: number | null;
}

export type BudgetRefusal = 'per_client' | 'total';

/** Thrown when a body would pass the budget; errors.ts answers it. */
export class BodyBudgetExceeded extends Error {
  constructor(readonly reason: BudgetRefusal) {
    super(
      reason === 'per_client'
        ? 'This address is sending or fetching as many request bodies, downloads and large answers at once as it may; wait for some to finish and try again.'
        : 'The server is holding as many request bodies, downloads and large answers as it can; try again shortly.',
    );
    this.name = 'BodyBudgetExceeded';
  }
}

/** What one request holds: `take` more as its body arrives, `release` everything when it is done. */
export interface BodyHold {
  take(bytes: number): void;
  release(): void;
}

export interface BodyBudget {
  /** A hold for a request from `address` (the socket's remote address). */
  hold(address: string | undefined): BodyHold;
  /** Bytes held now, in all. */
  held(): number;
}

export function createBodyBudget(bounds: BodyBudgetBounds, onRefused: (reason: BudgetRefusal) => void = () => undefined): BodyBudget {
  const byClient = new Map<string, number>();
  let total = 0;
  return {
    held: () => total,
    hold(address) {
      const key = clientKey(address);
      let mine = 0;
      return {
        take(bytes) {
          if (bytes <= 0) return;
          const client = byClient.get(key) ?? 0;
          // A body with nothing else held beside it always passes: a bound smaller than one body
          // must not refuse that body for ever.
          if (bounds.perClient !== null && client + bytes > bounds.perClient && client > mine) {
            onRefused('per_client');
            throw new BodyBudgetExceeded('per_client');
          }
          if (bounds.total !== null && total + bytes > bounds.total && total > mine) {
            onRefused('total');
            throw new BodyBudgetExceeded('total');
          }
          byClient.set(key, client + bytes);
          total += bytes;
          mine += bytes;
        },
        release() {
          if (mine === 0) return;
          const left = (byClient.get(key) ?? mine) - mine;
          if (left <= 0) byClient.delete(key);
          else byClient.set(key, left);
          total -= mine;
          mine = 0;
        },
      };
    },
  };
}
