import type { Clock } from '@krs/domain';

export function createSystemClock(): Clock {
  return { now: () => new Date().toISOString() };
}
