export type { QueryNode } from './query-ast.ts';
export { parseQuery } from './parse-query.ts';
export { flatten, fuzzyDistance, matchesQuery, positiveTerms, scoreQuery, tokenize, type FlatDoc } from './match-query.ts';
export { parseBBox, bboxIntersects } from './bbox.ts';
export { geometryBounds } from './geometry-bounds.ts';
export {
  canRead,
  compareFor,
  facetKey,
  facetLabel,
  facetValue,
  firstInOrder,
  intersectsAny,
  passesFacets,
  passesFilter,
  runSearch,
  sortBuckets,
} from './run-search.ts';
export { HeaderTable, type HeaderFields, type Ranker } from './header-table.ts';
