/**
 * MiniSearch's term tree and postings as a snapshot saved them, read in on first use. Building
 * the tree word by word (`SearchableMap.set`, 680k words at 100k records) and a `Map` per word
 * was most of a restart's CPU and of its garbage collection, and most words (ids, dates, names)
 * are never asked for. Here a node of the tree is made from the saved words only when MiniSearch
 * or a search first reads it, and a word's postings when the word is first read or written.
 *
 * The snapshot lists the words in the order MiniSearch's iterator gives them, a depth-first walk
 * in which every subtree's words are contiguous. Inserting them in that order (as earlier
 * releases did) gives each node its children in the order they first appear in the list; a node
 * made here gives the same, so prefix and fuzzy expansions, and the scores summed in their order,
 * are the ones the tree built word by word gives.
 */
import SearchableMap from 'minisearch/SearchableMap';
import { FilledOnFirstUse } from './filled-on-first-use.ts';

type Postings = Map<number, number>;
/** A word's postings as MiniSearch keeps them: field id -> short id -> frequency. */
export type TermData = Map<number, Postings>;

/**
 * Field ids from this one on are the paths' (minisearch-text.ts): a row holds a word there or
 * not, its frequency is always 1, so a snapshot keeps their short ids alone (half the bytes).
 */
export const PATH_FIELDS = 2;

/** Numbers a field's postings take in a snapshot for each row. */
const savedWidth = (fieldId: number): number => (fieldId >= PATH_FIELDS ? 1 : 2);

/** The snapshot's words and postings: word `i`'s postings are `postings[starts[i]]` to `postings[starts[i + 1]]`. */
export interface SavedTerms {
  terms: readonly string[];
  starts: Int32Array;
  /**
   * Per word: fields, then per field its id, count and (short id, frequency) pairs, or short
   * ids alone from `PATH_FIELDS` on.
   */
  postings: Int32Array;
}

/**
 * Where each word's postings start in `postings` (one more entry: where the last ends); throws
 * when they do not cover the array exactly.
 */
export function postingStarts(terms: number, postings: Int32Array): Int32Array {
  const starts = new Int32Array(terms + 1);
  let at = 0;
  for (let i = 0; i < terms; i++) {
    starts[i] = at;
    let fields = postings[at++] ?? -1;
    if (fields < 0) throw new Error('snapshot: postings end early');
    for (; fields > 0; fields--) {
      const fieldId = postings[at] ?? -1;
      const n = postings[at + 1] ?? -1;
      if (fieldId < 0 || n < 0) throw new Error('snapshot: postings end early');
      at += 2 + savedWidth(fieldId) * n;
    }
    if (at > postings.length) throw new Error('snapshot: postings end early');
  }
  if (at !== postings.length) throw new Error('snapshot: postings left over');
  starts[terms] = at;
  return starts;
}

/** A word's postings, left in the snapshot's array until first used. */
export class SavedTermData extends FilledOnFirstUse<number, Postings> {
  private saved: SavedTerms | null;

  constructor(
    saved: SavedTerms,
    private readonly term: number,
  ) {
    super();
    this.saved = saved;
  }

  /** Appends the postings as a snapshot stores them, if still unread; false when read. */
  copyUnread(out: number[]): boolean {
    if (this.saved === null) return false;
    copyPostings(this.saved, this.term, out);
    return true;
  }

  protected fill(): void {
    const saved = this.saved;
    if (saved === null) return;
    this.saved = null;
    const { postings } = saved;
    let at = (saved.starts[this.term] ?? 0) + 1;
    for (let fields = postings[at - 1] ?? 0; fields > 0; fields--) {
      const fieldId = postings[at++] ?? 0;
      const freqs: Postings = new Map();
      const counted = savedWidth(fieldId) === 2;
      for (let n = postings[at++] ?? 0; n > 0; n--) {
        const short = postings[at++] ?? 0;
        freqs.set(short, counted ? (postings[at++] ?? 0) : 1);
      }
      this.put(fieldId, freqs);
    }
  }
}

