/**
 * MiniSearch's index of the documents' words, read without `search()`. `search()` builds an
 * object per matching document (its score, the words it matched, a match table) and sorts them
 * all: for a word in half of 100k documents that alone took about 100 ms. Here a word's postings
 * are read from MiniSearch's own term tree and scored into arrays indexed by the engine's row
 * numbers, with MiniSearch's BM25+ and weights, term by term in the order `search()` adds them,
 * so every score is the one `search()` gives, bit for bit.
 *
 * The documents' ids are the engine's row numbers; MiniSearch's own short ids map to them
 * through a typed array kept by `put` and `drop`.
 *
 * Field queries (`metadata.description:glacier`) read the same term tree: beside a word's
 * postings in the title and text columns, each path's values' words are postings of a field of
 * their own, numbered `PATH_FIELDS` + the path's code (`text` holds each value's words with its
 * path's code, minisearch-value-lines.ts). A prefix or fuzzy word on a field is expanded once, as
 * on all fields, and its postings read in the paths the field names; no body is read. Their
 * frequency is not kept (1): only which rows hold a word in a path is asked.
 */
import type { Options } from 'minisearch';
import type { Slicing } from '@krs/domain';
import { tokenize } from '@krs/domain/search';
import type { RowArrays } from './row-arrays.ts';
import { exportTerms, PATH_FIELDS, postingStarts, savedTermTree, type TermData } from './minisearch-saved-terms.ts';
import { MiniSearchInSteps, type IndexedText, type Staged } from './minisearch-steps.ts';
import { withoutCodes, type FieldPaths } from './minisearch-value-lines.ts';
import { fuzzyFind, FuzzyWalk, type FuzzyFound } from './minisearch-fuzzy-walk.ts';

export type { IndexedText, Staged } from './minisearch-steps.ts';

export type TextField = 'title' | 'text';
export const TITLE_AND_TEXT: readonly TextField[] = ['title', 'text'];
export const TITLE_ONLY: readonly TextField[] = ['title'];

const OPTIONS: Options<IndexedText> = {
  fields: ['title', 'text'],
  // The same words the evaluator sees, so a hit on a plain term is an exact answer.
  tokenize: (text, field) => tokenize(field === 'text' ? withoutCodes(text) : text),
  processTerm: (term) => term,
  // Removed documents are removed word by word (`drop`), so there is nothing to vacuum.
  autoVacuum: false,
};

/** MiniSearch's defaults and the title's boost, as `search()` applied them. */
const BOOST: Record<TextField, number> = { title: 2, text: 1 };
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;

/** A word of the index a query word stands for, with the weight `search()` gives it. */
interface Derived {
  term: string;
  weight: number;
  data: TermData;
}

export type WordMatch = 'exact' | 'prefix' | 'fuzzy';

/**
 * Called between steps of a search's reading (a query word's expansion, a derived word's
 * postings): gives the loop back when the slice is due, and returns nothing when it is not, so
 * the many steps of a short slice cost a look at the clock, not a promise each
 * (`await takeTurn()` takes both; hot loops await only what they are given). The caller answers
 * for what a write shown meanwhile changes (minisearch-index.ts starts over); documents staged or
 * purged in steps meanwhile change nothing a search reads, since their postings are hidden
 * (minisearch-steps.ts).
 */
export type TakeTurn = () => Promise<void> | undefined;

/** Steps of a word's expansion (nodes of a fuzzy walk, words of a prefix) between two looks at the slice. */
const WALK_STEPS_PER_TURN = 64;

/** No turn: the whole reading in one piece. */
const atOnce: TakeTurn = () => undefined;

/**
 * Rows a query word or words matched: `marks[row]` is 1 for each, `scores[row]` its score there
 * (0 elsewhere, which the search's scores rely on). `hits` lists every row marked, and may still
 * list some unmarked since: passes over the matches read it, not every row of the index (a word
 * in a twentieth of 100k documents was read in 100k steps per pass).
 */
export interface Scored {
  marks: Uint8Array;
  scores: Float64Array;
  count: number;
  hits: Int32Array;
}

/** A field a query's words are looked for in, as the evaluator reads it (see `rowsInField`). */
export interface FieldScope extends FieldPaths {
  /** By row, 1 where the field's own path holds values beside members with values: its own values alone count. */
  mixed: Uint8Array | null;
}

