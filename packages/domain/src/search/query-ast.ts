/** The query language's syntax tree, independent of the parser library and of any engine. */
export type QueryNode =
  | { type: 'all' }
  | { type: 'term'; field: string | null; value: string; match: 'exact' | 'prefix' | 'fuzzy' }
  | { type: 'phrase'; field: string | null; value: string }
  | { type: 'exists'; field: string }
  | { type: 'range'; field: string; min: string | null; max: string | null; includeMin: boolean; includeMax: boolean }
  | { type: 'and'; children: QueryNode[] }
  | { type: 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode };

/** A query's leaves (every node but AND, OR and NOT), those under a NOT included, in order. */
export function queryLeaves(node: QueryNode): QueryNode[] {
  switch (node.type) {
    case 'and':
    case 'or':
      return node.children.flatMap(queryLeaves);
    case 'not':
      return queryLeaves(node.child);
    default:
      return [node];
  }
}
