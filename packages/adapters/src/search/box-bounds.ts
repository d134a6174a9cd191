/**
 * Every document's boxes (its geometry's bounds) in memory, as the index's R*Tree stores them:
 * four single-precision numbers a box, each rounded outward, listed in a grid of 10-degree
 * cells. A query box tests the boxes of the cells it covers, not a walk of the R*Tree: at a
 * million documents the walk for about 6 000 boxes took 22-24 ms of a reader thread.
 *
 * The codes it gives are the R*Tree query's (`doc_rowid * 2 + (the box lies inside the query
 * box)`), compared on the same rounded numbers, so the documents found and those left to their
 * exact shapes are the same.
 *
 * Kept exact by the index's own writes (a write moves a box between lists in constant time);
 * read whole from the R*Tree at open and after another process's write.
 */
import { Sqlite } from '../sql/sqlite-driver.ts';

/**
 * The R*Tree's rounding of a double to single precision (SQLite's `rtreeValueDown` /
 * `rtreeValueUp`), which changed between the SQLite releases the two drivers carry: older ones
 * multiply by 1 -/+ 2^-23 and round again (which can move two steps, or none for a subnormal),
 * newer ones take the adjacent single. Which one the loaded SQLite does is asked of it once, with
 * a box in a database in memory, so the bounds kept here are the R*Tree's bit for bit.
 */
const TOWARDS_ZERO = 1 - 1 / 8388608;
const AWAY_FROM_ZERO = 1 + 1 / 8388608;

const single = new Float32Array(1);
const bits = new Int32Array(single.buffer);
/** The single next to `f` (a single) towards `direction` (+1 up, -1 down). */
function adjacentSingle(f: number, direction: 1 | -1): number {
  if (f === 0) return direction * 1.401298464324817e-45;
  single[0] = f;
  bits[0] = (bits[0] as number) + (f > 0 ? direction : -direction);
  return single[0] as number;
}

let adjacent: boolean | null = null;
function roundsToAdjacent(): boolean {
  if (adjacent === null) {
    const db = new Sqlite(':memory:');
    try {
      db.exec('CREATE VIRTUAL TABLE t USING rtree(id, min_x, max_x)');
      db.prepare('INSERT INTO t VALUES (1, 0.1, 0.1)').run();
      const stored = db.prepare('SELECT min_x FROM t').pluck().get() as number;
      adjacent = stored === adjacentSingle(Math.fround(0.1), -1);
    } finally {
      db.close();
    }
  }
  return adjacent;
}

export function roundedDown(d: number): number {
  const f = Math.fround(d);
  if (!(f > d)) return f;
  return roundsToAdjacent() ? adjacentSingle(f, -1) : Math.fround(d * (d < 0 ? AWAY_FROM_ZERO : TOWARDS_ZERO));
}

export function roundedUp(d: number): number {
  const f = Math.fround(d);
  if (!(f < d)) return f;
  return roundsToAdjacent() ? adjacentSingle(f, 1) : Math.fround(d * (d < 0 ? TOWARDS_ZERO : AWAY_FROM_ZERO));
}

/** A box as `[west, south, east, north]`. */
export type Box = readonly [number, number, number, number];

/**
 * The grid's cells, in degrees: a box no wider nor taller than a cell is listed in the cell of
 * its south-west corner, so a query box only looks at the cells it covers and those one to the
 * west and south of them. Larger boxes are listed apart and tested by every query.
 */
const CELL = 10;
const COLUMNS = 36;
const ROWS = 18;
/** The list of the boxes larger than a cell, after the cells'. */
const LARGE = COLUMNS * ROWS;

const column = (x: number) => Math.min(COLUMNS - 1, Math.max(0, Math.floor((x + 180) / CELL)));
const row = (y: number) => Math.min(ROWS - 1, Math.max(0, Math.floor((y + 90) / CELL)));

/** Box slots tested between two turns of the event loop: about a millisecond. */
const SLOTS_PER_STEP = 65_536;

/** Slot numbers, growable, with removal by moving the last one into the hole. */
class SlotList {
  slots = new Int32Array(16);
  length = 0;
}

export class BoxBounds {
  /** Each box's rounded bounds by slot: min x, max x, min y, max y (as the R*Tree's columns). */
  private bounds = new Float32Array(4 * 1024);
  /** Each slot's document, -1 for a free slot. */
  private owner = new Int32Array(1024).fill(-1);
  /** Each slot's list and place in it. */
  private list = new Int32Array(1024);
  private place = new Int32Array(1024);
  private used = 0;
  private readonly free: number[] = [];
  private lists = Array.from({ length: LARGE + 1 }, () => new SlotList());
  /** A document's first box's slot plus one by rowid (0: none); its others in `more`. */
  private first = new Int32Array(1024);
  private readonly more = new Map<number, number[]>();

  /** A document's boxes, replacing those it had; none for a document without geometry. */
  set(rowid: number, boxes: readonly Box[]): void {
    this.delete(rowid);
    for (const [w, s, e, n] of boxes) this.add(rowid, roundedDown(w), roundedUp(e), roundedDown(s), roundedUp(n));
  }

