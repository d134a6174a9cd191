/**
 * A word's occurrences in the title and text columns, read from FTS5's own segments (its
 * `%_data` and `%_idx` tables) and decoded here, in the form `OCCURRENCES_SQL` gives them
 * (term-relevance.ts): `rowid * 4 + the column's weight` for each occurrence, by document, but
 * for an occurrence in the title and one in the text given together as weight 3 (`fts5Codes`);
 * and, further down, those of an AND of phrases (`fts5Phrases`) and the words of a slice of the
 * vocabulary (`fts5NearestWords`).
 *
 * The `instance` vocabulary hands each occurrence to SQL as a row of its own: for a word in
 * 57 000 of 100 000 documents (100 000 occurrences), walking them cost about 5 ms of a reader
 * thread and turning them into a text and the text into numbers as much again. The word's
 * doclist is 360 KB of varints on 90 leaf pages in nine segments, read and decoded here in about
 * 3 ms (the pages and their decoding 2.1, the segments' entries merged 1.0; minima of 60 runs).
 *
 * The format is FTS5's (the comments of fts5_index.c in SQLite's source): a structure record
 * lists the segments of each level; each segment is a run of leaf pages holding terms (the
 * index's main terms prefixed with '0') each followed by its doclist: rowids (the first of a
 * doclist and the first on each page in full, the others as deltas), each with a position list
 * whose size carries a delete flag, and whose varints are offsets + 2 in column 0 and, after a
 * 0x01 byte and a column number, in that column. A rowid in several segments is the newest
 * segment's: level 0 before level 1, and in a level the last segment listed first; an entry
 * without positions there marks the row deleted. A contentless-delete table (`doc_field`) marks
 * a deleted row in its segment's tombstone hash instead, listed in a V2 structure record: read
 * by `fts5Rows` and `fts5Phrases` (its rows only), refused by the text columns' decoders.
 * Anything else (a page missing) throws, and the caller reads the vocabulary or asks FTS5
 * instead.
 *
 * These functions also run as source text on the reader threads (sqlite-reader.ts): they call
 * nothing but each other and the language's own, and define no named function inside.
 */

/** What the decoder reads, inside one read transaction of the caller's connection. */
export interface Fts5Store {
  /** A `%_data` record by id. */
  block(id: number): Uint8Array | undefined;
  /**
   * A segment's tombstone page: `%_data`'s record `((segid + 2^16) << 37) + page`, an id past
   * 2^53, which a JavaScript number cannot say exactly, so the caller's SQL computes it.
   */
  tombstone(segid: number, page: number): Uint8Array | undefined;
  /** `SELECT pgno FROM %_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`. */
  seek(segid: number, key: Uint8Array): number | undefined;
  /** `SELECT pgno FROM %_idx WHERE segid = ? AND term >= ? AND term < ? ORDER BY term`: the leaves whose first term lies between. */
  leaves(segid: number, low: Uint8Array, high: Uint8Array): number[];
}

/** Arrays kept from one call to the next (fresh memory costs a page fault per 4 KiB here). */
export interface Fts5Scratch {
  /** One segment's doclist, its pages' parts joined. */
  bytes: Uint8Array;
  /** Where in `bytes` a rowid is written in full (the first on a page after the doclist's first). */
  absolute: number[];
  /** Entries of three: rowid, occurrences in column 0, in column 1 (-1 and 0: a delete marker). */
  entries: Int32Array;
  /**
   * Two lists of entries' offsets, merged from one into the other, and the winning entries'
   * (`fts5Winners`); for `fts5Occurrences`, two lists of codes and two of rowids merged likewise.
   */
  order: Int32Array[];
  /** One word's codes (`fts5Codes`), decoded straight from its doclists, each segment's after the one before. */
  coded: Int32Array;
  /**
   * The rowids of that word's entries that give no code (a delete marker, or a row holding the
   * word outside the title and text alone), each segment's after the one before: in the newest
   * segment holding a row, they stand for it as codes do.
   */
  silent: Int32Array;
}

export function fts5Scratch(): Fts5Scratch {
  return {
    bytes: new Uint8Array(1 << 16),
    absolute: [],
    entries: new Int32Array(1 << 14),
    order: [new Int32Array(1 << 12), new Int32Array(1 << 12), new Int32Array(1 << 12), new Int32Array(1 << 12), new Int32Array(1 << 12)],
    coded: new Int32Array(1 << 14),
    silent: new Int32Array(1 << 10),
  };
}

/**
 * The occurrences of `term` (as FTS5's tokenizer wrote it) in columns 0 and 1 of the table,
 * weighted 2 and 1, ordered by document; `allocate` gives the array to fill.
 */
export function fts5Occurrences(store: Fts5Store, term: string, scratch: Fts5Scratch, allocate: (count: number) => Int32Array): Int32Array {
  return fts5CodedMerged(scratch, fts5CodedParts(store, fts5Segments(store), new TextEncoder().encode(`0${term}`), scratch), allocate);
}

/**
 * The term's (`0` and its bytes) codes and silent rowids in each of the segments holding it,
 * decoded into `scratch.coded` and `scratch.silent`: for each such segment, newest first, six
 * numbers, the ends of its codes and of its silent rowids, then its first and last rowid. With
 * `tombstones` (each segment's count of tombstone pages, a contentless-delete table's), one code
 * per live row instead, its tombstones read (see `fts5CodedEntries`).
 */
export function fts5CodedParts(store: Fts5Store, segments: number[], key: Uint8Array, scratch: Fts5Scratch, tombstones: number[] | null = null): number[] {
  const parts: number[] = [];
  const range = [0, 0, 0, 0];
  for (let s = 0; s < segments.length; s += 3) {
    const length = fts5Doclist(store, segments[s] as number, segments[s + 1] as number, segments[s + 2] as number, key, scratch);
    if (length < 0) continue;
    const codes = range[0] as number;
    const silent = range[1] as number;
    fts5CodedEntries(scratch, length, range, tombstones === null ? null : { store, segid: segments[s] as number, pages: tombstones[s / 3] as number });
    if ((range[0] as number) > codes || (range[1] as number) > silent) parts.push(codes, range[0] as number, silent, range[1] as number, range[2] as number, range[3] as number);
  }
  return parts;
}

/**
 * Decodes a segment's doclist (`scratch.bytes[0, length)`) straight into codes, appended to
 * `scratch.coded` from `range[0]`, and the rowids of its entries giving none to `scratch.silent`
 * from `range[1]`; sets `range` to their ends, then to the first and last rowid of the entries.
 * One pass: decoding entries, then the winning ones, then their codes cost a word in 548 446 of
 * a million documents three passes over its entries.
 *
 * With `buried` (a contentless-delete table's segment: its id and count of tombstone pages),
 * an entry its tombstones hold gives none either, and each live entry gives one code,
 * `rowid * 4 + 2`, its positions skipped (`fts5Rows`).
 */
