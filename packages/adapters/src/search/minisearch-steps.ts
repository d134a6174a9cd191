/**
 * MiniSearch's `add` and `remove` of one document in steps, with turns of the event loop between
 * them: the largest legal record's words took 355-564 ms of CPU to add and as long to remove, in
 * one go. Follows minisearch 7.2.0's internals (`add`: `addDocumentId`, `addFieldLength`,
 * `addTerm`; `remove`: `removeFieldLength`, `removeTerm`), so the index ends exactly as `add` and
 * `remove` leave it (held to them by a seeded test).
 *
 * Between the steps the document is hidden: its postings are in the term tree, but its short id
 * is in `hidden`, and readers of postings skip it and do not count it (`visibleCount`). It is
 * shown, or hidden, in one synchronous step with its document count and field lengths: a search
 * sees it whole or not at all. Called one write at a time (the engine's writes are in order).
 */
import MiniSearch from 'minisearch';
import { tokenize } from '@krs/domain/search';
import type { Slicing } from '@krs/domain';
import { PATH_FIELDS } from './minisearch-saved-terms.ts';
import { forEachLine, withoutCodes } from './minisearch-value-lines.ts';

/** The document MiniSearch indexes: the engine's row, the title, and the words by value (minisearch-value-lines.ts). */
export interface IndexedText {
  id: number;
  title: string;
  text: string;
}

const TITLE_FIELD = 0;
const TEXT_FIELD = 1;

/** A document's words added but not yet shown. */
export interface Staged {
  short: number;
  /** Distinct words of the title and of the text, as `add` counts them for the field lengths. */
  lengths: [number, number];
}

/** Characters of the words taken in one step: about a millisecond of work, less on a quiet core. */
const PIECE_CHARS = 2048;

/**
 * A run of whole lines (`code` null: each line still has its code), or part of one long line's
 * words (`code` its path's code), cut where words meet.
 */
interface Piece {
  code: number | null;
  text: string;
}

/** Cuts the lines into pieces of about `PIECE_CHARS`, calling `each` on each in order with a turn between when due. */
async function inPieces(lines: string, slicing: Slicing, each: (piece: Piece) => void): Promise<void> {
  for (let at = 0; at < lines.length; ) {
    if (slicing.due()) await slicing.turn();
    let lineEnd = lines.indexOf('\n', at);
    if (lineEnd === -1) lineEnd = lines.length;
    if (lineEnd - at <= 2 * PIECE_CHARS) {
      // Whole lines up to the piece's size, stopping before a long one.
      let end = lineEnd;
      while (end < lines.length && end - at < PIECE_CHARS) {
        let next = lines.indexOf('\n', end + 1);
        if (next === -1) next = lines.length;
        if (next - end > 2 * PIECE_CHARS) break;
        end = next;
      }
      each({ code: null, text: lines.slice(at, end) });
      at = end + 1;
      continue;
    }
    // A long value: its words in parts, each ending where a word does.
    const bar = lines.indexOf('|', at);
    const code = Number(lines.slice(at, bar));
    for (let start = bar + 1; start < lineEnd; ) {
      if (slicing.due()) await slicing.turn();
      let cut = lines.indexOf(' ', Math.min(start + PIECE_CHARS, lineEnd));
      if (cut === -1 || cut > lineEnd) cut = lineEnd;
      each({ code, text: lines.slice(start, cut) });
      start = cut;
    }
    at = lineEnd + 1;
  }
}

/** The piece's words as the text field tokenizes them. */
const textTokens = (piece: Piece): string[] => tokenize(piece.code === null ? withoutCodes(piece.text) : piece.text);

/** Calls `each` with every path code and word of the piece. */
function eachPathWord(piece: Piece, each: (code: number, word: string) => void): void {
  const words = (code: number, text: string) => {
    for (const word of text.split(' ')) if (word !== '') each(code, word);
  };
  if (piece.code === null) forEachLine(piece.text, words);
  else words(piece.code, piece.text);
}

export class MiniSearchInSteps extends MiniSearch<IndexedText> {
  /** Short ids of documents being added or removed in steps: their postings count for no search. */
  protected readonly hidden = new Set<number>();
  /**
   * Counts the steps that may have added words to the term tree or taken some out: a walk of the
   * tree with turns between its steps is walked again when this moved meanwhile.
   */
  protected treeChanges = 0;

  /** A posting map's size without the hidden documents' postings. */
  protected visibleCount(postings: Map<number, number>): number {
    let size = postings.size;
    if (this.hidden.size > 0) for (const short of this.hidden) if (postings.has(short)) size--;
    return size;
  }

  /** Each path's words of the text filed under the path's field, as a posting of frequency 1. */
  protected addPathPostings(short: number, piece: Piece): void {
    this.treeChanges++;
    eachPathWord(piece, (code, word) => {
      const data = this._index.fetch(word, () => new Map());
      const fieldId = PATH_FIELDS + code;
      let postings = data.get(fieldId);
      if (postings === undefined) data.set(fieldId, (postings = new Map()));
      postings.set(short, 1);
    });
  }

