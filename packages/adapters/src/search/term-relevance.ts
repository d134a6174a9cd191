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
import { ScratchArrays } from './scratch-arrays.ts';

const K1 = 1.2;
const B = 0.75;

/**
 * One word's occurrences, each `rowid * 4 + the column's weight`, in any order; a code of weight
 * 3 is one occurrence in the title (2) and one in the text (1) of its document, as the decoder
 * gives them (fts5-doclist.ts).
 */
export type Occurrences = Int32Array;

/**
 * A word's occurrences in the `instance` vocabulary (`doc_instance`), as `Occurrences`: what the
 * reader threads decode from FTS5's segments (fts5-doclist.ts), read this way when they cannot;
 * with the column weights of the index's bm25 call (`bm25(doc_fts, 2.0, 1.0, 0.0)`). The weight is
 * the column name's length less three (title 2, text 1), cheaper than a `CASE` on the
 * name (a word in 57 000 documents: 9.7 against 10.6 ms of a reader thread). Words
 * scored this way never reach the `paths` column (see `singleWordPhrases`), so no condition on
 * the column is needed (one halved the read's speed).
 */
export const OCCURRENCES_SQL = 'SELECT doc * 4 + length(col) - 3 FROM doc_instance WHERE term = ?';

/**
 * The occurrences in the column of weight `weight` (2, the title, or 1, the text) alone: codes
 * of weight 3 hold one of each.
 */
export function weightedAs(occurrences: Occurrences, weight: 1 | 2): Occurrences {
  let count = 0;
  for (let i = 0; i < occurrences.length; i++) if (((occurrences[i] as number) & weight) !== 0) count++;
  const out = new Int32Array(count);
  let n = 0;
  for (let i = 0; i < occurrences.length; i++) {
    const code = occurrences[i] as number;
    if ((code & weight) !== 0) out[n++] = (code & ~3) | weight;
  }
  return out;
}

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

/** The highest document of occurrences ordered by document: the last one's. */
const lastDocument = (codes: Int32Array): number => (codes.length === 0 ? 0 : (codes[codes.length - 1] as number) >> 2);

/**
 * FTS5's IDF of a phrase found in `hits` of `rows` documents; `ln` must be SQLite's own (the
 * C library's `log`), so the value is the one bm25 uses to the last bit.
 */