export function fts5CodedEntries(scratch: Fts5Scratch, length: number, range: number[], buried: { store: Fts5Store; segid: number; pages: number } | null = null): void {
  const bytes = scratch.bytes;
  const absolute = scratch.absolute;
  const values = [0, 0];
  const loaded: (Uint8Array | undefined)[] = [];
  let coded = scratch.coded;
  let silent = scratch.silent;
  let c = range[0] as number;
  let q = range[1] as number;
  let next = 0;
  let rowid = 0;
  let at = 0;
  while (at < length) {
    const entryAt = at;
    let value = bytes[at] as number;
    if (value < 0x80) at++;
    else {
      at = fts5VarintAt(bytes, at, values);
      value = values[0] as number;
    }
    if (entryAt === 0) {
      rowid = value;
      range[2] = rowid;
    } else if (next < absolute.length && absolute[next] === entryAt) {
      rowid = value;
      next++;
    } else rowid += value;
    // A page's first rowid is where an entry starts, or the pages were misread.
    if (next < absolute.length && (absolute[next] as number) < at) throw new Error('fts5: a page whose first rowid is inside an entry');
    // Codes are rowids times four in 32 bits.
    if (rowid >= 2 ** 29) throw new Error('fts5: a rowid too large for a code');
    let size = bytes[at] as number;
    if (size < 0x80) at++;
    else {
      at = fts5VarintAt(bytes, at, values);
      size = values[0] as number;
    }
    const end = at + Math.floor(size / 2);
    if (end > length) throw new Error('fts5: a position list past its doclist');
    let column = 0;
    let title = 0;
    let text = 0;
    if (buried !== null) {
      at = end;
      if (size >= 2 && !(buried.pages > 0 && fts5Buried(buried.store, buried.segid, buried.pages, rowid, loaded))) title = 1;
    }
    while (at < end) {
      const byte = bytes[at] as number;
      if (byte < 0x80) {
        at++;
        if (byte === 1) {
          at = fts5VarintAt(bytes, at, values);
          column = values[0] as number;
          continue;
        }
      } else at = fts5VarintAt(bytes, at, values);
      if (column === 0) title++;
      else if (column === 1) text++;
    }
    if (size < 2 || title + text === 0) {
      if (q >= silent.length) {
        const grown = new Int32Array(silent.length * 2);
        grown.set(silent);
        silent = grown;
        scratch.silent = grown;
      }
      silent[q++] = rowid;
      continue;
    }
    const both = Math.min(title, text);
    if (c + title + text - both > coded.length) {
      const grown = new Int32Array(Math.max(coded.length * 2, c + title + text));
      grown.set(coded.subarray(0, c));
      coded = grown;
      scratch.coded = grown;
    }
    const code = rowid * 4;
    for (let k = 0; k < both; k++) coded[c++] = code + 3;
    for (let k = both; k < title; k++) coded[c++] = code + 2;
    for (let k = both; k < text; k++) coded[c++] = code + 1;
  }
  if (next !== absolute.length) throw new Error('fts5: a page whose first rowid was not reached');
  range[0] = c;
  range[1] = q;
  range[3] = rowid;
}

/**
 * The codes of the segments' winning entries (`parts`, six numbers a segment, newest first; see
 * `fts5CodedParts`), in rowid order: segments whose rowids overlap no other's (a segment holds
 * the rows written between two merges, so most do) are copied whole, in order of their first
 * rowid; those that overlap are merged newest first (`fts5CodedCluster`).
 */
export function fts5CodedMerged(scratch: Fts5Scratch, parts: number[], allocate: (count: number) => Int32Array): Int32Array {
  const count = parts.length / 6;
  const byFirst: number[] = [];
  for (let p = 0; p < count; p++) byFirst.push(p);
  byFirst.sort((a, b) => (parts[6 * a + 4] as number) - (parts[6 * b + 4] as number) || a - b);
  // Each run of overlapping segments: its codes as (array, start, end).
  const pieces: [Int32Array, number, number][] = [];
  let total = 0;
  for (let i = 0; i < count; ) {
    const first = byFirst[i] as number;
    let last = parts[6 * first + 5] as number;
    let j = i + 1;
    while (j < count && (parts[6 * (byFirst[j] as number) + 4] as number) <= last) {
      last = Math.max(last, parts[6 * (byFirst[j] as number) + 5] as number);
      j++;
    }
    let piece: [Int32Array, number, number];
    if (j === i + 1) piece = [scratch.coded, parts[6 * first] as number, parts[6 * first + 1] as number];
    else {
      const merged = fts5CodedCluster(scratch, parts, byFirst.slice(i, j).sort((a, b) => a - b));
      // The merge's lists are reused by the next run: this one's codes are kept apart.
      piece = [merged.slice(), 0, merged.length];
    }
    pieces.push(piece);
    total += piece[2] - piece[1];
    i = j;
  }
  const out = allocate(total);
  let n = 0;
  for (const [array, start, end] of pieces) {
    out.set(array.subarray(start, end), n);
    n += end - start;
  }
  return out;
}

/**
 * The codes of overlapping segments (`cluster`: their numbers in `parts`, newest first) merged,
 * a row's codes taken from the newest segment holding it, by codes or as a silent rowid (a row
 * deleted there, or holding the word outside the title and text alone, gives none). The newest
 * segment's codes and silent rowids are merged with each older one's in turn.
 */
export function fts5CodedCluster(scratch: Fts5Scratch, parts: number[], cluster: number[]): Int32Array {
  const newest = cluster[0] as number;
  let codes = scratch.coded.subarray(parts[6 * newest] as number, parts[6 * newest + 1] as number);
  let silent = scratch.silent.subarray(parts[6 * newest + 2] as number, parts[6 * newest + 3] as number);
  let which = 0;
  for (let k = 1; k < cluster.length; k++) {
    const p = cluster[k] as number;
    const older = scratch.coded;
    const from = parts[6 * p] as number;
    const to = parts[6 * p + 1] as number;
    const olderSilent = scratch.silent;
    const silentFrom = parts[6 * p + 2] as number;
    const silentTo = parts[6 * p + 3] as number;
    const intoCodes = (scratch.order[which] as Int32Array).length >= codes.length + to - from ? (scratch.order[which] as Int32Array) : fts5Grown(scratch, which, codes.length + to - from);
    const intoSilent =
      (scratch.order[which + 3] as Int32Array).length >= silent.length + silentTo - silentFrom ? (scratch.order[which + 3] as Int32Array) : fts5Grown(scratch, which + 3, silent.length + silentTo - silentFrom);
    let i = 0;
    let u = 0;
    let m = 0;
    for (let j = from; j < to; ) {
      const rowid = (older[j] as number) >> 2;
      let end = j + 1;
      while (end < to && (older[end] as number) >> 2 === rowid) end++;
      while (i < codes.length && (codes[i] as number) >> 2 < rowid) intoCodes[m++] = codes[i++] as number;
      while (u < silent.length && (silent[u] as number) < rowid) u++;
      // The older segment's codes stand only for a row no newer segment holds.
      if (!((i < codes.length && (codes[i] as number) >> 2 === rowid) || (u < silent.length && silent[u] === rowid))) for (let x = j; x < end; x++) intoCodes[m++] = older[x] as number;
      j = end;
    }
    while (i < codes.length) intoCodes[m++] = codes[i++] as number;
    // Silent rowids of every segment merged so far, each once: they stand for their rows against older segments.
    let a = 0;
    let b = silentFrom;
    let n = 0;
    while (a < silent.length || b < silentTo) {
      const x = a < silent.length ? (silent[a] as number) : Infinity;
      const y = b < silentTo ? (olderSilent[b] as number) : Infinity;
      intoSilent[n++] = Math.min(x, y);
      if (x <= y) a++;
      if (y <= x) b++;
    }
    codes = intoCodes.subarray(0, m);
    silent = intoSilent.subarray(0, n);
    which = 1 - which;
  }
  return codes;
}

/**
 * The segments holding pages, newest first (level 0 before level 1, in a level the last listed
 * first), as (segid, first page, last page) one after the other, from the structure record.
 * `tombstones`, when given, receives each of those segments' count of tombstone pages, in the
 * same order: a contentless-delete table (`doc_field`) writes a V2 structure record, whose
 * segments carry them, and marks a deleted row there rather than by an entry without positions.
 * Without it, a V2 record throws: the decoders of the text columns read no tombstones.
 */
