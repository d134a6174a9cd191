/**
 * Projections that follow a commit without the write's answer waiting for them.
 *
 * A write is answered once its unit of work has committed (and, on SQLite, fsynced): that is what
 * a 2xx promises, and the index is only a projection of it. Waiting for the index as well cost a
 * create a round trip to the SQLite index's writer thread, tens of milliseconds of wall time
 * under load, for nothing the caller is promised. In exchange the core reads the index only
 * after every projection begun before the read has ended (`settled`): a search or listing sent
 * after a write's answer sees the write, whichever index serves it.
 *
 * Two projections of one parent ask for their index writes in the order they began: the later
 * one reads the parent (and the keys the index holds for it) only once the earlier has asked,
 * so an earlier projection of older state can never land after a later one. Projections of
 * different parents run side by side, and the index may write them in one transaction.
 *
 * Past `MAX_PENDING`, a write waits for its own projection again: an index slower than the
 * writes (the SQLite writer thread gets a small share of a core the requests keep busy) then
 * slows the writes down instead of falling ever further behind, and a search never waits for
 * more than that many projections.
 */
export const MAX_PENDING = 128;

const RESOLVED: Promise<void> = Promise.resolve();
const ignore = () => undefined;

export class PendingProjections {
  /** Each projection under way, until its writes have been applied (or reported as failed). */
  private readonly pending = new Set<Promise<void>>();
  /** Per parent, the latest projection's hand-over: it resolves once that one has asked for its writes. */
  private readonly askedByParent = new Map<string, Promise<void>>();

  /**
   * Begins a projection of `parentIds`: `build` reads what to write (after the earlier projections
   * of the same parents have asked for theirs), `write` asks for it and settles the outcome.
   * Neither may reject: failures belong in the projection's report. Resolves at once, or once
   * the projection has ended when too many are under way.
   */
  start<B>(parentIds: readonly string[], build: () => B | Promise<B>, write: (built: B) => Promise<unknown>): Promise<void> {
    const earlier: Promise<void>[] = [];
    for (const id of parentIds) {
      const asked = this.askedByParent.get(id);
      if (asked !== undefined) earlier.push(asked);
    }
    const built: Promise<B> = earlier.length === 0 ? Promise.resolve().then(build) : Promise.all(earlier).then(build);
    // Registered before `asked`'s reaction: the writes are asked for before a later projection of the same parent reads.
    const done = built.then(write).then(ignore, ignore);
    const asked = built.then(ignore, ignore);
    for (const id of parentIds) this.askedByParent.set(id, asked);
    void asked.then(() => {
      for (const id of parentIds) if (this.askedByParent.get(id) === asked) this.askedByParent.delete(id);
    });
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
    return this.pending.size > MAX_PENDING ? done : RESOLVED;
  }

  /** Resolves once every projection begun before the call has ended. */
  settled(): Promise<void> {
    if (this.pending.size === 0) return RESOLVED;
    return Promise.all(this.pending).then(ignore);
  }
}
