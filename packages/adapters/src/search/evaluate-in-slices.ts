import { nextTurn } from '../next-turn.ts';

/**
 * Decides items a slice at a time, giving the event loop back between slices: a query only the
 * domain's evaluator can decide (it reads each candidate's body) then delays its own answer,
 * never everyone else's. A slice ends after `sliceMs` of work, whatever the items cost: short,
 * since a request arriving meanwhile waits for the slice to end.
 * Returns what `decide` gave for the items it kept (null drops an item).
 */
export async function evaluateInSlices<T, R>(items: Iterable<T>, decide: (item: T) => R | null, sliceMs = 2): Promise<R[]> {
  const kept: R[] = [];
  let sliceEnd = performance.now() + sliceMs;
  for (const item of items) {
    const result = decide(item);
    if (result !== null) kept.push(result);
    if (performance.now() >= sliceEnd) {
      await nextTurn();
      sliceEnd = performance.now() + sliceMs;
    }
  }
  return kept;
}