  /**
   * A box as read back from the R*Tree (already rounded), added to the document's others: the
   * rows of a document's boxes come one at a time when the whole table is read.
   */
  addStored(rowid: number, minX: number, maxX: number, minY: number, maxY: number): void {
    this.add(rowid, minX, maxX, minY, maxY);
  }

  delete(rowid: number): void {
    if (rowid >= this.first.length || this.first[rowid] === 0) return;
    this.release((this.first[rowid] as number) - 1);
    this.first[rowid] = 0;
    for (const slot of this.more.get(rowid) ?? []) this.release(slot);
    this.more.delete(rowid);
  }

  clear(): void {
    this.bounds = new Float32Array(4 * 1024);
    this.owner = new Int32Array(1024).fill(-1);
    this.list = new Int32Array(1024);
    this.place = new Int32Array(1024);
    this.used = 0;
    this.free.length = 0;
    this.lists = Array.from({ length: LARGE + 1 }, () => new SlotList());
    this.first = new Int32Array(1024);
    this.more.clear();
  }

  /**
   * The codes of the boxes meeting `[w, s, e, n]` (w <= e), in steps of about a millisecond,
   * appended to `out`: for each box whose rounded bounds meet it, `rowid * 2`, plus one when
   * they lie inside it. In no particular order.
   */
  *meetingSteps([w, s, e, n]: Box, out: Codes): Generator<void, void> {
    const lists: SlotList[] = [];
    for (let x = Math.max(0, column(w) - 1); x <= column(e); x++) for (let y = Math.max(0, row(s) - 1); y <= row(n); y++) lists.push(this.lists[x * ROWS + y] as SlotList);
    lists.push(this.lists[LARGE] as SlotList);
    let tested = 0;
    for (const list of lists) {
      // A write applied between steps may grow the arrays or move slots: each list is read
      // whole in one step, from the arrays as they are then.
      scanSlots(list.slots, list.length, this.bounds, this.owner, w, s, e, n, out);
      tested += list.length;
      if (tested >= SLOTS_PER_STEP) {
        tested = 0;
        yield;
      }
    }
  }

  private add(rowid: number, minX: number, maxX: number, minY: number, maxY: number): void {
    const slot = this.free.pop() ?? this.used++;
    if (slot >= this.owner.length) this.growSlots();
    const at4 = 4 * slot;
    this.bounds[at4] = minX;
    this.bounds[at4 + 1] = maxX;
    this.bounds[at4 + 2] = minY;
    this.bounds[at4 + 3] = maxY;
    this.owner[slot] = rowid;
    // Not `<=`: a NaN bound is listed with the large boxes, which every query tests.
    const small = maxX - minX <= CELL && maxY - minY <= CELL;
    const at = small ? column(minX) * ROWS + row(minY) : LARGE;
    const list = this.lists[at] as SlotList;
    if (list.length === list.slots.length) {
      const grown = new Int32Array(list.slots.length * 2);
      grown.set(list.slots);
      list.slots = grown;
    }
    this.list[slot] = at;
    this.place[slot] = list.length;
    list.slots[list.length++] = slot;
    if (rowid >= this.first.length) {
      const grown = new Int32Array(Math.max(rowid + 1, this.first.length * 2));
      grown.set(this.first);
      this.first = grown;
    }
    if (this.first[rowid] === 0) this.first[rowid] = slot + 1;
    else this.more.set(rowid, [...(this.more.get(rowid) ?? []), slot]);
  }

  /** Takes a slot out of its list (its last slot moved into its place) and frees it. */
  private release(slot: number): void {
    const list = this.lists[this.list[slot] as number] as SlotList;
    const place = this.place[slot] as number;
    const last = list.slots[--list.length] as number;
    list.slots[place] = last;
    this.place[last] = place;
    this.owner[slot] = -1;
    this.free.push(slot);
  }

  private growSlots(): void {
    const size = this.owner.length * 2;
    const bounds = new Float32Array(4 * size);
    bounds.set(this.bounds);
    const owner = new Int32Array(size).fill(-1);
    owner.set(this.owner);
    const list = new Int32Array(size);
    list.set(this.list);
    const place = new Int32Array(size);
    place.set(this.place);
    this.bounds = bounds;
    this.owner = owner;
    this.list = list;
    this.place = place;
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
 * One list of `meetingSteps`: a plain function, so the hot loop stays out of the generator's body
 * (in it, with a callback per code, 100 000 boxes took 2 ms).
 */
function scanSlots(slots: Int32Array, length: number, bounds: Float32Array, owner: Int32Array, w: number, s: number, e: number, n: number, out: Codes): void {
  for (let i = 0; i < length; i++) {
    const slot = slots[i] as number;
    const rowid = owner[slot];
    // A list taken before a clear (the scan gave the loop back in between) names freed slots.
    if (rowid === undefined || rowid < 0) continue;
    const at = 4 * slot;
    const minX = bounds[at] as number;
    const maxX = bounds[at + 1] as number;
    const minY = bounds[at + 2] as number;
    const maxY = bounds[at + 3] as number;
    if (minX <= e && maxX >= w && minY <= n && maxY >= s) out.push(rowid * 2 + (minX >= w && maxX <= e && minY >= s && maxY <= n ? 1 : 0));
  }
}
