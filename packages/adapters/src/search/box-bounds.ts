/**
 * Every document's boxes (its geometry's bounds) in memory, as the index's R*Tree stores them:
 * four single-precision numbers a box, each rounded outward. A query box is answered by one pass
 * over typed arrays instead of a walk of the R*Tree: at a million documents the walk for about
 * 6 000 boxes took 22-24 ms of a reader thread, most of it SQLite's virtual-table machinery and
 * the rows handed back.
 *
 * The codes it gives are the R*Tree query's (`doc_rowid * 2 + (the box lies inside the query
 * box)`), compared on the same rounded numbers, so the documents found and those left to their
 * exact shapes are the same.
 *
 * Kept exact by the index's own writes; read whole from the R*Tree at open and after another
 * process's write.
 */

/** The R*Tree's rounding of a double to single precision (SQLite's `rtreeValueDown` / `rtreeValueUp`). */
const TOWARDS_ZERO = 1 - 1 / 8388608;
const AWAY_FROM_ZERO = 1 + 1 / 8388608;

export function roundedDown(d: number): number {
  const f = Math.fround(d);
  return f > d ? Math.fround(d * (d < 0 ? AWAY_FROM_ZERO : TOWARDS_ZERO)) : f;
}

export function roundedUp(d: number): number {
  const f = Math.fround(d);
  return f < d ? Math.fround(d * (d < 0 ? TOWARDS_ZERO : AWAY_FROM_ZERO)) : f;
}

/** A box as `[west, south, east, north]`. */
export type Box = readonly [number, number, number, number];

/** Documents tested per step of `meetingSteps`: about a millisecond. */
const ROWS_PER_STEP = 262_144;

export class BoxBounds {
  /** Each document's first box, by rowid: min x, max x, min y, max y (as the R*Tree's columns). */
  private first = new Float32Array(4 * 1024);
  /** Boxes per rowid: 0 for none (or no document), 1, or more (the others in `more`). */
  private count = new Uint8Array(1024);
  private readonly more = new Map<number, Float32Array>();
  private highest = 0;

  /** A document's boxes, replacing those it had; none for a document without geometry. */
  set(rowid: number, boxes: readonly Box[]): void {
    this.delete(rowid);
    if (boxes.length === 0) return;
    if (rowid >= this.count.length) this.grow(rowid);
    const stored = new Float32Array(4 * boxes.length);
    boxes.forEach(([w, s, e, n], i) => stored.set([roundedDown(w), roundedUp(e), roundedDown(s), roundedUp(n)], 4 * i));
    this.first.set(stored.subarray(0, 4), 4 * rowid);
    this.count[rowid] = Math.min(boxes.length, 2);
    if (boxes.length > 1) this.more.set(rowid, stored.subarray(4));
    this.highest = Math.max(this.highest, rowid);
  }

  /**
   * A box as read back from the R*Tree (already rounded), added to the document's others: the
   * rows of a document's boxes come one at a time when the whole table is read.
   */
  addStored(rowid: number, minX: number, maxX: number, minY: number, maxY: number): void {
    if (rowid >= this.count.length) this.grow(rowid);
    const box = [minX, maxX, minY, maxY];
    const n = this.count[rowid] ?? 0;
    if (n === 0) {
      this.first.set(box, 4 * rowid);
      this.count[rowid] = 1;
    } else {
      const others = this.more.get(rowid);
      const joined = new Float32Array((others?.length ?? 0) + 4);
      if (others !== undefined) joined.set(others);
      joined.set(box, joined.length - 4);
      this.more.set(rowid, joined);
      this.count[rowid] = 2;
    }
    this.highest = Math.max(this.highest, rowid);
  }

  delete(rowid: number): void {
    if (rowid >= this.count.length) return;
    this.count[rowid] = 0;
    this.more.delete(rowid);
  }

  clear(): void {
    this.first = new Float32Array(4 * 1024);
    this.count = new Uint8Array(1024);
    this.more.clear();
    this.highest = 0;
  }

  /**
   * The codes of the boxes meeting `[w, s, e, n]` (w <= e), in steps of about a millisecond,
   * appended to `out`: for each box whose rounded bounds meet it, `rowid * 2`, plus one when
   * they lie inside it. In rowid order, so a document's codes are side by side.
   */
  *meetingSteps(box: Box, out: Codes): Generator<void, void> {
    // A write applied between steps may grow the arrays: the pass reads those it started with.
    const { first, count, more, highest } = this;
    for (let start = 0; start <= highest; start += ROWS_PER_STEP) {
      scanRange(first, count, more, start, Math.min(highest + 1, start + ROWS_PER_STEP), box, out);
      yield;
    }
  }

  private grow(rowid: number): void {
    const size = Math.max(rowid + 1, this.count.length * 2);
    const count = new Uint8Array(size);
    count.set(this.count);
    const first = new Float32Array(4 * size);
    first.set(this.first);
    this.count = count;
    this.first = first;
  }
}

/** Codes appended to a typed array that grows. */
export class Codes {
  private codes = new Int32Array(1024);
  length = 0;

  push(code: number): void {
    if (this.length === this.codes.length) {
      const grown = new Int32Array(this.codes.length * 2);
      grown.set(this.codes);
      this.codes = grown;
    }
    this.codes[this.length++] = code;
  }

  /** The codes so far, valid until the next `push`. */
  array(): Int32Array {
    return this.codes.subarray(0, this.length);
  }
}

/**
 * One step of `meetingSteps`: a plain function, so the hot loop stays out of the generator's body
 * (in it, 100 000 documents took 2 ms).
 */
function scanRange(first: Float32Array, count: Uint8Array, more: Map<number, Float32Array>, start: number, end: number, [w, s, e, n]: Box, out: Codes): void {
  for (let rowid = start; rowid < end; rowid++) {
    const c = count[rowid] as number;
    if (c === 0) continue;
    const at = 4 * rowid;
    const minX = first[at] as number;
    const maxX = first[at + 1] as number;
    const minY = first[at + 2] as number;
    const maxY = first[at + 3] as number;
    if (minX <= e && maxX >= w && minY <= n && maxY >= s) out.push(rowid * 2 + (minX >= w && maxX <= e && minY >= s && maxY <= n ? 1 : 0));
    if (c === 2) {
      const others = more.get(rowid) as Float32Array;
      for (let i = 0; i < others.length; i += 4) {
        const oMinX = others[i] as number;
        const oMaxX = others[i + 1] as number;
        const oMinY = others[i + 2] as number;
        const oMaxY = others[i + 3] as number;
        if (oMinX <= e && oMaxX >= w && oMinY <= n && oMaxY >= s) out.push(rowid * 2 + (oMinX >= w && oMaxX <= e && oMinY >= s && oMaxY <= n ? 1 : 0));
      }
    }
  }
}