export function fts5Segments(store: Fts5Store, tombstones: number[] | null = null): number[] {
  const structure = store.block(10);
  if (structure === undefined) return [];
  const v2 = structure.length >= 8 && structure[4] === 0xff && structure[5] === 0 && structure[6] === 0 && structure[7] === 1;
  if (v2 && tombstones === null) throw new Error('fts5: a V2 structure record');
  const values = [0, 0];
  let at = fts5VarintAt(structure, v2 ? 8 : 4, values);
  const levels = values[0] as number;
  at = fts5VarintAt(structure, at, values);
  at = fts5VarintAt(structure, at, values);
  const newestFirst: number[] = [];
  // Per segment: segid, first page, last page, and in a V2 record its lower and upper origin,
  // its tombstone pages, its tombstone entries and its entries.
  const fields = v2 ? 8 : 3;
  for (let level = 0; level < levels; level++) {
    at = fts5VarintAt(structure, at, values);
    at = fts5VarintAt(structure, at, values);
    const count = values[0] as number;
    const segments: number[] = [];
    for (let i = 0; i < count; i++) {
      for (let field = 0; field < fields; field++) {
        at = fts5VarintAt(structure, at, values);
        segments.push(values[0] as number);
      }
    }
    for (let i = count - 1; i >= 0; i--) {
      // A segment whose pages a merge has all taken has none left (page numbers 0).
      if (segments[fields * i + 1] === 0) continue;
      newestFirst.push(segments[fields * i] as number, segments[fields * i + 1] as number, segments[fields * i + 2] as number);
      if (tombstones !== null) tombstones.push(v2 ? (segments[fields * i + 5] as number) : 0);
    }
  }
  return newestFirst;
}

/**
 * Whether the tombstone hash of a segment (`pages` pages, read by `page`) holds the rowid: the
 * row's entry in that segment stands for a deleted row (fts5IndexTombstoneQuery in SQLite's
 * fts5_index.c). The rowid's page is `rowid % pages`; on it, after an 8-byte header (key size 4
 * or 8, a flag for rowid 0), slots of big-endian keys probed from `(rowid / pages) % slots` on
 * until an empty one.
 */
export function fts5Tombstoned(page: Uint8Array, pages: number, rowid: number): boolean {
  if (rowid === 0) return page[1] !== 0;
  const size = page[0] === 4 ? 4 : 8;
  const slots = page.length > 16 ? Math.floor((page.length - 8) / size) : 1;
  let slot = Math.floor(rowid / pages) % slots;
  for (let probes = 0; probes <= slots; probes++) {
    const at = 8 + slot * size;
    if (at + size > page.length) throw new Error('fts5: a tombstone slot past its page');
    let key = 0;
    for (let b = 0; b < size; b++) key = key * 256 + (page[at + b] as number);
    if (key === 0) return false;
    if (key === rowid) return true;
    slot = (slot + 1) % slots;
  }
  return false;
}

/**
 * Whether the segment's tombstones (`pages` of them) hold the rowid, its page read when first
 * needed and kept in `loaded`.
 */
export function fts5Buried(store: Fts5Store, segid: number, pages: number, rowid: number, loaded: (Uint8Array | undefined)[]): boolean {
  const p = rowid % pages;
  let page = loaded[p];
  if (page === undefined) {
    page = store.tombstone(segid, p);
    if (page === undefined || page.length < 8) throw new Error('fts5: a tombstone page missing');
    loaded[p] = page;
  }
  return fts5Tombstoned(page, pages, rowid);
}

/**
 * The rows of a contentless-delete table holding the term (`0` and its bytes) anywhere, in
 * rowid order: what `SELECT rowid FROM t WHERE t MATCH '"term"'` lists. Each segment's entries
 * are decoded without their positions (`fts5CodedEntries`), a row's entry taken from the newest
 * segment holding it, and dropped when that segment's tombstones hold it. `allocate` gives the
 * array to fill. Handing a million rowids from SQL to JavaScript (joined in a text and parsed)
 * cost a reader thread about ten times the decoding.
 */
export function fts5Rows(store: Fts5Store, key: Uint8Array, scratch: Fts5Scratch, allocate: (count: number) => Int32Array): Int32Array {
  const tombstones: number[] = [];
  const segments = fts5Segments(store, tombstones);
  // One code per row (`rowid * 4 + 2`), merged as a word's codes are; then the rowids.
  const rows = fts5CodedMerged(scratch, fts5CodedParts(store, segments, key, scratch, tombstones), allocate);
  for (let i = 0; i < rows.length; i++) rows[i] = (rows[i] as number) >> 2;
  return rows;
}

/** Reads the varint at `at` into `out[0]` and returns where the next one starts. */
export function fts5VarintAt(bytes: Uint8Array, at: number, out: number[]): number {
  let value = 0;
  for (let n = 0; ; n++) {
    if (at >= bytes.length) throw new Error('fts5: a varint past the end of its record');
    const byte = bytes[at++] as number;
    if (n === 8) {
      value = value * 256 + byte;
      break;
    }
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) break;
  }
  out[0] = value;
  return at;
}

/**
 * Copies the term's doclist in one segment into `scratch.bytes`, page after page, and returns
 * its length, or -1 when the segment does not hold the term.
 */
export function fts5Doclist(store: Fts5Store, segid: number, first: number, last: number, key: Uint8Array, scratch: Fts5Scratch): number {
  const values = [0, 0];
  const found = store.seek(segid, key);
  let pgno = found === undefined ? first : Math.max(first, Math.floor(found / 2));
  if (pgno > last) return -1;
  let page = fts5Page(store, segid, pgno);
  const szLeaf = ((page[2] as number) << 8) | (page[3] as number);
  // The term's place among the page's terms (fts5LeafSeek): each term shares `keep` bytes with the one before.
  let footer = szLeaf;
  if (footer >= page.length) return -1;
  footer = fts5VarintAt(page, footer, values);
  let termAt = values[0] as number;
  let at = termAt;
  let matched = 0;
  let keep = 0;
  let start = -1;
  for (;;) {
    at = fts5VarintAt(page, at, values);
    const fresh = values[0] as number;
    if (keep < matched) return -1;
    if (at + fresh > szLeaf) throw new Error('fts5: a term past its page');
    if (keep === matched) {
      const compared = Math.min(fresh, key.length - matched);
      let i = 0;
      while (i < compared && page[at + i] === key[matched + i]) i++;
      matched += i;
      if (matched === key.length) {
        if (i !== fresh) return -1;
        start = at + fresh;
        break;
      }
      if (i < fresh && (page[at + i] as number) > (key[matched] as number)) return -1;
    }
    if (footer >= page.length) return -1;
    footer = fts5VarintAt(page, footer, values);
    termAt += values[0] as number;
    at = fts5VarintAt(page, termAt, values);
    keep = values[0] as number;
  }
  // The doclist runs to the next term on the page, or on through pages without terms to the first term of a later page.
  let end = szLeaf;
  let more = true;
  if (footer < page.length) {
    fts5VarintAt(page, footer, values);
    end = termAt + (values[0] as number);
    more = false;
  }
  const absolute = scratch.absolute;
  absolute.length = 0;
  let length = fts5Append(scratch, 0, page, start, end);
  while (more && pgno < last) {
    pgno++;
    page = fts5Page(store, segid, pgno);
    const leaf = ((page[2] as number) << 8) | (page[3] as number);
    const rowidAt = ((page[0] as number) << 8) | (page[1] as number);
    let stop = leaf;
    if (leaf < page.length) {
      fts5VarintAt(page, leaf, values);
      stop = values[0] as number;
      more = false;
    }
    if (rowidAt !== 0 && rowidAt < stop) absolute.push(length + rowidAt - 4);
    length = fts5Append(scratch, length, page, 4, stop);
  }
  return length;
}

export function fts5Page(store: Fts5Store, segid: number, pgno: number): Uint8Array {
  const page = store.block(segid * 2 ** 37 + pgno);
  if (page === undefined || page.length < 4) throw new Error('fts5: a leaf page missing');
  return page;
}