/** The index as arrays, for a snapshot. */
export interface TextState {
  /** Documents, next short id, dirt count. */
  scalars: [number, number, number];
  averages: Float64Array;
  /** Short id and row of each document. */
  documents: Int32Array;
  /** Its title's and text's lengths (-1: none). */
  lengths: Int32Array;
  terms: string[];
  /** Per term: its postings as `SavedTerms` has them. */
  postings: Int32Array;
}

/**
 * `termResults` of one word in one field after another, into arrays: `add` is given each posting
 * in turn, one function for all of them.
 */
class PostingsPass {
  private boost = 0;
  private average = 0;
  private lengths: Int32Array = new Int32Array(0);
  private matching = 0;
  private idf = 0;

  constructor(
    readonly into: Scored,
    private readonly rowOf: Int32Array,
    private readonly hidden: ReadonlySet<number>,
    private readonly documents: number,
  ) {}

  field(boost: number, average: number, lengths: Int32Array, matching: number): void {
    this.boost = boost;
    this.average = average;
    this.lengths = lengths;
    this.matching = matching;
    this.idf = Math.log(1 + (this.documents - matching + 0.5) / (matching + 0.5));
  }

  readonly add = (frequency: number, short: number): void => {
    const row = this.rowOf[short] ?? -1;
    if (row < 0) {
      if (this.hidden.has(short)) return;
      // As MiniSearch counts a posting of a document gone: one fewer for the rest.
      this.matching -= 1;
      this.idf = Math.log(1 + (this.documents - this.matching + 0.5) / (this.matching + 0.5));
      return;
    }
    const length = this.lengths[short] ?? 0;
    const raw = this.idf * (BM25_D + (frequency * (BM25_K + 1)) / (frequency + BM25_K * (1 - BM25_B + (BM25_B * length) / this.average)));
    const { marks, scores, hits } = this.into;
    if (marks[row] === 0) {
      marks[row] = 1;
      scores[row] = this.boost * raw;
      hits[this.into.count++] = row;
    } else scores[row] = (scores[row] ?? 0) + this.boost * raw;
  };
}

export class TextIndex extends MiniSearchInSteps {
  /** Row by MiniSearch's short id; -1 once the document is gone. */
  private rowOf = new Int32Array(1024).fill(-1);
  /** Each field's length by short id: MiniSearch's `_fieldLength` as arrays, read once per posting. */
  private lengths: Int32Array[] = [new Int32Array(1024), new Int32Array(1024)];

  constructor() {
    super(OPTIONS);
  }

  put(doc: IndexedText): void {
    this.treeChanges++;
    this.add(doc);
    const short = this._idToShortId.get(doc.id) ?? -1;
    this.ensure(short + 1);
    this.track(short, doc.id);
    this.addPathPostings(short, { code: null, text: doc.text });
  }

  /** `put` in steps, the document hidden from searches until `show` (minisearch-steps.ts). */
  async stage(doc: Omit<IndexedText, 'id'>, slicing: Slicing): Promise<Staged> {
    const staged = await this.addHidden(doc, slicing);
    this.ensure(staged.short + 1);
    return staged;
  }

  /** A staged document shown as the row's, in one step. */
  show(staged: Staged, row: number): void {
    this.showStaged(staged, row);
    this.track(staged.short, row);
  }

  /** The first step of `drop` in steps: the row's document leaves every search now; `purge` takes its words out after. */
  hide(row: number): number | undefined {
    const short = this.hideHeld(row);
    if (short !== undefined) this.rowOf[short] = -1;
    return short;
  }

  /** Takes a hidden document's words out in steps: `doc` must be the text `put` or `stage` was given. */
  async purge(short: number, doc: IndexedText, slicing: Slicing): Promise<void> {
    await this.removeHidden(short, doc, slicing);
  }

  private track(short: number, row: number): void {
    this.rowOf[short] = row;
    const lengths = this._fieldLength.get(short) ?? [];
    for (const [fieldId, column] of this.lengths.entries()) column[short] = lengths[fieldId] ?? 0;
  }

