/**
 * MiniSearch's `fuzzyGet` (minisearch 7.2.0, SearchableMap/fuzzySearch.ts) as a walk its caller
 * runs a number of nodes at a time, so it can give the loop back part way: the walk for one fuzzy
 * word enters about 4,800 nodes of the term tree at 100k records (every node two characters deep
 * is within two edits), about 5 ms of CPU by `fuzzyGet`. The same Levenshtein matrix, the same
 * pruning and the same order of visits, so it finds the same words, in the same order (the order
 * the scores of a word's expansions are summed in).
 *
 * The path from the root is kept on a stack of its own rather than in nested generators: a
 * generator per node cost a resumption of every generator above it at each step, a quarter more
 * CPU than `fuzzyGet`'s recursion.
 */
import type { TermData } from './minisearch-saved-terms.ts';

/** A node of MiniSearch's term tree: edge labels to child nodes, and '' to a word's postings. */
type TreeNode = Map<string, unknown>;

/** Indexed words within the distance, each with its postings and its edit distance. */
export type FuzzyFound = Map<string, [TermData, number]>;

const LEAF = '';

/**
 * A node on the path being walked: its edges still to visit, the matrix row its edges start on
 * (the path's length + 1), the path, and the first characters an edge needs to stay within the
 * distance (null: any may).
 */
interface Visit {
  node: TreeNode;
  keys: Iterator<string>;
  row: number;
  prefix: string;
  firsts: number[] | null;
}

export class FuzzyWalk {
  /** The words found so far; all of them once `run` has returned true. */
  readonly found: FuzzyFound = new Map();
  private readonly path: Visit[] = [];
  private readonly matrix: Uint8Array;
  /** The query's characters, compared as char codes as `fuzzyGet` compares one-character strings. */
  private readonly query: Uint16Array;
  /** Columns of the matrix. */
  private readonly n: number;

  constructor(
    tree: TreeNode,
    query: string,
    private readonly maxDistance: number,
  ) {
    // No word longer than the query by more than the distance matches.
    const n = query.length + 1;
    const m = n + maxDistance;
    this.n = n;
    this.query = new Uint16Array(query.length);
    for (let j = 0; j < query.length; j++) this.query[j] = query.charCodeAt(j);
    this.matrix = new Uint8Array(m * n).fill(maxDistance + 1);
    for (let j = 0; j < n; ++j) this.matrix[j] = j;
    for (let i = 1; i < m; ++i) this.matrix[i * n] = i;
    this.path.push({ node: tree, keys: tree.keys(), row: 1, prefix: '', firsts: this.firstsAt(1) });
  }

  /**
   * The characters an edge whose first character makes row `i` must start with: null when the
   * row may stay within the distance whatever the character. Where every cell of the row above
   * is at the distance already, only a character of the query matching one of them keeps a cell
   * there; most edges two or three characters down (ids' hex digits) are then dropped without
   * computing their row, as `fuzzyGet` would drop them after.
   */
  private firstsAt(i: number): number[] | null {
    const { matrix, n, maxDistance, query } = this;
    if (i <= maxDistance) return null;
    const prevRow = n * (i - 1);
    const jmin = Math.max(0, i - maxDistance - 1);
    const jmax = Math.min(n - 1, i + maxDistance);
    const firsts: number[] = [];
    for (let j = jmin; j < jmax; ++j) {
      const above = matrix[prevRow + j] ?? 0;
      if (above < maxDistance || (matrix[prevRow + j + 1] ?? 0) < maxDistance) return null;
      if (above === maxDistance) firsts.push(query[j] ?? 0);
    }
    return firsts;
  }

  /** Walks on until `nodes` more nodes were entered (false) or the walk is over (true). */
  run(nodes: number): boolean {
    const { path, matrix, query, n, maxDistance, found } = this;
    let entered = 0;
    while (path.length > 0) {
      const at = path[path.length - 1] as Visit;
      const next = at.keys.next();
      if (next.done === true) {
        path.pop();
        continue;
      }
      const key = next.value;
      if (key === LEAF) {
        const distance = matrix[at.row * n - 1] ?? maxDistance + 1;
        if (distance <= maxDistance) found.set(at.prefix, [at.node.get(key) as TermData, distance]);
        continue;
      }
      if (at.firsts !== null && !at.firsts.includes(key.charCodeAt(0))) continue;
      // Each character of the edge is a row of the matrix; once a row's least distance is over
      // the limit, nothing below the edge can match.
      let i = at.row;
      let within = true;
      for (let pos = 0; pos < key.length && within; ++pos, ++i) {
        const char = key.charCodeAt(pos);
        const thisRow = n * i;
        const prevRow = thisRow - n;
        let minDistance = matrix[thisRow] ?? 0;
        const jmin = Math.max(0, i - maxDistance - 1);
        const jmax = Math.min(n - 1, i + maxDistance);
        for (let j = jmin; j < jmax; ++j) {
          const rpl = (matrix[prevRow + j] ?? 0) + (char === query[j] ? 0 : 1);
          const del = (matrix[prevRow + j + 1] ?? 0) + 1;
          const ins = (matrix[thisRow + j] ?? 0) + 1;
          const dist = rpl < del ? (rpl < ins ? rpl : ins) : del < ins ? del : ins;
          matrix[thisRow + j + 1] = dist;
          if (dist < minDistance) minDistance = dist;
        }
        within = minDistance <= maxDistance;
      }
      if (!within) continue;
      const child = at.node.get(key) as TreeNode;
      path.push({ node: child, keys: child.keys(), row: i, prefix: at.prefix + key, firsts: this.firstsAt(i) });
      if (++entered >= nodes) return false;
    }
    return true;
  }
}

/** The whole walk at once. */
export function fuzzyFind(tree: TreeNode, query: string, maxDistance: number): FuzzyFound {
  const walk = new FuzzyWalk(tree, query, maxDistance);
  walk.run(Infinity);
  return walk.found;
}
