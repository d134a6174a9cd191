/** Resolves on the event loop's next turn, after the I/O waiting meanwhile: other requests are served first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** A later iteration of the loop, in turn with all other long work: the domain's (turns/next-iteration.ts). */
export { nextIteration } from '@krs/domain';
