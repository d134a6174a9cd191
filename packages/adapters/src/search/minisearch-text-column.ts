/**
 * A text kept per row (a body as JSON text, a row's words), by row number. Rows loaded from a
 * snapshot keep theirs as the snapshot's UTF-8 bytes until first read: decoding 100k bodies and
 * word lists (160 MB) at start-up, most never read by a search, took about a fifth of a restart's
 * CPU with the garbage collection of the strings.
 */
export class TextColumn {
  private strings: (string | undefined)[] = [];
  private saved: Buffer | null = null;
  /** The row's bytes in `saved`, start to end; -1: none. */
  private starts = new Int32Array(0);
  private ends = new Int32Array(0);

  get(row: number): string | undefined {
    const text = this.strings[row];
    if (text !== undefined || this.saved === null) return text;
    const start = this.starts[row] ?? -1;
    if (start < 0) return undefined;
    const decoded = this.saved.toString('utf8', start, this.ends[row]);
    this.strings[row] = decoded;
    this.starts[row] = -1;
    return decoded;
  }

  /** The row's text as UTF-8 bytes, without decoding what is still saved. */
  bytes(row: number): Buffer {
    const start = this.starts[row] ?? -1;
    if (this.saved !== null && start >= 0) return this.saved.subarray(start, this.ends[row]);
    return Buffer.from(this.strings[row] ?? '');
  }

  set(row: number, text: string): void {
    this.strings[row] = text;
    if (row < this.starts.length) this.starts[row] = -1;
  }

  delete(row: number): void {
    this.strings[row] = undefined;
    if (row < this.starts.length) this.starts[row] = -1;
  }

  clear(): void {
    this.strings = [];
    this.saved = null;
    this.starts = new Int32Array(0);
    this.ends = new Int32Array(0);
  }

  /**
   * Rows' texts as a snapshot's bytes: `rows[i]`'s text is `bytes` from `ends[i - 1]` (0 for the
   * first) to `ends[i]`. Replaces what the rows held; the bytes are kept, not copied.
   */
  useSaved(bytes: Buffer, rows: ArrayLike<number>, ends: Uint32Array): void {
    let capacity = 0;
    for (let i = 0; i < rows.length; i++) capacity = Math.max(capacity, (rows[i] ?? 0) + 1);
    this.saved = bytes;
    this.starts = new Int32Array(capacity).fill(-1);
    this.ends = new Int32Array(capacity);
    let start = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] ?? 0;
      const end = ends[i] ?? 0;
      this.strings[row] = undefined;
      this.starts[row] = start;
      this.ends[row] = end;
      start = end;
    }
  }
}
