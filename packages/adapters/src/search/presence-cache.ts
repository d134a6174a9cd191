/**
 * Which documents have a value at a field path (`_exists_:path`), a byte per rowid, for the
 * paths asked about lately. A path most documents have matched about every row of FTS5's
 * `paths` column on each query (95 000 rowids walked, joined and parsed: 10-15 ms of a reader
 * thread); from here it is one pass over a byte array.
 *
 * Kept exact by the index's own writes (`upsert`, `remove`, `clear`); the index drops it whole
 * when another process has written the file. A list read while one of our writes was applied
 * may miss that write: it answers its query but is not kept.
 */

/** Paths kept at once: a byte per document each (1 MB per path at a million documents). */
const PATHS_KEPT = 8;

export class PresenceCache {
  private readonly byToken = new Map<string, Uint8Array>();
  /** Writes applied so far: a read that saw another count may predate one of them. */
  private writes = 0;

  /**
   * The rows with the path token, ascending, or null when not kept. `room(length)` gives an
   * array of at least `length` to fill (a search's scratch rows): a fresh one per query, 3.8 MB
   * at a million documents, is memory not touched yet, a page fault per 4 KiB, and garbage.
   */
  rows(token: string, room: (length: number) => Int32Array = (length) => new Int32Array(length)): Int32Array | null {
    const bits = this.byToken.get(token);
    if (bits === undefined) return null;
    // Most recently used last: the first is the one to drop.
    this.byToken.delete(token);
    this.byToken.set(token, bits);
    const rows = room(bits.length);
    let n = 0;
    for (let rowid = 0; rowid < bits.length; rowid++) if (bits[rowid] === 1) rows[n++] = rowid;
    return rows.subarray(0, n);
  }

  /** A mark to hand back to `keep` with the rows read after taking it. */
  mark(): number {
    return this.writes;
  }

  /** Keeps rows read from the index since `mark`, unless a write was applied meanwhile. */
  keep(token: string, rows: Int32Array, mark: number): void {
    if (mark !== this.writes) return;
    let highest = 0;
    for (const rowid of rows) highest = Math.max(highest, rowid);
    const bits = new Uint8Array(highest + 1);
    for (const rowid of rows) bits[rowid] = 1;
    this.byToken.set(token, bits);
    if (this.byToken.size > PATHS_KEPT) this.byToken.delete(this.byToken.keys().next().value as string);
  }

  /** A document written at `rowid`, with its `paths` column (path tokens joined by spaces). */
  set(rowid: number, paths: string): void {
    this.writes++;
    if (this.byToken.size === 0) return;
    const tokens = new Set(paths.split(' '));
    for (const [token, bits] of this.byToken) {
      if (tokens.has(token)) this.byToken.set(token, withBit(bits, rowid));
      else if (rowid < bits.length) bits[rowid] = 0;
    }
  }

  delete(rowid: number): void {
    this.writes++;
    for (const bits of this.byToken.values()) if (rowid < bits.length) bits[rowid] = 0;
  }

  clear(): void {
    this.writes++;
    this.byToken.clear();
  }
}

function withBit(bits: Uint8Array, rowid: number): Uint8Array {
  let out = bits;
  if (rowid >= bits.length) {
    out = new Uint8Array(Math.max(rowid + 1, bits.length * 2));
    out.set(bits);
  }
  out[rowid] = 1;
  return out;
}