/** Appends `page[from, to)` to the doclist being copied, which has `length` bytes so far. */
export function fts5Append(scratch: Fts5Scratch, length: number, page: Uint8Array, from: number, to: number): number {
  if (to <= from) return length;
  if (to > page.length) throw new Error('fts5: a doclist past its page');
  const needed = length + to - from;
  if (scratch.bytes.length < needed) {
    const grown = new Uint8Array(Math.max(needed, scratch.bytes.length * 2));
    grown.set(scratch.bytes.subarray(0, length));
    scratch.bytes = grown;
  }
  scratch.bytes.set(page.subarray(from, to), length);
  return needed;
}

/**
 * Each rowid's winning entry (its offset in `scratch.entries`) in rowid order, written to
 * `scratch.order[2]`; returns how many. `bounds`: each segment's entries, newest first; a rowid
 * in several segments is the newest one's. Segments whose rowids overlap no other's (a segment
 * holds the rows written between two merges, so most do) are taken whole, in order of their
 * first rowid; those that overlap are merged newest first, two lists at a time. Merging every
 * segment in turn walked the words' whole list once per segment: for a word in 548 446 of a
 * million documents over 13 segments, most of the decoder's merge.
 */
export function fts5Winners(scratch: Fts5Scratch, bounds: number[]): number {
  const entries = scratch.entries;
  const segments = bounds.length / 2;
  const byFirst: number[] = [];
  let total = 0;
  for (let s = 0; s < segments; s++) {
    byFirst.push(s);
    total += ((bounds[2 * s + 1] as number) - (bounds[2 * s] as number)) / 3;
  }
  byFirst.sort((a, b) => (entries[bounds[2 * a] as number] as number) - (entries[bounds[2 * b] as number] as number) || a - b);
  const out = (scratch.order[2] as Int32Array).length >= total ? (scratch.order[2] as Int32Array) : fts5Grown(scratch, 2, total);
  let n = 0;
  for (let i = 0; i < segments; ) {
    // The segments from i on whose first rowid is at most the highest last rowid before them.
    const first = byFirst[i] as number;
    let last = entries[(bounds[2 * first + 1] as number) - 3] as number;
    let j = i + 1;
    while (j < segments && (entries[bounds[2 * (byFirst[j] as number)] as number] as number) <= last) {
      last = Math.max(last, entries[(bounds[2 * (byFirst[j] as number) + 1] as number) - 3] as number);
      j++;
    }
    if (j === i + 1) {
      for (let e = bounds[2 * first] as number, end = bounds[2 * first + 1] as number; e < end; e += 3) out[n++] = e;
    } else n = fts5MergedInto(scratch, bounds, byFirst.slice(i, j).sort((a, b) => a - b), out, n);
    i = j;
  }
  return n;
}

/**
 * The entries of overlapping segments (`cluster`: their numbers in `bounds`, newest first)
 * merged, each rowid's newest entry kept, written to `out` from `n` on; returns the end. The
 * newest segment's entries are merged with each older one's in turn, two sorted lists at a time:
 * a k-way merge looking at every segment per entry cost 20 ms for a word in 57 000 documents
 * over nine.
 */
export function fts5MergedInto(scratch: Fts5Scratch, bounds: number[], cluster: number[], out: Int32Array, n: number): number {
  const entries = scratch.entries;
  let which = 0;
  const newest = cluster[0] as number;
  let merged = fts5Offsets(scratch, which, bounds[2 * newest] as number, bounds[2 * newest + 1] as number);
  let count = ((bounds[2 * newest + 1] as number) - (bounds[2 * newest] as number)) / 3;
  for (let c = 1; c < cluster.length; c++) {
    which = 1 - which;
    const older = bounds[2 * (cluster[c] as number)] as number;
    const end = bounds[2 * (cluster[c] as number) + 1] as number;
    const needed = count + (end - older) / 3;
    const into = (scratch.order[which] as Int32Array).length >= needed ? (scratch.order[which] as Int32Array) : fts5Grown(scratch, which, needed);
    let i = 0;
    let j = older;
    let m = 0;
    while (i < count && j < end) {
      const a = merged[i] as number;
      const ra = entries[a] as number;
      const rb = entries[j] as number;
      if (ra < rb) {
        into[m++] = a;
        i++;
      } else if (rb < ra) {
        into[m++] = j;
        j += 3;
      } else {
        // The same row in both: the newer segment's entry stands.
        into[m++] = a;
        i++;
        j += 3;
      }
    }
    while (i < count) into[m++] = merged[i++] as number;
    for (; j < end; j += 3) into[m++] = j;
    merged = into;
    count = m;
  }
  for (let w = 0; w < count; w++) out[n++] = merged[w] as number;
  return n;
}

/**
 * Writes a document's occurrences at `out[n]` and returns where the next document's start: an
 * occurrence in each column together as one code of weight 3 (2 + 1: bm25 sums the weights of a
 * document's occurrences, so the sum is the same), then those left in one column alone. Most
 * documents hold a word in their title and in their text, which repeats the title: for a word in
 * 548 446 of a million documents, 1.8 codes a document one by one, about one paired.
 */
export function fts5Codes(out: Int32Array, n: number, rowid: number, title: number, text: number): number {
  const both = Math.min(title, text);
  for (let k = 0; k < both; k++) out[n++] = rowid * 4 + 3;
  for (let k = both; k < title; k++) out[n++] = rowid * 4 + 2;
  for (let k = both; k < text; k++) out[n++] = rowid * 4 + 1;
  return n;
}

/** `scratch.order[which]`, holding the offsets of the entries in `entries[from, to)`. */
export function fts5Offsets(scratch: Fts5Scratch, which: number, from: number, to: number): Int32Array {
  const needed = (to - from) / 3;
  const order = (scratch.order[which] as Int32Array).length >= needed ? (scratch.order[which] as Int32Array) : fts5Grown(scratch, which, needed);
  for (let e = from, n = 0; e < to; e += 3) order[n++] = e;
  return order;
}

/** `scratch.order[which]` made room for `needed` offsets (its contents dropped). */
export function fts5Grown(scratch: Fts5Scratch, which: number, needed: number): Int32Array {
  const grown = new Int32Array(Math.max(needed, (scratch.order[which] as Int32Array).length * 2));
  scratch.order[which] = grown;
  return grown;
}

/*
 * The occurrences of an AND of phrases in the title and text columns, decoded from FTS5's
 * segments (the functions above read one word's): for each phrase, how many documents hold it (its
 * IDF's count, over the whole table) and its occurrences in the documents holding every phrase,
 * as `rowid * 4 + weight` codes (`fts5Codes`). That is all FTS5's `bm25()` reads of
 * `{title text} : "sea ice"` or `flood mapping sentinel`, so the scores can be computed as for
 * one word (term-relevance.ts) without it.
 *
 * FTS5's `bm25()` reads every matching row's sizes and positions to find the best few, and counts
 * each phrase's documents by a query of its own first: at a million documents, 70-100 ms of a
 * reader thread for `"sea ice"` or three words. Here each word's doclist is read once, its entries
 * decoded without their positions (a rowid and where its positions lie), and positions walked
 * only where they decide something: the documents holding every word of a phrase (adjacency), and
 * those holding every phrase (the codes).
 *
 * A phrase is matched as FTS5 matches it: its words at consecutive positions of one column,
 * every such place one occurrence (overlapping ones included). Only columns 0 and 1 count.
 *
 * These too run as source text on the reader threads (see above).
 */

/** One word's live entries: `live` holds (rowid, positions' start, end) for each, in rowid order; the positions are in `bytes`. */
export interface Fts5WordSpans {
  bytes: Uint8Array;
  live: Int32Array;
  count: number;
}