  protected removePathPostings(short: number, piece: Piece): void {
    this.treeChanges++;
    eachPathWord(piece, (code, word) => {
      const fieldId = PATH_FIELDS + code;
      const data = this._index.get(word);
      const postings = data?.get(fieldId);
      if (data === undefined || postings === undefined || !postings.delete(short) || postings.size > 0) return;
      data.delete(fieldId);
      if (data.size === 0) this._index.delete(word);
    });
  }

  /**
   * `add`'s words (the title's, the text's, then each path's), under the next short id, hidden.
   * The short id is taken now, as `add` would take it: writes come one at a time.
   */
  protected async addHidden(doc: Omit<IndexedText, 'id'>, slicing: Slicing): Promise<Staged> {
    const short = this._nextId++;
    this.hidden.add(short);
    const titleTokens = tokenize(doc.title);
    for (const term of titleTokens) this.addTermOf(TITLE_FIELD, short, term);
    const distinct = new Set<string>();
    await inPieces(doc.text, slicing, (piece) => {
      for (const term of textTokens(piece)) {
        distinct.add(term);
        this.addTermOf(TEXT_FIELD, short, term);
      }
    });
    await inPieces(doc.text, slicing, (piece) => this.addPathPostings(short, piece));
    return { short, lengths: [new Set(titleTokens).size, distinct.size] };
  }

  /** `addDocumentId` and `addFieldLength` of a staged document: from now on searches see it. */
  protected showStaged(staged: Staged, id: number): void {
    this._idToShortId.set(id, staged.short);
    this._documentIds.set(staged.short, id);
    this._documentCount += 1;
    for (const fieldId of [TITLE_FIELD, TEXT_FIELD]) {
      const length = staged.lengths[fieldId] ?? 0;
      let fieldLengths = this._fieldLength.get(staged.short);
      if (fieldLengths === undefined) this._fieldLength.set(staged.short, (fieldLengths = []));
      fieldLengths[fieldId] = length;
      const count = this._documentCount - 1;
      const average = this._avgFieldLength[fieldId] || 0;
      this._avgFieldLength[fieldId] = (average * count + length) / (count + 1);
    }
    this.hidden.delete(staged.short);
  }

  /**
   * What `remove` does besides taking the words out (`removeFieldLength`, the id maps, the
   * count), in one step: from now on no search sees the document. Returns its short id, whose
   * postings `removeHidden` takes out; undefined when the id is not held.
   */
  protected hideHeld(id: number): number | undefined {
    const short = this._idToShortId.get(id);
    if (short === undefined) return undefined;
    const lengths = this._fieldLength.get(short) ?? [];
    for (const fieldId of [TITLE_FIELD, TEXT_FIELD]) {
      const length = lengths[fieldId];
      if (length === undefined) continue;
      if (this._documentCount === 1) this._avgFieldLength[fieldId] = 0;
      else this._avgFieldLength[fieldId] = ((this._avgFieldLength[fieldId] ?? 0) * this._documentCount - length) / (this._documentCount - 1);
    }
    this._storedFields.delete(short);
    this._documentIds.delete(short);
    this._idToShortId.delete(id);
    this._fieldLength.delete(short);
    this._documentCount -= 1;
    this.hidden.add(short);
    return short;
  }

  /** A hidden document's postings taken out as `drop` takes them: each path's, then `remove`'s words of the title and the text. */
  protected async removeHidden(short: number, doc: IndexedText, slicing: Slicing): Promise<void> {
    await inPieces(doc.text, slicing, (piece) => this.removePathPostings(short, piece));
    for (const term of tokenize(doc.title)) this.removeTermOf(TITLE_FIELD, short, term);
    await inPieces(doc.text, slicing, (piece) => {
      for (const term of textTokens(piece)) this.removeTermOf(TEXT_FIELD, short, term);
    });
    this.hidden.delete(short);
  }

  /** `addTerm` (private in MiniSearch). */
  private addTermOf(fieldId: number, short: number, term: string): void {
    this.treeChanges++;
    const data = this._index.fetch(term, () => new Map());
    const postings = data.get(fieldId);
    if (postings === undefined) data.set(fieldId, new Map([[short, 1]]));
    else postings.set(short, (postings.get(short) ?? 0) + 1);
  }

  /** `removeTerm` (private in MiniSearch), for words known to be there: with one lookup instead of three. */
  private removeTermOf(fieldId: number, short: number, term: string): void {
    this.treeChanges++;
    const data = this._index.get(term);
    const postings = data?.get(fieldId);
    const frequency = postings?.get(short);
    if (data === undefined || postings === undefined || frequency === undefined) return;
    if (frequency > 1) postings.set(short, frequency - 1);
    else if (postings.size <= 1) data.delete(fieldId);
    else postings.delete(short);
    if (data.size === 0) this._index.delete(term);
  }
}