  private ensure(size: number): void {
    if (size <= this.rowOf.length) return;
    const capacity = Math.max(size, this.rowOf.length * 2);
    const rowOf = new Int32Array(capacity).fill(-1);
    rowOf.set(this.rowOf);
    this.rowOf = rowOf;
    this.lengths = this.lengths.map((old) => {
      const grown = new Int32Array(capacity);
      grown.set(old);
      return grown;
    });
  }

  /** Takes the document out word by word: it must be the text `put` was given. */
  drop(doc: IndexedText): void {
    this.treeChanges++;
    const short = this._idToShortId.get(doc.id);
    if (short !== undefined) this.removePathPostings(short, { code: null, text: doc.text });
    this.remove(doc);
    if (short !== undefined) this.rowOf[short] = -1;
  }

  empty(): void {
    this.treeChanges++;
    this.removeAll();
    this.hidden.clear();
    this.rowOf.fill(-1);
  }

  /**
   * The rows holding every one of `words` (AND), scored as `search(words, { combineWith: 'AND' })`
   * scores them. `fuzzyDistance`: the edit distance of each fuzzy word (0: the word alone).
   * `keep(word, derived)`: for fuzzy words, whether an indexed word counts towards the query
   * word; a row must hold, for every query word, some word kept for it.
   */
  async scoreAll(
    words: readonly string[],
    fields: readonly TextField[],
    match: WordMatch,
    capacity: number,
    arrays: RowArrays,
    fuzzyDistance: (word: string) => number = () => 0,
    keep: ((word: string, derived: string) => boolean) | null = null,
    field: FieldScope | null = null,
    takeTurn: TakeTurn = atOnce,
  ): Promise<Scored & { inField: Uint8Array | null }> {
    const expanded: Derived[][] = [];
    for (const w of words) {
      expanded.push(await this.derivedInSlices(w, match, fuzzyDistance, takeTurn));
      await takeTurn();
    }
    let total: Scored | null = null;
    for (const list of expanded) {
      const one = await this.scoreDerived(list, fields, capacity, arrays, takeTurn);
      if (total === null) total = one;
      else {
        const { marks, scores, hits } = total;
        let count = 0;
        for (const row of hits) {
          if (marks[row] === 0) continue;
          if (one.marks[row] === 0) {
            marks[row] = 0;
            scores[row] = 0;
            continue;
          }
          scores[row] = (scores[row] ?? 0) + (one.scores[row] ?? 0);
          count++;
        }
        total.count = count;
      }
    }
    const result = total ?? { marks: arrays.marks(capacity), scores: arrays.scores(capacity), count: 0, hits: new Int32Array(0) };
    if (keep !== null) await this.keepOnly(result, words, expanded.flat(), fields, keep, capacity, arrays, takeTurn);
    // `search()` multiplies by the number of distinct query words each result matched: all of them.
    const quality = new Set(words).size || 1;
    if (quality !== 1) for (const row of result.hits) if (result.marks[row] === 1) result.scores[row] = (result.scores[row] ?? 0) * quality;
    const kept = keep === null ? expanded : expanded.map((list, i) => list.filter((d) => keep(words[i] ?? '', d.term)));
    return { ...result, inField: field === null ? null : await this.rowsInField(kept, field, capacity, arrays, takeTurn) };
  }

  /**
   * The rows holding, for each query word, one of its words in the field: in its own path where
   * the row holds values there, else in any path below it, as the evaluator reads a field. A
   * count per row of the words found so far, in each of the two, stands for the AND.
   */
  private async rowsInField(expanded: readonly (readonly Derived[])[], field: FieldScope, capacity: number, arrays: RowArrays, takeTurn: TakeTurn): Promise<Uint8Array> {
    const own = arrays.rows(capacity).fill(0);
    const below = arrays.rows(capacity).fill(0);
    const rowOf = this.rowOf;
    for (const [i, list] of expanded.entries()) {
      for (const { data } of list) {
        for (const [fieldId, postings] of data) {
          const code = fieldId - PATH_FIELDS;
          const counts = code < 0 ? null : code === field.own ? own : field.below[code] === 1 ? below : null;
          if (counts === null) continue;
          for (const short of postings.keys()) {
            const row = rowOf[short] ?? -1;
            // Once per word, however many of its expansions the row holds.
            if (row >= 0 && counts[row] === i) counts[row] = i + 1;
          }
        }
        const turn = takeTurn();
        if (turn !== undefined) await turn;
      }
    }
    const all = expanded.length;
    const marks = arrays.marks(capacity);
    const mixed = field.mixed;
    for (let row = 0; row < capacity; row++) if (own[row] === all || (below[row] === all && mixed?.[row] !== 1)) marks[row] = 1;
    return marks;
  }

