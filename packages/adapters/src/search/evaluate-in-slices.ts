import { nextSearchTurn } from './search-turns.ts';

/** How long, at least, the loop was away before a slice for it to count as busy with others. */
const BUSY_AWAY_MS = 0.1;

export interface SliceOptions {
  /** The slice while others are served between slices: each of them waits at most this long. */
  busySliceMs?: number;
  /** For tests: the clock slices are measured by. */
  now?: () => number;
}

/**
 * Decides items a slice at a time, giving the event loop back between slices: a query only the
 * domain's evaluator can decide (it reads each candidate's body) then delays its own answer,
 * never everyone else's. A slice ends after `sliceMs` of work, whatever the items cost: short,
 * since a request arriving meanwhile waits for the slice to end. When the turn given back was
 * used by others (requests waiting), the next slice is `busySliceMs` instead: a field query over
 * 100k bodies takes seconds, and with 2 ms slices a stream of cheap GETs beside it waited about
 * 2 ms each and fell from 12,600 to 2,600 a second. The query's own answer takes longer then.
 * Returns what `decide` gave for the items it kept (null drops an item).
 */
export async function evaluateInSlices<T, R>(
  items: Iterable<T>,
  decide: (item: T) => R | null,
  sliceMs = 2,
  { busySliceMs = 0.5, now = () => performance.now() }: SliceOptions = {},
): Promise<R[]> {
  const kept: R[] = [];
  let sliceEnd = now() + sliceMs;
  for (const item of items) {
    const result = decide(item);
    if (result !== null) kept.push(result);
    const end = now();
    if (end >= sliceEnd) {
      await nextSearchTurn();
      const resumed = now();
      sliceEnd = resumed + (resumed - end >= BUSY_AWAY_MS ? Math.min(busySliceMs, sliceMs) : sliceMs);
    }
  }
  return kept;
}
