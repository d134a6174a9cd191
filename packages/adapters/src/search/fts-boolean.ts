import type { QueryNode } from '@krs/domain/search';

/**
 * A query as one FTS5 expression of the leaves `leaf` writes, or null when one of them has none:
 * AND/OR of such leaves, and an AND whose NOT children are such (`(a AND b) NOT (c OR d)`); a NOT
 * standing alone has no FTS5 form.
 */
export function ftsBoolean(node: QueryNode, leaf: (node: QueryNode) => string | null): string | null {
  switch (node.type) {
    case 'or': {
      const parts = node.children.map((c) => ftsBoolean(c, leaf));
      return parts.some((p) => p === null) ? null : parts.map((p) => `(${p})`).join(' OR ');
    }
    case 'and': {
      const positive = node.children.filter((c) => c.type !== 'not').map((c) => ftsBoolean(c, leaf));
      const negative = node.children.flatMap((c) => (c.type === 'not' ? [ftsBoolean(c.child, leaf)] : []));
      if (positive.length === 0 || [...positive, ...negative].some((p) => p === null)) return null;
      const and = positive.map((p) => `(${p})`).join(' AND ');
      return negative.length === 0 ? and : `(${and}) NOT (${negative.map((p) => `(${p})`).join(' OR ')})`;
    }
    case 'not':
      return null;
    default:
      return leaf(node);
  }
}
