/**
 * An engine's writes applied one at a time, in the order they were asked, where some take turns
 * of the event loop: a write asked while a long one is under way waits for it, even when its
 * preparation is ready first, so a remove asked after an upsert of the same key is never
 * overtaken by it. Preparing goes on meanwhile; only applying waits. While nothing is under way
 * a write ready at once is applied at once, without a promise turn: small writes cost what they
 * did.
 */
export class WritesInOrder {
  /** Settles when the last write handed over has ended; null while none is under way. */
  private last: Promise<void> | null = null;

  run<P, T>(prepared: P | Promise<P>, apply: (ready: P) => T | Promise<T>): Promise<T> {
    if (this.last === null && !(prepared instanceof Promise)) {
      try {
        const done = apply(prepared);
        return done instanceof Promise ? this.hold(done) : Promise.resolve(done);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    // Rejected before its turn, a preparation is still answered to its caller, in order.
    if (prepared instanceof Promise) prepared.catch(() => undefined);
    const after = this.last ?? Promise.resolve();
    return this.hold(after.then(() => prepared).then(apply));
  }

  private hold<T>(write: Promise<T>): Promise<T> {
    const ended = write.then(
      () => undefined,
      () => undefined,
    );
    this.last = ended;
    void ended.then(() => {
      if (this.last === ended) this.last = null;
    });
    return write;
  }
}
