/**
 * MiniSearch's `fuzzyGet` (minisearch 7.2.0, SearchableMap/fuzzySearch.ts) as a generator that
 * yields after each node of the term tree it visits, so its caller can give the loop back part
 * way: the walk for one fuzzy word took 5-10 ms of CPU at 20k records. The same Levenshtein
 * matrix, the same pruning and the same order of visits, so it finds the same words, in the same
 * order (the order the scores of a word's expansions are summed in).
 */
import type { TermData } from './minisearch-saved-terms.ts';

/** A node of MiniSearch's term tree: edge labels to child nodes, and '' to a word's postings. */
type TreeNode = Map<string, unknown>;

/** Indexed words within the distance, each with its postings and its edit distance. */
export type FuzzyFound = Map<string, [TermData, number]>;

const LEAF = '';

export function* fuzzyWalk(tree: TreeNode, query: string, maxDistance: number): Generator<void, FuzzyFound> {
  const results: FuzzyFound = new Map();
  // Columns of the matrix; no word longer than the query by more than the distance matches.
  const n = query.length + 1;
  const m = n + maxDistance;
  const matrix = new Uint8Array(m * n).fill(maxDistance + 1);
  for (let j = 0; j < n; ++j) matrix[j] = j;
  for (let i = 1; i < m; ++i) matrix[i * n] = i;
  yield* visit(tree, query, maxDistance, results, matrix, 1, n, '');
  return results;
}

function* visit(node: TreeNode, query: string, maxDistance: number, results: FuzzyFound, matrix: Uint8Array, m: number, n: number, prefix: string): Generator<void, void> {
  yield;
  const offset = m * n;
  key: for (const key of node.keys()) {
    if (key === LEAF) {
      const distance = matrix[offset - 1] ?? maxDistance + 1;
      if (distance <= maxDistance) results.set(prefix, [node.get(key) as TermData, distance]);
      continue;
    }
    // Each character of the edge is a row of the matrix; once a row's least distance is over
    // the limit, nothing below the edge can match.
    let i = m;
    for (let pos = 0; pos < key.length; ++pos, ++i) {
      const char = key[pos];
      const thisRow = n * i;
      const prevRow = thisRow - n;
      let minDistance = matrix[thisRow] ?? 0;
      const jmin = Math.max(0, i - maxDistance - 1);
      const jmax = Math.min(n - 1, i + maxDistance);
      for (let j = jmin; j < jmax; ++j) {
        const different = char !== query[j];
        const rpl = (matrix[prevRow + j] ?? 0) + +different;
        const del = (matrix[prevRow + j + 1] ?? 0) + 1;
        const ins = (matrix[thisRow + j] ?? 0) + 1;
        const dist = (matrix[thisRow + j + 1] = Math.min(rpl, del, ins));
        if (dist < minDistance) minDistance = dist;
      }
      if (minDistance > maxDistance) continue key;
    }
    yield* visit(node.get(key) as TreeNode, query, maxDistance, results, matrix, i, n, prefix + key);
  }
}