/** Arrays kept from one call to the next. */
export interface Fts5PhraseScratch {
  words: Fts5WordSpans[];
  /** Each word of a phrase's positions in one document, `column << 28 | offset` (columns 0 and 1). */
  positions: Int32Array[];
  /** Each multi-word phrase's documents: (rowid, title occurrences, text occurrences). */
  phrases: Int32Array[];
  out: Int32Array;
}

export function fts5PhraseScratch(): Fts5PhraseScratch {
  return { words: [], positions: [], phrases: [], out: new Int32Array(1 << 12) };
}

/** One phrase's documents as triples from `rows`: a one-word phrase its word's entries (rowid, positions' start and end, `word` its place in `scratch.words`), a longer one its own (rowid, title, text occurrences; `word` -1). */
interface PhraseList {
  rows: Int32Array;
  count: number;
  word: number;
}

/** Each phrase's documents (see PhraseList), read from the table's live segments. */
export function fts5PhraseLists(store: Fts5Store, phrases: readonly (readonly string[])[], doclist: Fts5Scratch, scratch: Fts5PhraseScratch): PhraseList[] {
  const tombstones: number[] = [];
  const segments = fts5Segments(store, tombstones);
  const slot = new Map<string, number>();
  const lists: PhraseList[] = [];
  for (let p = 0; p < phrases.length; p++) {
    const indexes = fts5PhraseWords(store, segments, tombstones, phrases[p] as readonly string[], doclist, scratch, slot);
    if (indexes.length === 1) {
      const spans = scratch.words[indexes[0] as number] as Fts5WordSpans;
      lists.push({ rows: spans.live, count: spans.count, word: indexes[0] as number });
    } else {
      while (scratch.phrases.length <= p) scratch.phrases.push(new Int32Array(1 << 12));
      const count = fts5PhraseDocuments(scratch, indexes, p);
      lists.push({ rows: scratch.phrases[p] as Int32Array, count, word: -1 });
    }
  }
  return lists;
}

/**
 * For the phrases (each its words, as FTS5's tokenizer wrote them) of an AND: an array of
 * `[k, documents of each phrase (k), codes of each phrase (k), the codes one phrase after the
 * other]`, `allocate` giving it. Every document listed holds every phrase; the codes of each
 * phrase are in rowid order. Throws when a word's segments cannot be decoded, or a word is found
 * outside the text columns (a path token), where the caller keeps FTS5's `bm25()`.
 */
export function fts5Phrases(store: Fts5Store, phrases: readonly (readonly string[])[], doclist: Fts5Scratch, scratch: Fts5PhraseScratch, allocate: (count: number) => Int32Array): Int32Array {
  const lists = fts5PhraseLists(store, phrases, doclist, scratch);
  // The documents holding every phrase, each phrase's codes for them.
  const k = lists.length;
  const header = 1 + 2 * k;
  let out = scratch.out;
  const at = new Int32Array(k);
  // Codes of each phrase written to its own part of `out`, grown by doubling: phrase p's codes start at `starts[p]`.
  const starts = new Int32Array(k);
  const ends = new Int32Array(k);
  let room = Math.max(1024, out.length >> 3);
  for (let p = 0; p < k; p++) {
    starts[p] = header + p * room;
    ends[p] = starts[p] as number;
  }
  if (out.length < header + k * room) out = new Int32Array(header + k * room);
  const rows = lists.map((list) => list.rows);
  const counts = lists.map((list) => list.count);
  for (;;) {
    const target = fts5NextCommon(rows, counts, at);
    if (target < 0) break;
    // Room for the most codes one document may add to each phrase's part.
    for (let p = 0; p < k; p++) {
      const list = lists[p] as PhraseList;
      const j = at[p] as number;
      let title = list.rows[3 * j + 1] as number;
      let text = list.rows[3 * j + 2] as number;
      if (list.word >= 0) {
        const spans = scratch.words[list.word] as Fts5WordSpans;
        const counted = fts5ColumnCounts(spans.bytes, title, text);
        title = Math.floor(counted / 2 ** 20);
        text = counted % 2 ** 20;
        if (title + text === 0) throw new Error('fts5: a word outside the text columns');
      }
      const needed = Math.max(title, text);
      if ((ends[p] as number) + needed > (p + 1 < k ? (starts[p + 1] as number) : out.length)) {
        // Every part made twice as large (and the last one large enough), codes moved up.
        const grownRoom = Math.max(room * 2, needed + ((ends[p] as number) - (starts[p] as number)) + 1024);
        const grown = new Int32Array(header + k * grownRoom);
        for (let q = 0; q < k; q++) {
          grown.set(out.subarray(starts[q] as number, ends[q] as number), header + q * grownRoom);
          ends[q] = header + q * grownRoom + ((ends[q] as number) - (starts[q] as number));
          starts[q] = header + q * grownRoom;
        }
        out = grown;
        room = grownRoom;
      }
      ends[p] = fts5Codes(out, ends[p] as number, target, title, text);
      at[p] = j + 1;
    }
  }
  scratch.out = out;
  let total = 0;
  for (let p = 0; p < k; p++) total += (ends[p] as number) - (starts[p] as number);
  const result = allocate(header + total);
  result[0] = k;
  let n = header;
  for (let p = 0; p < k; p++) {
    result[1 + p] = (lists[p] as { count: number }).count;
    result[1 + k + p] = (ends[p] as number) - (starts[p] as number);
    result.set(out.subarray(starts[p] as number, ends[p] as number), n);
    n += (ends[p] as number) - (starts[p] as number);
  }
  return result;
}

/**
 * The rows of a contentless-delete table matching an AND of phrases (each its words, as the
 * table's tokenizer wrote them), in rowid order: one word's from `fts5Rows`, any other AND's
 * from its phrases' lists (`fts5PhraseLists`), walked together. The table's one column is the
 * decoder's column 0.
 */
export function fts5FieldRows(store: Fts5Store, phrases: readonly (readonly string[])[], doclist: Fts5Scratch, scratch: Fts5PhraseScratch, allocate: (count: number) => Int32Array): Int32Array {
  const only = phrases.length === 1 ? (phrases[0] as readonly string[]) : null;
  if (only !== null && only.length === 1) return fts5Rows(store, new TextEncoder().encode(`0${only[0] as string}`), doclist, allocate);
  // The rows every phrase's list holds, walked together; no codes, which only scoring needs.
  const lists = fts5PhraseLists(store, phrases, doclist, scratch);
  const rows = lists.map((list) => list.rows);
  const counts = lists.map((list) => list.count);
  const at = new Int32Array(lists.length);
  const found = new Int32Array(Math.min(...counts));
  let n = 0;
  for (let target = fts5NextCommon(rows, counts, at); target >= 0; target = fts5NextCommon(rows, counts, at)) {
    found[n++] = target;
    for (let p = 0; p < at.length; p++) at[p] = (at[p] as number) + 1;
  }
  const out = allocate(n);
  out.set(found.subarray(0, n));
  return out;
}

/**
 * The places in `scratch.words` of a phrase's words, each word's live entries read there once
 * (`fts5WordSpans`) and found again through `slot` by the phrases after it.
 */
export function fts5PhraseWords(
  store: Fts5Store,
  segments: number[],
  tombstones: number[],
  words: readonly string[],
  doclist: Fts5Scratch,
  scratch: Fts5PhraseScratch,
  slot: Map<string, number>,
): number[] {
  const indexes: number[] = [];
  for (const word of words) {
    let index = slot.get(word);
    if (index === undefined) {
      index = slot.size;
      slot.set(word, index);
      if (scratch.words.length <= index) scratch.words.push({ bytes: new Uint8Array(1 << 12), live: new Int32Array(1 << 12), count: 0 });
      fts5WordSpans(store, segments, tombstones, word, doclist, scratch.words[index] as Fts5WordSpans);
    }
    indexes.push(index);
  }
  return indexes;
}

