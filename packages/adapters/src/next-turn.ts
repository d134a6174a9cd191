/** Resolves on the event loop's next turn, after the I/O waiting meanwhile: other requests are served first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves after a whole iteration of the event loop, timers included: for the steps of one large
 * record. An immediate set from a timer or an I/O callback runs in the same iteration, after the
 * poll but before any timer, so steps chained by `nextTurn` from there hold back the timers (and a
 * timer-driven measure of the loop's delay sees them as one block); a timer set to 0 waits for the
 * next iteration. It costs about a millisecond each time, which only a large record can afford.
 */
export const nextIteration = (): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, 0));
