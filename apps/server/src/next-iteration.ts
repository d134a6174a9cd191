/**
 * Resolves after a whole iteration of the event loop, timers included. An immediate set from an
 * I/O callback runs in the same iteration, before the timers (and before the timer that measures
 * the loop's delay), so steps chained by immediates from there are one block to everyone else.
 * For the steps of large bodies only: each costs about a millisecond of waiting.
 */
export const nextIteration = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