/**
 * A word's live entries, without their positions: each segment's doclist copied after the
 * others into `spans.bytes`, its entries decoded as (rowid, start, end of its positions), and the
 * segments merged newest first as fts5-doclist.ts merges them (a rowid's entry is the newest
 * segment's; one without positions there, or held by that segment's tombstones, each segment's
 * count of pages in `tombstones`, is a deleted row).
 */
export function fts5WordSpans(store: Fts5Store, segments: number[], tombstones: number[], word: string, doclist: Fts5Scratch, spans: Fts5WordSpans): void {
  const key = new TextEncoder().encode(`0${word}`);
  const bounds: number[] = [];
  let used = 0;
  let base = 0;
  for (let s = 0; s < segments.length; s += 3) {
    const length = fts5Doclist(store, segments[s] as number, segments[s + 1] as number, segments[s + 2] as number, key, doclist);
    if (length < 0) continue;
    if (spans.bytes.length < base + length) {
      const grown = new Uint8Array(Math.max(base + length, spans.bytes.length * 2));
      grown.set(spans.bytes.subarray(0, base));
      spans.bytes = grown;
    }
    spans.bytes.set(doclist.bytes.subarray(0, length), base);
    const start = used;
    used = fts5SpanEntries(doclist, spans.bytes, base, length, used);
    if ((tombstones[s / 3] ?? 0) > 0) fts5SpansBuried(store, segments[s] as number, tombstones[s / 3] as number, doclist.entries, start, used);
    base += length;
    if (used > start) bounds.push(start, used);
  }
  const entries = doclist.entries;
  // One segment's entries are in order already.
  const direct = bounds.length === 2;
  const count = direct ? ((bounds[1] as number) - (bounds[0] as number)) / 3 : bounds.length === 0 ? 0 : fts5Winners(doclist, bounds);
  const merged = doclist.order[2] as Int32Array;
  if (spans.live.length < 3 * count) spans.live = new Int32Array(Math.max(3 * count, spans.live.length * 2));
  const live = spans.live;
  let n = 0;
  const from = bounds.length === 0 ? 0 : (bounds[0] as number);
  for (let w = 0; w < count; w++) {
    const e = direct ? from + 3 * w : (merged[w] as number);
    if ((entries[e + 1] as number) < 0) continue;
    live[n++] = entries[e] as number;
    live[n++] = entries[e + 1] as number;
    live[n++] = entries[e + 2] as number;
  }
  spans.count = n / 3;
}

/**
 * Decodes the entries of a segment's doclist (`doclist.bytes[0, length)`, copied to `bytes` at
 * `base`) into `doclist.entries` from `used` on, as (rowid, start and end of its positions in
 * `bytes`; -1 for a row deleted), and returns the entries' end.
 */
export function fts5SpanEntries(doclist: Fts5Scratch, bytes: Uint8Array, base: number, length: number, used: number): number {
  const absolute = doclist.absolute;
  const values = [0, 0];
  let next = 0;
  let rowid = 0;
  let at = base;
  const stop = base + length;
  let out = used;
  while (at < stop) {
    const entryAt = at - base;
    let value = bytes[at] as number;
    if (value < 0x80) at++;
    else {
      at = fts5VarintAt(bytes, at, values);
      value = values[0] as number;
    }
    if (entryAt === 0) rowid = value;
    else if (next < absolute.length && absolute[next] === entryAt) {
      rowid = value;
      next++;
    } else rowid += value;
    if (next < absolute.length && (absolute[next] as number) < at - base) throw new Error('fts5: a page whose first rowid is inside an entry');
    let size = bytes[at] as number;
    if (size < 0x80) at++;
    else {
      at = fts5VarintAt(bytes, at, values);
      size = values[0] as number;
    }
    const end = at + Math.floor(size / 2);
    if (end > stop) throw new Error('fts5: a position list past its doclist');
    if (out + 3 > doclist.entries.length) {
      const grown = new Int32Array(doclist.entries.length * 2);
      grown.set(doclist.entries);
      doclist.entries = grown;
    }
    doclist.entries[out] = rowid;
    doclist.entries[out + 1] = size < 2 ? -1 : at;
    doclist.entries[out + 2] = end;
    out += 3;
    at = end;
  }
  if (next !== absolute.length) throw new Error('fts5: a page whose first rowid was not reached');
  return out;
}

/**
 * Marks deleted (`-1` for the positions' start) the entries in `entries[from, to)` (rowid, start,
 * end) that the segment's tombstones (`pages` of them) hold.
 */
export function fts5SpansBuried(store: Fts5Store, segid: number, pages: number, entries: Int32Array, from: number, to: number): void {
  const loaded: (Uint8Array | undefined)[] = [];
  for (let e = from; e < to; e += 3) {
    if ((entries[e + 1] as number) < 0) continue;
    if (fts5Buried(store, segid, pages, entries[e] as number, loaded)) entries[e + 1] = -1;
  }
}

/**
 * A position list's occurrences in column 0 and in column 1, as `title * 2^20 + text`: the walk
 * `fts5CodedEntries` makes inline for every entry of one word (calling this from there, in the same
 * pass or in one of its own, cost 6-10 ms more a read of `sentinel` at 1M: 23 against 29-33).
 */
export function fts5ColumnCounts(bytes: Uint8Array, from: number, end: number): number {
  const values = [0, 0];
  let at = from;
  let column = 0;
  let title = 0;
  let text = 0;
  while (at < end) {
    const byte = bytes[at] as number;
    if (byte < 0x80) {
      at++;
      if (byte === 1) {
        at = fts5VarintAt(bytes, at, values);
        column = values[0] as number;
        continue;
      }
    } else at = fts5VarintAt(bytes, at, values);
    if (column === 0) title++;
    else if (column === 1) text++;
  }
  if (title >= 2 ** 20 || text >= 2 ** 20) throw new Error('fts5: more occurrences in a row than counted here');
  return title * 2 ** 20 + text;
}

/**
 * Writes a position list's offsets in columns 0 and 1 into `scratch.positions[w]` as
 * `column << 28 | offset`, in order, and returns how many.
 */
export function fts5ColumnPositions(scratch: Fts5PhraseScratch, w: number, bytes: Uint8Array, from: number, end: number): number {
  const values = [0, 0];
  while (scratch.positions.length <= w) scratch.positions.push(new Int32Array(64));
  let out = scratch.positions[w] as Int32Array;
  let n = 0;
  let at = from;
  let column = 0;
  let offset = 0;
  while (at < end) {
    let value = bytes[at] as number;
    if (value < 0x80) at++;
    else {
      at = fts5VarintAt(bytes, at, values);
      value = values[0] as number;
    }
    if (value === 1) {
      at = fts5VarintAt(bytes, at, values);
      column = values[0] as number;
      offset = 0;
      // Columns come in order: none after the text counts.
      if (column > 1) break;
      continue;
    }
    offset += value - 2;
    if (offset >= 1 << 28) throw new Error('fts5: an offset past what is counted here');
    if (n >= out.length) {
      const grown = new Int32Array(out.length * 2);
      grown.set(out);
      out = grown;
      scratch.positions[w] = out;
    }
    out[n++] = (column << 28) | offset;
  }
  return n;
}

/**
 * The documents where the words (`indexes` into `scratch.words`) stand at consecutive positions
 * of one column, written to `scratch.phrases[p]` as (rowid, occurrences in the title, in the
 * text); returns how many.
 */
