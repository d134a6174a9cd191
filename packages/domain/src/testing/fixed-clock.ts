import type { Clock } from '../ports.ts';

/** A clock that moves only when told to, one millisecond per reading so timestamps stay ordered. */
export function createFixedClock(start = '2026-01-01T00:00:00.000Z'): Clock & { advance(ms: number): void } {
  let t = Date.parse(start);
  return {
    now: () => new Date(t++).toISOString(),
    advance: (ms: number) => {
      t += ms;
    },
  };
}