  /** Every row holding the word in a field, unscored. */
  rowsWith(word: string, fields: readonly TextField[], marks: Uint8Array): void {
    const data = this._index.get(word);
    if (data === undefined) return;
    for (const field of fields) {
      const postings = data.get(this._fieldIds[field] ?? -1);
      if (postings === undefined) continue;
      for (const short of postings.keys()) {
        const row = this.rowOf[short] ?? -1;
        if (row >= 0) marks[row] = 1;
      }
    }
  }

  /** The rows of the documents held. */
  *rows(): IterableIterator<number> {
    for (const row of this._documentIds.values()) yield Number(row);
  }

  /** What a snapshot keeps of the index, as arrays: see `minisearch-snapshot.ts`. */
  exportState(): TextState {
    const shorts: number[] = [];
    const lengths: number[] = [];
    for (const [short, row] of this._documentIds) {
      shorts.push(short, Number(row));
      const l = this._fieldLength.get(short) ?? [];
      lengths.push(l[0] ?? -1, l[1] ?? -1);
    }
    const terms: string[] = [];
    const postings: number[] = [];
    exportTerms(this._index._tree, this._index._prefix, terms, postings);
    return {
      scalars: [this._documentCount, this._nextId, this._dirtCount],
      averages: Float64Array.from(this._avgFieldLength),
      documents: Int32Array.from(shorts),
      lengths: Int32Array.from(lengths),
      terms,
      postings: Int32Array.from(postings),
    };
  }

  /** An index from `exportState`; throws on arrays that do not fit together. */
  static fromState(state: TextState): TextIndex {
    const index = new TextIndex();
    const [documentCount, nextId, dirtCount] = state.scalars;
    const { documents, lengths, postings, terms } = state;
    if (documents.length !== lengths.length || documents.length !== 2 * (documentCount ?? -1)) throw new Error('snapshot: document arrays disagree');
    index._documentCount = documentCount ?? 0;
    index._nextId = nextId ?? 0;
    index._dirtCount = dirtCount ?? 0;
    index._avgFieldLength = Array.from(state.averages);
    index.ensure(index._nextId);
    for (let i = 0; i < documents.length; i += 2) {
      const short = documents[i] ?? -1;
      const row = documents[i + 1] ?? -1;
      if (short < 0 || short >= index._nextId || row < 0) throw new Error('snapshot: bad document');
      index._documentIds.set(short, row);
      index._idToShortId.set(row, short);
      const l: number[] = [];
      if ((lengths[i] ?? -1) >= 0) l[0] = lengths[i] ?? 0;
      if ((lengths[i + 1] ?? -1) >= 0) l[1] = lengths[i + 1] ?? 0;
      index._fieldLength.set(short, l);
      index.track(short, row);
    }
    // The term tree is made a node at a time as it is first read, and each word's postings
    // stay in the snapshot's array until the word is first read or written (minisearch-saved-terms.ts).
    const saved = { terms, starts: postingStarts(terms.length, postings), postings };
    index._index = new (index._index.constructor as new (tree: Map<string, unknown>) => typeof index._index)(savedTermTree(saved));
    return index;
  }

  /**
   * The indexed words a query word stands for, in the order `executeQuerySpec` scores them, with
   * a look at the slice every `WALK_STEPS_PER_TURN` steps: a one-letter prefix stands for
   * thousands of words, a fuzzy word's walk visits thousands of nodes. Words staged or purged in
   * steps meanwhile may change the tree's shape under the walk: then it is walked again, at once.
   */
  private async derivedInSlices(word: string, match: WordMatch, fuzzyDistance: (word: string) => number, takeTurn: TakeTurn): Promise<Derived[]> {
    const changes = this.treeChanges;
    const distance = match === 'fuzzy' ? fuzzyDistance(word) : 0;
    let fuzzy: FuzzyFound | null = null;
    if (distance > 0) {
      const walk = new FuzzyWalk(this._index._tree, word, distance);
      while (!walk.run(WALK_STEPS_PER_TURN)) {
        const turn = takeTurn();
        if (turn === undefined) continue;
        await turn;
        if (this.treeChanges !== changes) return this.derived(word, match, fuzzyFind(this._index._tree, word, distance), null);
      }
      fuzzy = walk.found;
    }
    const prefixed = match === 'prefix' ? this._index.atPrefix(word) : null;
    if (prefixed === null) return this.derived(word, match, fuzzy, null);
    const words: [string, TermData][] = [];
    for (const entry of prefixed) {
      words.push(entry);
      if (words.length % WALK_STEPS_PER_TURN !== 0) continue;
      const turn = takeTurn();
      if (turn === undefined) continue;
      await turn;
      if (this.treeChanges !== changes) return this.derived(word, match, null, null);
    }
    return this.derived(word, match, fuzzy, words);
  }