export function fts5PhraseDocuments(scratch: Fts5PhraseScratch, indexes: number[], p: number): number {
  const k = indexes.length;
  const at = new Int32Array(k);
  // Each word's places in the document at hand.
  const placed = new Int32Array(k);
  let out = scratch.phrases[p] as Int32Array;
  let documents = 0;
  const lists = indexes.map((index) => scratch.words[index] as Fts5WordSpans);
  const rows = lists.map((spans) => spans.live);
  const counts = lists.map((spans) => spans.count);
  // Each later word's place in its positions, from one document to the next: made anew for
  // each of the 300 000 documents holding both words of `"sea ice"` at a million, it was a
  // good part of the walk.
  const cursor = new Int32Array(k);
  for (;;) {
    const target = fts5NextCommon(rows, counts, at);
    if (target < 0) break;
    for (let i = 0; i < k; i++) {
      const spans = scratch.words[indexes[i] as number] as Fts5WordSpans;
      const j = at[i] as number;
      placed[i] = fts5ColumnPositions(scratch, i, spans.bytes, spans.live[3 * j + 1] as number, spans.live[3 * j + 2] as number);
      at[i] = j + 1;
    }
    // Each place of the first word, where every later word stands as many places after it.
    const first = scratch.positions[0] as Int32Array;
    cursor.fill(0);
    let title = 0;
    let text = 0;
    for (let f = 0; f < (placed[0] as number); f++) {
      const place = first[f] as number;
      let found = true;
      for (let i = 1; i < k && found; i++) {
        const positions = scratch.positions[i] as Int32Array;
        const wanted = place + i;
        let c = cursor[i] as number;
        while (c < (placed[i] as number) && (positions[c] as number) < wanted) c++;
        cursor[i] = c;
        found = c < (placed[i] as number) && positions[c] === wanted;
      }
      if (!found) continue;
      if (place >>> 28 === 0) title++;
      else text++;
    }
    if (title + text === 0) continue;
    if (3 * documents + 3 > out.length) {
      const grown = new Int32Array(out.length * 2);
      grown.set(out);
      out = grown;
      scratch.phrases[p] = out;
    }
    out[3 * documents] = target;
    out[3 * documents + 1] = title;
    out[3 * documents + 2] = text;
    documents++;
  }
  return documents;
}

/**
 * The first of the `count` triples of `rows` from `from` on whose first number (a rowid, in
 * ascending order) is at least `target`, or `count`: steps doubling, then halving. The lists of
 * an AND are walked to the next rowid the others hold: for `flood mapping sentinel`, the
 * 548 446 entries of `sentinel` for 10 195 documents.
 */
export function fts5Seek(rows: Int32Array, from: number, count: number, target: number): number {
  if (from >= count || (rows[3 * from] as number) >= target) return from;
  let low = from;
  let step = 1;
  while (low + step < count && (rows[3 * (low + step)] as number) < target) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, count);
  // rows[low] < target, and rows[high] >= target or high = count.
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if ((rows[3 * middle] as number) < target) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * Moves each list's cursor (`at`) to the next rowid every list holds and returns it, or -1 once a
 * list has none left; `rows[p]` holds `counts[p]` triples, each a rowid first, in ascending order.
 */
export function fts5NextCommon(rows: Int32Array[], counts: number[], at: Int32Array): number {
  const k = rows.length;
  for (;;) {
    // The highest rowid the cursors stand on; every list moved up to it, until all stand on it.
    let target = -1;
    for (let p = 0; p < k; p++) {
      if ((at[p] as number) >= (counts[p] as number)) return -1;
      target = Math.max(target, (rows[p] as Int32Array)[3 * (at[p] as number)] as number);
    }
    let all = true;
    for (let p = 0; p < k; p++) {
      const j = fts5Seek(rows[p] as Int32Array, at[p] as number, counts[p] as number, target);
      at[p] = j;
      if (j >= (counts[p] as number)) return -1;
      if ((rows[p] as Int32Array)[3 * j] !== target) all = false;
    }
    if (all) return target;
  }
}

/*
 * The words of a slice of an FTS5 table's vocabulary, read from the terms on its segments' leaf
 * pages, for fuzzy words (see `nearestWords` in sqlite-search-index.ts): the same words, in the
 * same order, as the `row` vocabulary (`doc_words`, an `fts5vocab` table) lists them.
 *
 * That vocabulary counts the documents of every word it lists, so listing a letter's words walks
 * all their doclists: at a million documents the letter of `glacer~` holds `grace` (a third of the
 * documents) and `glacier`, and its slices cost a reader thread about 30 ms. A leaf page's footer
 * says where each of its terms starts; the pages holding terms are those the segment's `%_idx`
 * table names, so the pages between them, which hold only the doclists of large words, are never
 * read.
 *
 * FTS5 lists a word only if one of its documents is live: a word whose every entry is a delete
 * marker (each of its rows deleted since it was written) is in the leaves and not in the
 * vocabulary. A word's entries in the newest segment holding it are its winning ones (a rowid in
 * several segments is the newest one's; fts5-doclist.ts), so one of them with positions there
 * makes it live: the entries that follow the word on its page are looked at for one. A word
 * whose entries there are all delete markers, or run on to the next page, is decided by decoding
 * its entries in the segments holding it; more than 512 such words throw, as does
 * anything the decoder does not read, and the caller reads the vocabulary instead.
 *
 * These too run as source text on the reader threads (see above).
 */

/**
 * Slices of a vocabulary read from the leaves (`fts5SliceKeys`), kept for the next query asking
 * for the same slice. Valid while the table's structure record is the one they were read under:
 * every change to the index (a segment written by a commit, a merge) rewrites that record, with
 * a new segment id and write count, and the leaves of a segment never change once written (the
 * table has no `secure-delete`).
 */
export interface Fts5KeptSlices {
  /** The structure record the slices were read under (null before the first). */
  structure: Uint8Array | null;
  /** By slice (its bounds and lengths): its live keys in order, and their words once decoded. */
  slices: Map<string, { keys: string[]; words: (string | undefined)[] }>;
  /** Keys held by all the slices together. */
  held: number;
  /** Keys held at most: the oldest slices are dropped past it. */
  most: number;
}

/**
 * Kept slices of up to `most` keys in all (a letter's slice at a million documents, about 30 000
 * keys, is a megabyte or two of strings).
 */
export function fts5KeptSlices(most = 1 << 18): Fts5KeptSlices {
  return { structure: null, slices: new Map(), held: 0, most };
}

/**
 * The live keys of the table's main index in `[from, to)` (see `fts5NearestWords` for the
 * lengths), in order, and their words as far as decoded: from `kept` when it holds the slice
 * read under the same structure record, else read from the leaves (and kept there).
 */
export function fts5SliceKeys(store: Fts5Store, from: string, to: string, shortest: number, longest: number, doclist: Fts5Scratch, kept: Fts5KeptSlices | null): { keys: string[]; words: (string | undefined)[] } {
  const name = `${from}\u0000${to}\u0000${shortest}\u0000${longest}`;
  if (kept !== null) {
    const structure = store.block(10) ?? new Uint8Array(0);
    const before = kept.structure;
    let same = before !== null && before.length === structure.length;
    for (let i = 0; same && i < structure.length; i++) if (before?.[i] !== structure[i]) same = false;
    if (!same) {
      kept.slices.clear();
      kept.held = 0;
      kept.structure = Uint8Array.from(structure);
    }
    const slice = kept.slices.get(name);
    if (slice !== undefined) return slice;
  }
  const segments = fts5Segments(store);
  const encoder = new TextEncoder();
  const low = encoder.encode(`0${from}`);
  const high = encoder.encode(`0${to}`);
  // Each word's key (`0` and its bytes, as a string of one character per byte: such strings
  // order as the bytes do) and 1 when it is live, or the segments holding it (as `segments`
  // lists them) while undecided; the segments are read newest first.
  const found = new Map<string, 1 | number[]>();
  for (let s = 0; s < segments.length; s += 3) fts5LeafTerms(store, segments, s, low, high, shortest + 1, longest, found);
  const keys: string[] = [];
  // Each word decided by its entries costs a few reads of the segments holding it (tens of
  // microseconds); the vocabulary's slice, read instead past this many, a few milliseconds to tens.
  const undecidedAtMost = 512;
  let undecided = 0;
  for (const [key, live] of found) {
    if (live === 1) keys.push(key);
    else {
      if (++undecided > undecidedAtMost) throw new Error('fts5: too many words whose rows may all be deleted');
      if (fts5WordLives(store, live, Uint8Array.from(key, (c) => c.charCodeAt(0)), doclist)) keys.push(key);
    }
  }
  keys.sort();
  const slice = { keys, words: new Array<string | undefined>(keys.length) };
  if (kept !== null && keys.length <= kept.most) {
    // The oldest slices go first (a Map keeps its keys in the order they were set).
    for (const [other, { keys: theirs }] of kept.slices) {
      if (kept.held + keys.length <= kept.most) break;
      kept.slices.delete(other);
      kept.held -= theirs.length;
    }
    kept.slices.set(name, slice);
    kept.held += keys.length;
  }
  return slice;
}

