/** Resolves on the event loop's next turn, after the I/O waiting meanwhile: other requests are served first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
