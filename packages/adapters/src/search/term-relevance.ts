/**
 * FTS5's bm25, computed here for queries of single words (one word, or a fuzzy word's
 * expansion: each word one FTS5 phrase), from what the index holds apart from the scoring
 * function: each occurrence of a word in a searched column (FTS5's `instance` vocabulary), each
 * document's length (doc-lengths.ts) and the table's totals.
 *
 * SQLite's `bm25()` reads every matching row's column sizes and occurrence list to find the best
 * few: for a word in 57 000 of 100 000 documents, 35-40 ms of one reader thread. The occurrences
 * of that word read in one pass cost about a third of that, and the scores below under a
 * millisecond. The arithmetic is FTS5's, operation for operation (fts5Bm25Function in SQLite's
 * fts5_aux.c), so the scores are the same doubles and the order and its ties are the same.
 */

const K1 = 1.2;
const B = 0.75;

/** The column weights of the index's bm25 call: `bm25(doc_fts, 2.0, 1.0, 0.0)`. */
export const TITLE_WEIGHT = 2;
export const TEXT_WEIGHT = 1;

/** One word's occurrences, each `rowid * 4 + the column's weight`, in any order. */
export type Occurrences = Int32Array;

export interface PhraseFrequencies {
  /** The documents holding the word, ascending. */
  rowids: Int32Array;
  /** Each one's sum of column weights over its occurrences (FTS5's f(qi, D)). */
  frequencies: Float64Array;
}

/** Occurrences summed per document. */
export function phraseFrequencies(occurrences: Occurrences): PhraseFrequencies {
  // FTS5 lists one word's occurrences by document already: sorted only if they are not.
  // (Typed-array reads below are in bounds: `as number` spares a check per element.)
  let ordered = true;
  let count = occurrences.length === 0 ? 0 : 1;
  for (let i = 1; i < occurrences.length; i++) {
    const before = (occurrences[i - 1] as number) >> 2;
    const here = (occurrences[i] as number) >> 2;
    if (here < before) ordered = false;
    if (here !== before) count++;
  }
  const codes = ordered ? occurrences : Int32Array.from(occurrences).sort();
  if (!ordered) {
    count = codes.length === 0 ? 0 : 1;
    for (let i = 1; i < codes.length; i++) if ((codes[i] as number) >> 2 !== (codes[i - 1] as number) >> 2) count++;
  }
  const rowids = new Int32Array(count);
  const frequencies = new Float64Array(count);
  let n = -1;
  let last = -1;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    const rowid = code >> 2;
    if (rowid !== last) {
      rowids[++n] = rowid;
      last = rowid;
    }
    frequencies[n] = (frequencies[n] as number) + (code & 3);
  }
  return { rowids, frequencies };
}

/**
 * FTS5's IDF of a phrase found in `hits` of `rows` documents; `ln` must be SQLite's own (the
 * C library's `log`), so the value is the one bm25 uses to the last bit.
 */
export function inverseDocumentFrequency(rows: number, hits: number, ln: (x: number) => number): number {
  const idf = ln((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

export interface Relevance {
  /** Every document holding one of the words, ascending: the match of their OR. */
  rowids: Int32Array;
  /** By rowid: the negated bm25 (higher is better), 0 for a document without the words. */
  scoreOf: Float64Array;
}

/**
 * The score of every document holding one of the phrases, summed over the phrases in the
 * order FTS5 numbers them (their order in the MATCH expression). `lengths`: each document's
 * tokens by rowid; `avgdl`: the table's tokens over its rows, divided as FTS5 does.
 */
export function relevance(phrases: readonly { frequencies: PhraseFrequencies; idf: number }[], lengths: Int32Array, avgdl: number): Relevance {
  let highest = 0;
  for (const { frequencies } of phrases) highest = Math.max(highest, frequencies.rowids[frequencies.rowids.length - 1] ?? 0);
  const scoreOf = new Float64Array(highest + 1);
  const seen = new Uint8Array(highest + 1);
  let count = 0;
  for (const { frequencies, idf } of phrases) {
    const { rowids, frequencies: f } = frequencies;
    for (let i = 0; i < rowids.length; i++) {
      const rowid = rowids[i] as number;
      const freq = f[i] as number;
      // FTS5's row size: 0 for a document written since the lengths were read.
      const D = rowid < lengths.length ? (lengths[rowid] as number) : 0;
      scoreOf[rowid] = (scoreOf[rowid] as number) + idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + (B * D) / avgdl)));
      if (seen[rowid] === 0) {
        seen[rowid] = 1;
        count++;
      }
    }
  }
  const rowids = new Int32Array(count);
  for (let rowid = 0, n = 0; rowid <= highest; rowid++) if (seen[rowid] === 1) rowids[n++] = rowid;
  return { rowids, scoreOf };
}
