/**
 * The values of the range fields (RANGE_FIELDS) in memory, per field in the order of their
 * values, so a range is two binary searches and one stretch of rowids. Read from `doc_range`
 * row by row into JavaScript for each query, a range in 40% of a million documents took 1.7 s
 * of CPU a call (and NOT a range 4.1 s: every row of `doc`).
 *
 * Each field's values are read whole by a reader thread (`rangeColumns`, below) in SQLite's
 * order of the values: numbers first, ascending, then texts by their UTF-8 bytes. That is the
 * evaluator's order (`inRange` compares JavaScript strings, by UTF-16 units) unless a text holds a
 * character past U+FFFF beside one in U+E000-U+FFFF: the thread then orders the texts again. SQL
 * over `doc_range` compares bytes, and took such dates otherwise than the evaluator.
 *
 * The index's own writes are kept beside the ordered values: a rowid written since the read
 * has its read values set aside (`stale`) and its current ones listed in `written`, which every
 * query also tests. Once `written` grows large the index reads the values again.
 */
import { inRange, NUMERIC_RANGE_FIELDS, RANGE_FIELDS, type QueryNode } from '@krs/domain/search';

export type RangeNode = Extract<QueryNode, { type: 'range' }>;
/** A document's range values as `doc_range` holds them: numbers as numbers, anything else as text. */
export type RangeEntries = readonly (readonly [field: string, value: string | number])[];

/** One field's values in order, as a reader thread hands them over (see `rangeColumns`). */
export interface RangeColumns {
  /** Each value's document. */
  rows: Int32Array;
  /** The values that are numbers, which come first. */
  numbers: Float64Array;
  /** How many values are numbers. */
  numberCount: number;
  /** The texts' UTF-8 bytes, one after another, and where each ends (by entry, from `numberCount`). */
  bytes: Uint8Array;
  ends: Int32Array;
}

/**
 * Run by a reader thread (as source text, like fts5-doclist.ts): a field's rows of
 * `(doc_rowid, value)` ordered by value, as typed arrays that cross threads without copying.
 * Texts SQLite ordered otherwise than JavaScript compares them are ordered again here.
 */
export function rangeColumns(rows: Iterable<unknown[]>): RangeColumns {
  const numberRows: number[] = [];
  const numberValues: number[] = [];
  const textRows: number[] = [];
  const texts: string[] = [];
  let ordered = true;
  for (const [rowid, value] of rows) {
    if (typeof value === 'number') {
      numberRows.push(Number(rowid));
      numberValues.push(value);
    } else {
      const text = String(value);
      if (texts.length > 0 && text < (texts[texts.length - 1] as string)) ordered = false;
      textRows.push(Number(rowid));
      texts.push(text);
    }
  }
  const order = textRows.map((_, i) => i);
  if (!ordered) order.sort((a, b) => ((texts[a] as string) < (texts[b] as string) ? -1 : (texts[a] as string) > (texts[b] as string) ? 1 : 0));
  const numberCount = numberRows.length;
  const ids = new Int32Array(numberCount + texts.length);
  const ends = new Int32Array(numberCount + texts.length);
  ids.set(numberRows);
  let bytes = new Uint8Array(1024);
  let used = 0;
  const encoder = new TextEncoder();
  for (let i = 0; i < order.length; i++) {
    const text = texts[order[i] as number] as string;
    // At most three bytes per UTF-16 unit.
    if (used + text.length * 3 > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, used + text.length * 3));
      grown.set(bytes.subarray(0, used));
      bytes = grown;
    }
    used += encoder.encodeInto(text, bytes.subarray(used)).written;
    ids[numberCount + i] = textRows[order[i] as number] as number;
    ends[numberCount + i] = used;
  }
  return { rows: ids, numbers: Float64Array.from(numberValues), numberCount, bytes: bytes.slice(0, used), ends };
}

/** The SQL `rangeColumns` reads a field with. */
export const RANGE_COLUMNS_SQL = 'SELECT doc_rowid, value FROM doc_range WHERE field = ? ORDER BY value';

