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

import { runSteps, type Steps } from '@krs/domain/search';

const K1 = 1.2;
const B = 0.75;

/** The column weights of the index's bm25 call: `bm25(doc_fts, 2.0, 1.0, 0.0)`. */
export const TITLE_WEIGHT = 2;
export const TEXT_WEIGHT = 1;

/** One word's occurrences, each `rowid * 4 + the column's weight`, in any order. */
export type Occurrences = Int32Array;

/**
 * The occurrences ordered by document (FTS5 lists one word's that way already: sorted only if
 * not), and how many documents they are in.
 */
function byDocument(occurrences: Occurrences): { codes: Int32Array; documents: number } {
  let ordered = true;
  let documents = occurrences.length === 0 ? 0 : 1;
  // Typed-array reads below are in bounds: `as number` spares a check per element.
  for (let i = 1; i < occurrences.length; i++) {
    const before = (occurrences[i - 1] as number) >> 2;
    const here = (occurrences[i] as number) >> 2;
    if (here < before) ordered = false;
    if (here !== before) documents++;
  }
  if (ordered) return { codes: occurrences, documents };
  const codes = Int32Array.from(occurrences).sort();
  documents = codes.length === 0 ? 0 : 1;
  for (let i = 1; i < codes.length; i++) if ((codes[i] as number) >> 2 !== (codes[i - 1] as number) >> 2) documents++;
  return { codes, documents };
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
 * order FTS5 numbers them (their order in the MATCH expression). `idfOf`: a phrase's IDF from
 * the documents holding it; `lengths`: each document's tokens by rowid; `avgdl`: the table's
 * tokens over its rows, divided as FTS5 does.
 */
export function relevance(phrases: readonly Occurrences[], idfOf: (hits: number) => number, lengths: Int32Array, avgdl: number): Relevance {
  return runSteps(relevanceSteps(phrases, idfOf, lengths, avgdl));
}

/** Occurrences scored between two turns of the event loop: a few milliseconds' work. */
const OCCURRENCES_PER_STEP = 1 << 16;

/** `relevance`, yielding after each phrase and every `OCCURRENCES_PER_STEP` occurrences. */
export function* relevanceSteps(
  phrases: readonly Occurrences[],
  idfOf: (hits: number) => number,
  lengths: Int32Array,
  avgdl: number,
): Steps<Relevance> {
  let highest = 0;
  for (const list of phrases) for (let i = 0; i < list.length; i++) highest = Math.max(highest, (list[i] as number) >> 2);
  const scoreOf = new Float64Array(highest + 1);
  for (const phrase of phrases) {
    const { codes, documents } = byDocument(phrase);
    yield;
    const idf = idfOf(documents);
    // FTS5's f(qi, D): the weights of the document's occurrences, summed, then scored once.
    let freq = 0;
    for (let i = 0; i < codes.length; i++) {
      if (i > 0 && i % OCCURRENCES_PER_STEP === 0) yield;
      const code = codes[i] as number;
      freq += code & 3;
      const rowid = code >> 2;
      if (i + 1 < codes.length && (codes[i + 1] as number) >> 2 === rowid) continue;
      // FTS5's row size: 0 for a document written since the lengths were read.
      const D = rowid < lengths.length ? (lengths[rowid] as number) : 0;
      scoreOf[rowid] = (scoreOf[rowid] as number) + idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + (B * D) / avgdl)));
      freq = 0;
    }
  }
  let count = 0;
  for (let rowid = 0; rowid <= highest; rowid++) if ((scoreOf[rowid] as number) > 0) count++;
  const rowids = new Int32Array(count);
  for (let rowid = 0, n = 0; rowid <= highest; rowid++) if ((scoreOf[rowid] as number) > 0) rowids[n++] = rowid;
  return { rowids, scoreOf };
}