/**
 * The `most` words of the table's main index in `[from, to)` nearest `word` in order (the first
 * at or after it, then the last before it, and so on in turn), of those whose length is at least
 * `shortest` bytes (UTF-8) and at most `longest` characters; as `doc_words` lists them. With
 * `kept`, the slice's words are read from the leaves only when it does not hold them (see
 * `Fts5KeptSlices`): at a million documents reading, deciding and sorting the 30 000 words of
 * `g` was about 20 ms of a reader thread for each fuzzy word starting with it.
 */
export function fts5NearestWords(store: Fts5Store, from: string, to: string, word: string, shortest: number, longest: number, most: number, doclist: Fts5Scratch, kept: Fts5KeptSlices | null = null): string[] {
  const { keys, words } = fts5SliceKeys(store, from, to, shortest, longest, doclist, kept);
  const wordKey = String.fromCharCode(...new TextEncoder().encode(`0${word}`));
  // The first key at or after the word's.
  let lowest = 0;
  let highest = keys.length;
  while (lowest < highest) {
    const middle = (lowest + highest) >>> 1;
    if ((keys[middle] as string) < wordKey) lowest = middle + 1;
    else highest = middle;
  }
  const decoder = new TextDecoder();
  const nearest: string[] = [];
  for (let i = 0; nearest.length < most && (lowest + i < keys.length || lowest - 1 - i >= 0); i++) {
    const above = lowest + i;
    if (above < keys.length) {
      const known = words[above];
      const found = known === undefined ? fts5WordOfKey(keys[above] as string, decoder) : known;
      words[above] = found;
      nearest.push(found);
    }
    const below = lowest - 1 - i;
    if (below >= 0 && nearest.length < most) {
      const known = words[below];
      const found = known === undefined ? fts5WordOfKey(keys[below] as string, decoder) : known;
      words[below] = found;
      nearest.push(found);
    }
  }
  return nearest;
}

/** The word of a key (`0` and its bytes, a character each): an ASCII word's is the key after the `0`, others are decoded. */
export function fts5WordOfKey(key: string, decoder: { decode(bytes: Uint8Array): string }): string {
  return /[^\x00-\x7f]/.test(key) ? decoder.decode(Uint8Array.from(key.slice(1), (c) => c.charCodeAt(0))) : key.slice(1);
}

/**
 * Adds to `found` the terms in `[low, high)` of the leaf pages of the segment at `s` in
 * `segments` whose length is at least `shortest` bytes (the key's, with its `0`) and at most
 * `longest` characters: 1 when an entry following the term on its page has positions (a live
 * row), or else the segment, after those of newer segments holding the term. A term found live
 * in a newer segment is left as it is.
 */
export function fts5LeafTerms(store: Fts5Store, segments: number[], s: number, low: Uint8Array, high: Uint8Array, shortest: number, longest: number, found: Map<string, 1 | number[]>): void {
  const segid = segments[s] as number;
  const first = segments[s + 1] as number;
  const last = segments[s + 2] as number;
  const values = [0, 0];
  const start = store.seek(segid, low);
  const pages = [start === undefined ? first : Math.max(first, Math.floor(start / 2))];
  for (const pgno of store.leaves(segid, low, high)) {
    const page = Math.floor(pgno / 2);
    if (page > (pages[pages.length - 1] as number) && page <= last) pages.push(page);
  }
  // The bounds as keys: strings of one character per byte order as the bytes do.
  let lowKey = '';
  for (let i = 0; i < low.length; i++) lowKey += String.fromCharCode(low[i] as number);
  let highKey = '';
  for (let i = 0; i < high.length; i++) highKey += String.fromCharCode(high[i] as number);
  for (const pgno of pages) {
    if (pgno > last) break;
    const page = fts5Page(store, segid, pgno);
    const szLeaf = ((page[2] as number) << 8) | (page[3] as number);
    if (szLeaf > page.length) throw new Error('fts5: a leaf longer than its page');
    // The footer lists where each term starts, the first in full, each later one as the distance from the one before.
    let footer = szLeaf;
    let termAt = 0;
    let key = '';
    for (let t = 0; footer < page.length; t++) {
      footer = fts5VarintAt(page, footer, values);
      termAt += values[0] as number;
      let at = termAt;
      let keep = 0;
      if (t > 0) {
        at = fts5VarintAt(page, at, values);
        keep = values[0] as number;
      }
      at = fts5VarintAt(page, at, values);
      const fresh = values[0] as number;
      if (keep > key.length || at + fresh > szLeaf) throw new Error('fts5: a term past its page');
      // The term shares `keep` bytes with the one before it on the page.
      let part = '';
      for (let i = at; i < at + fresh; i++) part += String.fromCharCode(page[i] as number);
      key = keep === key.length ? key + part : key.slice(0, keep) + part;
      at += fresh;
      // Terms are in order: the first at or past `high` ends the segment's slice.
      if (key >= highKey) return;
      if (key < lowKey || key.length < shortest) continue;
      let characters = 0;
      for (let i = 1; i < key.length && characters <= longest; i++) if ((key.charCodeAt(i) & 0xc0) !== 0x80) characters++;
      if (characters > longest) continue;
      const before = found.get(key);
      if (before === 1) continue;
      if (before !== undefined) {
        // Its entries here may hold the live row: decided with the newer segments' entries, if need be.
        before.push(segid, first, last);
        continue;
      }
      // The term's entries on this page, up to the next term or the page's end: one with positions (its size's varint
      // is the positions' bytes times two, plus one for a delete marker) is a live row in this segment.
      let end = szLeaf;
      if (footer < page.length) {
        fts5VarintAt(page, footer, values);
        end = termAt + (values[0] as number);
      }
      let live = 0;
      while (at < end && live === 0) {
        // A rowid, then a size whose varint may run past the page: undecided here.
        at = fts5VarintAt(page, at, values);
        if (at >= end) break;
        at = fts5VarintAt(page, at, values);
        const size = values[0] as number;
        if (at > end) break;
        if (size >= 2) live = 1;
        at += Math.floor(size / 2);
      }
      found.set(key, live === 1 ? 1 : [segid, first, last]);
    }
  }
}

/**
 * Whether any row holds the term (`0` and its bytes) in the title or text: its codes decoded in
 * the segments holding it (newest first, as `fts5Segments` lists them). A word of any letter but
 * that of path tokens (`0z`) is in those columns wherever it is, so that is whether any row holds it.
 */
export function fts5WordLives(store: Fts5Store, segments: number[], key: Uint8Array, doclist: Fts5Scratch): boolean {
  return fts5CodedMerged(doclist, fts5CodedParts(store, segments, key, doclist), (count) => new Int32Array(count)).length > 0;
}
