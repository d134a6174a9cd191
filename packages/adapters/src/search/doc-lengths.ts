/**
 * Each document's length in tokens as FTS5 counts it (all columns together), by rowid: what
 * bm25 reads from FTS5's `docsize` table for every row it scores. Held in memory so relevance
 * can be computed for a large match without a lookup per row (see term-relevance.ts).
 *
 * `fts5Varints` and `documentLength` also run as source text on the reader threads
 * (sqlite-reader.ts): they call nothing but each other and the language's own.
 */

/**
 * The unsigned integers of an FTS5 record, in order: SQLite's varints (seven bits a byte, high
 * bit set on all but the last, a ninth byte of eight bits).
 */
export function fts5Varints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let value = 0;
    for (let n = 0; i < bytes.length; n++) {
      const byte = bytes[i++] ?? 0;
      if (n === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    out.push(value);
  }
  return out;
}

/** A `docsize` row: the document's tokens in every column together. */
export function documentLength(docsize: Uint8Array): number {
  return fts5Varints(docsize).reduce((sum, n) => sum + n, 0);
}

/** The table's totals from FTS5's averages record: rows, and tokens over every column. */
export function tableTotals(averages: Uint8Array): { rows: number; tokens: number } {
  const [rows = 0, ...columns] = fts5Varints(averages);
  return { rows, tokens: columns.reduce((sum, n) => sum + n, 0) };
}

export class DocLengths {
  private lengths = new Int32Array(1024);

  set(rowid: number, length: number): void {
    if (rowid >= this.lengths.length) {
      const grown = new Int32Array(Math.max(rowid + 1, this.lengths.length * 2));
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[rowid] = length;
  }

  /** By rowid, 0 for none; valid until the next `set`. */
  array(): Int32Array {
    return this.lengths;
  }

  /** 0 for a rowid that holds no document. */
  get(rowid: number): number {
    return this.lengths[rowid] ?? 0;
  }

  delete(rowid: number): void {
    if (rowid < this.lengths.length) this.lengths[rowid] = 0;
  }

  clear(): void {
    this.lengths = new Int32Array(1024);
  }
}
