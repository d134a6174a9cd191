/**
 * Long synchronous work cut into slices with a turn of the event loop between them, so no request
 * waits behind it for more than a slice: call `due()` between steps, and `turn()` when it says so.
 * Checking costs a clock read, not a promise, so it may sit in the tightest loop.
 */
import { nextIteration } from './next-iteration.ts';

export interface Slicing {
  /** The steps since the last turn took the slice. */
  due(): boolean;
  turn(): Promise<void>;
}

/**
 * A slice of 2 ms: an iteration of the loop holds one slice (next-iteration.ts), so a cheap
 * request arriving meanwhile waits about as long as it takes to answer beside nothing else (a
 * record GET's p99 is 2-3 ms), and long work beside it at most doubles its tail.
 */
const SLICE_MS = 2;

export function timeSlices(turn: () => Promise<void>, sliceMs = SLICE_MS): Slicing {
  let since = performance.now();
  return {
    due: (): boolean => performance.now() - since > sliceMs,
    async turn(): Promise<void> {
      await turn();
      since = performance.now();
    },
  };
}

/** For steps that take a `takeTurn` callback: it gives the loop back only once the slice is due. */
export const turnWhenDue =
  (slicing: Slicing) =>
  async (): Promise<void> => {
    if (slicing.due()) await slicing.turn();
  };

/** A large record's steps (parsing, normalising, encoding it) in slices, each in an iteration of its own. */
export const largeValueSlices = (): Slicing => timeSlices(nextIteration);
