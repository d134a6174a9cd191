import { grown, KeptSets } from './scratch-arrays.ts';

/**
 * Arrays indexed by row that a MiniSearch search fills and drops (marks of the rows a leaf
 * matched, their scores, the rows in a box, the hits), kept from one search for the next: a search
 * at 100k documents asked for several megabytes of fresh arrays, each page of them a fault on
 * first touch and all of it memory outside the heap that made the collector run over the whole
 * index (a box query took 33 ms of CPU after a rebuild, 1-6 ms with kept arrays). Searches run
 * side by side (each gives the loop back between slices), so each takes a set of its own.
 */
export class RowArrays {
  private readonly marksKept: Uint8Array[] = [];
  private readonly scoresKept: Float64Array[] = [];
  private readonly rowsKept: Int32Array[] = [];
  private marksUsed = 0;
  private scoresUsed = 0;
  private rowsUsed = 0;

  /** `length` zeros, valid until this set is given back. */
  marks(length: number): Uint8Array {
    const marks = take(this.marksKept, this.marksUsed++, length, (n) => new Uint8Array(n));
    marks.fill(0);
    return marks;
  }

  /** `length` zeros, valid until this set is given back. */
  scores(length: number): Float64Array {
    const scores = take(this.scoresKept, this.scoresUsed++, length, (n) => new Float64Array(n));
    scores.fill(0);
    return scores;
  }

  /** Room for `length` rows (not cleared), valid until this set is given back. */
  rows(length: number): Int32Array {
    return take(this.rowsKept, this.rowsUsed++, length, (n) => new Int32Array(n));
  }

  /** Every array handed out is free again; past a few of each kind, they are dropped. */
  reset(): void {
    this.marksUsed = 0;
    this.scoresUsed = 0;
    this.rowsUsed = 0;
    for (const kept of [this.marksKept, this.scoresKept, this.rowsKept]) kept.length = Math.min(kept.length, KEPT_PER_KIND);
  }
}

/** Arrays of one kind a set keeps between searches: a query of many leaves allocates the rest. */
const KEPT_PER_KIND = 8;

function take<T extends Uint8Array | Float64Array | Int32Array>(kept: T[], at: number, length: number, make: (n: number) => T): T {
  let array = kept[at];
  if (array === undefined || array.length < length) {
    array = make(grown(length));
    kept[at] = array;
  }
  return array.subarray(0, length) as T;
}

export class RowArraysPool extends KeptSets<RowArrays> {
  constructor() {
    super(
      () => new RowArrays(),
      (arrays) => arrays.reset(),
    );
  }
}
