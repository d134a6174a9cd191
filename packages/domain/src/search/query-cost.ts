/**
 * Which queries may cost an engine a pass over much of its index, whoever sends them: a fuzzy
 * word or a prefix of one or two letters (each stands for thousands of words), `_exists_` and
 * ranges (read over every document that has the field), and a query that matches by negation
 * alone (everything but a few). Servers let such searches run a few at a time beside the others
 * (apps/server/src/search-gate.ts); the shape says nothing of their answer.
 */
import type { QueryNode } from './query-ast.ts';

/** A prefix shorter than this stands for a large share of the index's words. */
const SHORT_PREFIX = 3;

export function costlyShape(node: QueryNode): boolean {
  return negationOnly(node) || wideLeaf(node);
}

function wideLeaf(node: QueryNode): boolean {
  switch (node.type) {
    case 'and':
    case 'or':
      return node.children.some(wideLeaf);
    case 'not':
      return wideLeaf(node.child);
    case 'term':
      return node.match === 'fuzzy' || (node.match === 'prefix' && [...node.value].length < SHORT_PREFIX);
    case 'exists':
    case 'range':
      return true;
    default:
      return false;
  }
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
