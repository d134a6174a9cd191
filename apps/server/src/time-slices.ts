/**
 * Long synchronous work cut into slices with a turn of the event loop between them, so no request
 * waits behind it for more than a slice: call `due()` between steps, and `turn()` when it says so.
 * Checking costs a clock read, not a promise, so it may sit in the tightest loop.
 */
const SLICE_MS = 5;

export function timeSlices(turn: () => Promise<void>, sliceMs = SLICE_MS) {
  let since = performance.now();
  return {
    /** The steps since the last turn took the slice. */
    due: (): boolean => performance.now() - since > sliceMs,
    async turn(): Promise<void> {
      await turn();
      since = performance.now();
    },
  };
}