function copyPostings(saved: SavedTerms, term: number, out: number[]): void {
  const end = saved.starts[term + 1] ?? 0;
  for (let at = saved.starts[term] ?? 0; at < end; at++) out.push(saved.postings[at] ?? 0);
}

/** The key MiniSearch's tree keeps a word's data under, in the node its path ends at. */
const LEAF = '';

/**
 * A node of the term tree over the saved words `lo` to `hi` (all sharing their first `depth`
 * characters, the path to this node), its children made on first use.
 */
class SavedTreeNode extends FilledOnFirstUse<string, unknown> {
  private saved: SavedTerms | null;

  constructor(
    saved: SavedTerms,
    private readonly lo: number,
    private readonly hi: number,
    private readonly depth: number,
  ) {
    super();
    this.saved = saved;
  }

  /** Appends the node's words and postings in the iterator's order, if still unread; false when read. */
  copyUnread(terms: string[], postings: number[]): boolean {
    const saved = this.saved;
    if (saved === null) return false;
    // The iterator walks each node's children last first: over a contiguous list, the list reversed.
    for (let i = this.hi - 1; i >= this.lo; i--) {
      terms.push(saved.terms[i] ?? '');
      copyPostings(saved, i, postings);
    }
    return true;
  }

  protected fill(): void {
    const saved = this.saved;
    if (saved === null) return;
    this.saved = null;
    const { terms } = saved;
    const { depth, hi } = this;
    const firsts = new Set<number>();
    let i = this.lo;
    while (i < hi) {
      const term = terms[i] ?? '';
      if (term.length === depth) {
        this.put(LEAF, new SavedTermData(saved, i++));
        continue;
      }
      // A child: the words next in the list with the same next character, its edge their common prefix.
      const first = term.charCodeAt(depth);
      if (firsts.has(first)) {
        // Not a depth-first list (the file was not written by a tree): the rest word by word.
        const tree = new SearchableMap<unknown>(this as unknown as ConstructorParameters<typeof SearchableMap<unknown>>[0]);
        for (; i < hi; i++) tree.set((terms[i] ?? '').slice(depth), new SavedTermData(saved, i));
        return;
      }
      firsts.add(first);
      let common = term.length;
      let j = i + 1;
      for (; j < hi; j++) {
        const other = terms[j] ?? '';
        if (other.length <= depth || other.charCodeAt(depth) !== first) break;
        let k = depth + 1;
        const bound = Math.min(common, other.length);
        while (k < bound && other.charCodeAt(k) === term.charCodeAt(k)) k++;
        common = k;
      }
      this.put(term.slice(depth, common), new SavedTreeNode(saved, i, j, common));
      i = j;
    }
  }
}

/** The term tree of the saved words, its nodes made on first use. */
export function savedTermTree(saved: SavedTerms): Map<string, unknown> {
  return new SavedTreeNode(saved, 0, saved.terms.length, 0);
}

/**
 * Appends every word of a term tree and its postings in the order MiniSearch's iterator gives
 * them (each node's children last first), without reading in what is still unread.
 */
export function exportTerms(node: Map<string, unknown>, prefix: string, terms: string[], postings: number[]): void {
  if (node instanceof SavedTreeNode && node.copyUnread(terms, postings)) return;
  const keys = [...node.keys()];
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] ?? LEAF;
    const child = node.get(key);
    if (key !== LEAF) {
      exportTerms(child as Map<string, unknown>, prefix + key, terms, postings);
      continue;
    }
    const data = child as TermData;
    terms.push(prefix);
    if (data instanceof SavedTermData && data.copyUnread(postings)) continue;
    postings.push(data.size);
    for (const [fieldId, freqs] of data) {
      postings.push(fieldId, freqs.size);
      if (savedWidth(fieldId) === 1) for (const short of freqs.keys()) postings.push(short);
      else for (const [short, frequency] of freqs) postings.push(short, frequency);
    }
  }
}