const NUMBER = /^-?\d+(\.\d+)?$/;
const decoder = new TextDecoder();

/** Whether a stored value lies in the range, as the evaluator's `inRange` decides on the value it was stored from. */
function storedInRange(value: string | number, node: RangeNode): boolean {
  if (node.min === null && node.max === null) return true;
  if (!NUMERIC_RANGE_FIELDS.includes(node.field)) return typeof value === 'string' && inRange(value, node);
  // A number field's text is not a number: it compares with no bound. A bound that is not a
  // number takes no value either.
  if (typeof value !== 'number') return false;
  if ((node.min !== null && !NUMBER.test(node.min)) || (node.max !== null && !NUMBER.test(node.max))) return false;
  return aboveMin(value, node) && belowMax(value, node);
}
/** The evaluator's arithmetic: a value minus the bound (NaN for an infinite value at the same infinite bound). */
const aboveMin = (value: number, node: RangeNode) => {
  if (node.min === null) return true;
  const d = value - Number(node.min);
  return node.includeMin ? d >= 0 : d > 0;
};
const belowMax = (value: number, node: RangeNode) => {
  if (node.max === null) return true;
  const d = value - Number(node.max);
  return node.includeMax ? d <= 0 : d < 0;
};

/** The first index in `[from, to)` where `holds` is true, `holds` being false then true along it. */
function firstHolding(from: number, to: number, holds: (i: number) => boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Values marked or rowids listed between two pauses of a range's pass: tens of microseconds. */
const VALUES_PER_STEP = 16384;

class FieldValues {
  /** The highest rowid holding a value. */
  readonly highest: number;

  constructor(private readonly c: RangeColumns) {
    let highest = 0;
    for (let i = 0; i < c.rows.length; i++) if ((c.rows[i] as number) > highest) highest = c.rows[i] as number;
    this.highest = highest;
  }

  get size(): number {
    return this.c.rows.length;
  }

  private text(i: number): string {
    const { bytes, ends, numberCount } = this.c;
    return decoder.decode(bytes.subarray(i > numberCount ? (ends[i - 1] ?? 0) : 0, ends[i]));
  }

  /** The stretch `[from, to)` of the ordered values lying in the range. */
  stretch(node: RangeNode): [number, number] {
    const { numbers, numberCount } = this.c;
    const all = this.c.rows.length;
    if (node.min === null && node.max === null) return [0, all];
    if (NUMERIC_RANGE_FIELDS.includes(node.field)) {
      if ((node.min !== null && !NUMBER.test(node.min)) || (node.max !== null && !NUMBER.test(node.max))) return [0, 0];
      const from = firstHolding(0, numberCount, (i) => aboveMin(numbers[i] as number, node));
      // Both hold on one end of the numbers, infinite values and bounds included (a NaN, an
      // infinite value at the same infinite bound, is at the end where the bound fails anyway).
      return [from, firstHolding(from, numberCount, (i) => !belowMax(numbers[i] as number, node))];
    }
    // A date compares on the bound's precision, which keeps the order: each bound alone holds on
    // one end of the values.
    const lower = { ...node, max: null };
    const upper = { ...node, min: null };
    const from = firstHolding(numberCount, all, (i) => inRange(this.text(i), lower));
    return [from, firstHolding(from, all, (i) => !inRange(this.text(i), upper))];
  }

  rowsIn(from: number, to: number): Int32Array {
    return this.c.rows.subarray(from, to);
  }
}

export class RangeValues {
  private readonly fields = new Map<string, FieldValues>();
  /** Documents written since the read, with their values now: their values read no longer count. */
  private readonly written = new Map<number, RangeEntries>();
  private writtenHighest = 0;

  static fromColumns(columns: ReadonlyMap<string, RangeColumns>): RangeValues {
    const values = new RangeValues();
    for (const [field, c] of columns) values.fields.set(field, new FieldValues(c));
    return values;
  }

  /** Values read from the file, kept: how many. */
  get readCount(): number {
    let n = 0;
    for (const f of this.fields.values()) n += f.size;
    return n;
  }

  /** Documents written since the read. */
  get writtenCount(): number {
    return this.written.size;
  }

  /** A document's values now (none once removed). */
  set(rowid: number, entries: RangeEntries): void {
    this.written.set(rowid, entries);
    if (rowid > this.writtenHighest) this.writtenHighest = rowid;
  }

  /**
   * The documents with a value of the range's field in the range, each once, by rowid as SQLite
   * lists rows: in the order of their values, dates (which follow the records' creation) made
   * the first hits by `newest` move at nearly every hit (4.3 of a range's 5.1 ms at 100k).
   * With `outsideUpTo`, the rows up to it that the range does not take instead (its NOT).
   * `pause` is awaited between steps of `VALUES_PER_STEP` values: a range over every document
   * marked and listed at once held the loop for milliseconds beside cheap GETs.
   */
  async rows(node: RangeNode, outsideUpTo: number | null, pause: () => Promise<void>): Promise<Int32Array> {
    const field = (RANGE_FIELDS as readonly string[]).includes(node.field) ? this.fields.get(node.field) : undefined;
    const [from, to] = field === undefined ? [0, 0] : field.stretch(node);
    const read = field === undefined ? new Int32Array(0) : field.rowsIn(from, to);
    const holds = (entries: RangeEntries) => entries.some(([f, value]) => f === node.field && storedInRange(value, node));
    const top = Math.max(field?.highest ?? 0, this.writtenHighest, outsideUpTo ?? 0);
    const out = new Int32Array(outsideUpTo === null ? read.length + this.written.size : outsideUpTo + 1);
    let n = 0;
    if (outsideUpTo === null && (read.length + this.written.size) * 16 < top) {
      // Few rows: each looked at, then sorted.
      const seen = new Set<number>();
      for (let i = 0; i < read.length; i++) {
        const rowid = read[i] as number;
        if (!this.written.has(rowid) && !seen.has(rowid)) {
          seen.add(rowid);
          out[n++] = rowid;
        }
      }
      for (const [rowid, entries] of this.written) if (holds(entries)) out[n++] = rowid;
      return out.subarray(0, n).sort();
    }
    // Many: marked, then listed.
    const seen = await this.marks(node, pause, top);
    const [wanted, last] = outsideUpTo === null ? [1, top] : [0, outsideUpTo];
    for (let from = 0; from <= last; from += VALUES_PER_STEP) {
      if (from > 0) await pause();
      const end = Math.min(last, from + VALUES_PER_STEP - 1);
      for (let rowid = from; rowid <= end; rowid++) if (seen[rowid] === wanted) out[n++] = rowid;
    }
    return out.subarray(0, n);
  }

  /**
   * The range's documents as a byte per rowid (1: taken), at least `top + 1` of them: a written
   * document's byte set by its values now. `pause` is awaited between steps, as in `rows`.
   */
  async marks(node: RangeNode, pause: () => Promise<void>, top = 0): Promise<Uint8Array> {
    const field = (RANGE_FIELDS as readonly string[]).includes(node.field) ? this.fields.get(node.field) : undefined;
    const [from, to] = field === undefined ? [0, 0] : field.stretch(node);
    const read = field === undefined ? new Int32Array(0) : field.rowsIn(from, to);
    const seen = new Uint8Array(Math.max(top, field?.highest ?? 0, this.writtenHighest) + 1);
    for (let start = 0; start < read.length; start += VALUES_PER_STEP) {
      if (start > 0) await pause();
      const end = Math.min(read.length, start + VALUES_PER_STEP);
      for (let i = start; i < end; i++) seen[read[i] as number] = 1;
    }
    // Read from the map as it is after the last pause: a document written meanwhile has its values now.
    for (const [rowid, entries] of this.written) seen[rowid] = entries.some(([f, value]) => f === node.field && storedInRange(value, node)) ? 1 : 0;
    return seen;
  }
}