export function inverseDocumentFrequency(rows: number, hits: number, ln: (x: number) => number): number {
  const idf = ln((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** Both arrays are the scratch arrays' when a set was given: valid until the caller gives it back. */
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
export function relevance(phrases: readonly Occurrences[], idfOf: (hits: number) => number, lengths: Int32Array, avgdl: number, scratch?: ScratchArrays): Relevance {
  return runSteps(relevanceSteps(phrases, idfOf, lengths, avgdl, scratch));
}

/** Occurrences scored between two chances to give the event loop back: a fraction of a millisecond's work (four times as many overran the search's half-millisecond slices). */
const OCCURRENCES_PER_STEP = 1 << 14;

/** `relevance`, yielding after each phrase and every `OCCURRENCES_PER_STEP` occurrences. */
export function* relevanceSteps(
  phrases: readonly Occurrences[],
  idfOf: (hits: number) => number,
  lengths: Int32Array,
  avgdl: number,
  scratch: ScratchArrays = new ScratchArrays(),
): Steps<Relevance> {
  const only = phrases.length === 1 ? (phrases[0] as Occurrences) : null;
  const one = only === null ? null : yield* onePhraseSteps(only, idfOf, lengths, avgdl, scratch);
  if (one !== null) return one;
  // Ordered first: the highest document is then each list's last, with no pass of its own
  // (a pass over a million occurrences is a few milliseconds here).
  const ordered: { codes: Int32Array; documents: number }[] = [];
  for (const phrase of phrases) {
    ordered.push(byDocument(phrase));
    yield;
  }
  let highest = 0;
  for (const { codes } of ordered) highest = Math.max(highest, lastDocument(codes));
  const scoreOf = scratch.scores(highest + 1);
  for (const { codes, documents } of ordered) {
    const idf = idfOf(documents);
    for (let from = 0; from < codes.length; ) {
      yield;
      from = scoreRange(codes, from, from + OCCURRENCES_PER_STEP, idf, lengths, avgdl, scoreOf);
    }
  }
  return { rowids: scored(scoreOf, scratch), scoreOf };
}

/** bm25's factor of a document holding the phrase with weights summing to `freq`, before the IDF. */
function documentPart(freq: number, rowid: number, lengths: Int32Array, avgdl: number): number {
  // FTS5's row size: 0 for a document written since the lengths were read.
  const D = rowid < lengths.length ? (lengths[rowid] as number) : 0;
  return (freq * (K1 + 1.0)) / (freq + K1 * (1 - B + (B * D) / avgdl));
}

/** Documents listed so far by a one-phrase scoring, each rowid once, in order. */
interface Listed {
  rowids: Int32Array;
  documents: number;
  /** The last document listed (-1 before the first). */
  last: number;
}

/**
 * Adds the phrase's part of the score of the documents whose occurrences start at `from` and
 * before `to` (the last one read to its end), and says where the next step starts. A plain
 * function called per step, as the header table's passes are: the hot loop stays out of the
 * generator's body. Document by document, a document's occurrences summed in a loop of their
 * own (FTS5's f(qi, D): their weights summed, then scored once): at a million documents a
 * word's two million occurrences in 950 206 of them scored in 10.6-11.1 ms of CPU where a
 * check per occurrence for the end of its document took 12.6-12.7.
 */
function scoreRange(codes: Int32Array, from: number, to: number, idf: number, lengths: Int32Array, avgdl: number, scoreOf: Float64Array): number {
  const end = codes.length;
  let i = from;
  while (i < end) {
    let code = codes[i] as number;
    const rowid = code >> 2;
    let freq = code & 3;
    i++;
    while (i < end && ((code = codes[i] as number) >> 2) === rowid) {
      freq += code & 3;
      i++;
    }
    scoreOf[rowid] = (scoreOf[rowid] as number) + idf * documentPart(freq, rowid, lengths, avgdl);
    if (i >= to) break;
  }
  return i;
}

/**
 * `scoreRange` for one phrase: sets each document's part without the IDF and lists its rowid,
 * or returns -1 at a document listed after a later one (occurrences not ordered by document).
 * The list's count and last rowid are held in locals while the step runs.
 */
function listedRange(codes: Int32Array, from: number, to: number, lengths: Int32Array, avgdl: number, scoreOf: Float64Array, listed: Listed): number {
  const end = codes.length;
  const rowids = listed.rowids;
  let documents = listed.documents;
  let last = listed.last;
  let i = from;
  while (i < end) {
    let code = codes[i] as number;
    const rowid = code >> 2;
    let freq = code & 3;
    i++;
    while (i < end && ((code = codes[i] as number) >> 2) === rowid) {
      freq += code & 3;
      i++;
    }
    // Read from no array: one sized by the last occurrence's document may be too short for an earlier one.
    if (rowid <= last) return -1;
    last = rowid;
    scoreOf[rowid] = documentPart(freq, rowid, lengths, avgdl);
    rowids[documents++] = rowid;
    if (i >= to) break;
  }
  listed.documents = documents;
  listed.last = last;
  return i;
}

/**
 * The rowids with a score, ascending. Each rowid is written and the count moved on by whether it
 * scores, without a branch: which documents hold a fuzzy word's expansions follows no pattern a
 * branch predictor learns (at a million documents, 395 128 scored with 477 753 changes between
 * scored and not), and the branch cost the pass 4.9 ms where this takes 2.0.
 */
function scored(scoreOf: Float64Array, scratch: ScratchArrays): Int32Array {
  const rowids = scratch.rows(scoreOf.length);
  let n = 0;
  for (let rowid = 0; rowid < scoreOf.length; rowid++) {
    rowids[n] = rowid;
    n += +((scoreOf[rowid] as number) > 0);
  }
  return rowids.subarray(0, n);
}

/**
 * `relevanceSteps` for one phrase whose occurrences are ordered by document (a word's from its
 * doclist): each document's part of the score is computed while its rowid is listed, in the
 * pass that counts the documents, and multiplied by the IDF once the count is known. With
 * one phrase a document's score is `0 + idf * part`, so the product is the same double. The
 * general path counts the documents in a pass of its own and lists the scored rowids in another
 * over every rowid below the highest: for a word in 548 446 of a million documents, 20 of its
 * 35 ms. Null when the occurrences turn out not to be ordered by document: the general path
 * then scores them. (Checked while scoring: a pass of its own over the two million codes of
 * a word in 950 206 of a million documents cost 10 ms.)
 */
function* onePhraseSteps(codes: Int32Array, idfOf: (hits: number) => number, lengths: Int32Array, avgdl: number, scratch: ScratchArrays): Steps<Relevance | null> {
  yield;
  const scoreOf = scratch.scores(lastDocument(codes) + 1);
  const rowids = scratch.rows(scoreOf.length);
  const listed: Listed = { rowids, documents: 0, last: -1 };
  for (let from = 0; from < codes.length; ) {
    yield;
    from = listedRange(codes, from, from + OCCURRENCES_PER_STEP, lengths, avgdl, scoreOf, listed);
    if (from < 0) return null;
  }
  const idf = idfOf(listed.documents);
  let n = 0;
  for (let from = 0; from < listed.documents; from += OCCURRENCES_PER_STEP) {
    yield;
    n = scaledRange(rowids, from, Math.min(listed.documents, from + OCCURRENCES_PER_STEP), idf, scoreOf, n);
  }
  return { rowids: rowids.subarray(0, n), scoreOf };
}

/**
 * The listed documents' parts from `from` to `to` times the IDF, each kept (after the `kept`
 * already kept) when it scores, as the general path keeps only rows scoring above 0.
 */
function scaledRange(rowids: Int32Array, from: number, to: number, idf: number, scoreOf: Float64Array, kept: number): number {
  let n = kept;
  for (let k = from; k < to; k++) {
    const rowid = rowids[k] as number;
    const score = idf * (scoreOf[rowid] as number);
    scoreOf[rowid] = score;
    if (score > 0) rowids[n++] = rowid;
  }
  return n;
}

/** One phrase of an AND: its occurrences in the documents holding every phrase, and how many documents hold it. */
export interface PhraseOccurrences {
  codes: Occurrences;
  documents: number;
}

/**
 * The phrases of `fts5Phrases`'s answer (fts5-doclist.ts): `[k, documents (k), codes (k), the
 * codes]`, each phrase's codes a view of it.
 */
export function unpackPhrases(packed: Int32Array): PhraseOccurrences[] {
  const k = packed[0] ?? 0;
  const phrases: PhraseOccurrences[] = [];
  let at = 1 + 2 * k;
  for (let p = 0; p < k; p++) {
    const length = packed[1 + k + p] as number;
    phrases.push({ codes: packed.subarray(at, at + length), documents: packed[1 + p] as number });
    at += length;
  }
  return phrases;
}

/**
 * bm25 of an AND of phrases, from each phrase's occurrences in the documents holding them all
 * (ordered by document, the same documents for every phrase) and the documents holding it
 * anywhere (its IDF's count, which the AND's documents alone do not give): FTS5 sums each
 * phrase's part in its order, `0 + idf0 * part0 + idf1 * part1 ...`, and so does this. One
 * phrase is one word's case (`relevanceSteps`), its count its documents'.
 */
export function* phrasesRelevanceSteps(
  phrases: readonly PhraseOccurrences[],
  idfOf: (hits: number) => number,
  lengths: Int32Array,
  avgdl: number,
  scratch: ScratchArrays = new ScratchArrays(),
): Steps<Relevance> {
  const [first] = phrases;
  if (first === undefined) return { rowids: new Int32Array(0), scoreOf: scratch.scores(0) };
  // One phrase's codes are listed by document; were they not, the loop below scores them.
  const one = phrases.length === 1 ? yield* onePhraseSteps(first.codes, idfOf, lengths, avgdl, scratch) : null;
  if (one !== null) return one;
  const scoreOf = scratch.scores(lastDocument(first.codes) + 1);
  for (const { codes, documents } of phrases) {
    const idf = idfOf(documents);
    for (let from = 0; from < codes.length; ) {
      yield;
      from = scoreRange(codes, from, from + OCCURRENCES_PER_STEP, idf, lengths, avgdl, scoreOf);
    }
  }
  // Every phrase lists the same documents: the first one's, each once.
  const rowids = scratch.rows(first.codes.length);
  let n = 0;
  for (let i = 0; i < first.codes.length; i++) {
    const rowid = (first.codes[i] as number) >> 2;
    if (n === 0 || rowids[n - 1] !== rowid) rowids[n++] = rowid;
  }
  return { rowids: rowids.subarray(0, n), scoreOf };
}
