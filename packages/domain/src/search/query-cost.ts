/**
 * Which queries may cost an engine a pass over much of its index, whoever sends them: a fuzzy
 * word or a prefix of one or two letters (each stands for thousands of words), `_exists_` and
 * ranges (read over every document that has the field), and a query that matches by negation
 * alone (everything but a few). Servers let such searches run a few at a time beside the others
 * (apps/server/src/search-gate.ts); the shape says nothing of their answer.
 */
import { queryLeaves, type QueryNode } from './query-ast.ts';

/** A prefix shorter than this stands for a large share of the index's words. */
const SHORT_PREFIX = 3;

export function costlyShape(node: QueryNode): boolean {
  return negationOnly(node) || queryLeaves(node).some(wideLeaf);
}

function wideLeaf(leaf: QueryNode): boolean {
  if (leaf.type === 'term') return leaf.match === 'fuzzy' || (leaf.match === 'prefix' && [...leaf.value].length < SHORT_PREFIX);
  return leaf.type === 'exists' || leaf.type === 'range';
}

/** Matches documents for what they lack: NOT alone, an AND of NOTs, or an OR with such a branch. */
function negationOnly(node: QueryNode): boolean {
  switch (node.type) {
    case 'not':
      return true;
    case 'and':
      return node.children.every(negationOnly);
    case 'or':
      return node.children.some(negationOnly);
    default:
      return false;
  }
}
