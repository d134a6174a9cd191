/**
 * `read`, made once for every caller of one turn of the event loop, once the turn has taken in
 * what it had to (setImmediate runs after the I/O callbacks of the turn): a caller is given a
 * read begun after it asked, never one begun before.
 */
export function afterThisTurn<T>(read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | null = null;
  return () => {
    next ??= new Promise<T>((ok, fail) =>
      setImmediate(() => {
        // Callers from here on wait for the next read: this one may already have begun.
        next = null;
        try {
          read().then(ok, fail);
        } catch (e) {
          fail(e);
        }
      }),
    );
    return next;
  };
}