  /**
   * The derived words of a query word from its fuzzy walk's words (none when not given: callers
   * walk again at once themselves when the tree changed under their walk) and its prefix's (read
   * at once when not given).
   */
  private derived(word: string, match: WordMatch, fuzzy: FuzzyFound | null, prefixWords: Iterable<[string, TermData]> | null): Derived[] {
    const out: Derived[] = [];
    const exact = this._index.get(word);
    if (exact !== undefined) out.push({ term: word, weight: 1, data: exact });
    const prefixed = match === 'prefix' ? (prefixWords ?? this._index.atPrefix(word)) : null;
    if (prefixed !== null) {
      for (const [term, data] of prefixed) {
        const length = term.length - word.length;
        if (length === 0) continue;
        fuzzy?.delete(term);
        out.push({ term, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * length), data });
      }
    }
    if (fuzzy !== null) {
      for (const [term, [data, d]] of fuzzy) {
        if (d === 0) continue;
        out.push({ term, weight: (FUZZY_WEIGHT * term.length) / (term.length + d), data });
      }
    }
    return out;
  }

  /** `termResults` of each derived word in turn, into arrays. */
  private async scoreDerived(list: readonly Derived[], fields: readonly TextField[], capacity: number, arrays: RowArrays, takeTurn: TakeTurn): Promise<Scored> {
    const marks = arrays.marks(capacity);
    const scores = arrays.scores(capacity);
    // No more rows than postings.
    let postingsHeld = 0;
    for (const { data } of list) for (const field of fields) postingsHeld += data.get(this._fieldIds[field] ?? -1)?.size ?? 0;
    const pass = new PostingsPass({ marks, scores, count: 0, hits: arrays.rows(Math.min(capacity, postingsHeld)) }, this.rowOf, this.hidden, this._documentCount);
    for (const { weight, data } of list) {
      for (const field of fields) {
        const fieldId = this._fieldIds[field] ?? -1;
        const postings = data.get(fieldId);
        const lengths = this.lengths[fieldId];
        if (postings === undefined || lengths === undefined) continue;
        // A document added or removed in steps is not there yet, or any more.
        pass.field(weight * BOOST[field], this._avgFieldLength[fieldId] ?? 0, lengths, this.visibleCount(postings));
        // `forEach`: half the CPU of a for-of taking each entry apart, in the same order.
        postings.forEach(pass.add);
      }
      const turn = takeTurn();
      if (turn !== undefined) await turn;
    }
    const { count, hits } = pass.into;
    return { marks, scores, count, hits: hits.subarray(0, count) };
  }

  /** Drops the rows that do not hold, for each query word, an indexed word `keep` accepts for it. */
  private async keepOnly(
    result: Scored,
    words: readonly string[],
    derived: readonly Derived[],
    fields: readonly TextField[],
    keep: (word: string, derived: string) => boolean,
    capacity: number,
    arrays: RowArrays,
    takeTurn: TakeTurn,
  ): Promise<void> {
    for (const word of words) {
      const held = arrays.marks(capacity);
      const seen = new Set<string>();
      for (const d of derived) {
        if (seen.has(d.term) || !keep(word, d.term)) continue;
        seen.add(d.term);
        this.rowsWith(d.term, fields, held);
        const turn = takeTurn();
        if (turn !== undefined) await turn;
      }
      for (const row of result.hits) {
        if (result.marks[row] === 1 && held[row] === 0) {
          result.marks[row] = 0;
          result.scores[row] = 0;
          result.count--;
        }
      }
    }
  }
}
