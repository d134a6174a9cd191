/**
 * Decides items a slice at a time, giving the event loop back between slices: a query only the
 * domain's evaluator can decide (it reads each candidate's body) then delays its own answer,
 * never everyone else's. A slice ends after `sliceMs` of work, whatever the items cost.
 */
export async function evaluateInSlices<T>(items: Iterable<T>, decide: (item: T) => number | null, sliceMs = 8): Promise<Map<T, number>> {
  const found = new Map<T, number>();
  let sliceEnd = performance.now() + sliceMs;
  for (const item of items) {
    const score = decide(item);
    if (score !== null) found.set(item, score);
    if (performance.now() >= sliceEnd) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceEnd = performance.now() + sliceMs;
    }
  }
  return found;
}
