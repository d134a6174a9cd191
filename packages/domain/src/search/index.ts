export type { QueryNode } from './query-ast.ts';
export { parseQuery } from './parse-query.ts';
export { flatten, fuzzyDistance, matchesQuery, positiveTerms, scoreQuery, tokenize, type FlatDoc } from './match-query.ts';
export { parseBBox, bboxIntersects } from './bbox.ts';
export { geometryBounds, geometryShapes, MAX_SHAPE_VERTICES, shapeBounds } from './geometry-bounds.ts';
export { boxWithin, shapeIntersects, splitAtAntimeridian } from './shape-intersects.ts';
export {
  canRead,
  compareFor,
  facetKey,
  facetLabel,
  facetValue,
  firstInOrder,
  intersectsAny,
  meetsBox,
  shapesMeetBox,
  passesFacets,
  passesFilter,
  runSearch,
  sortBuckets,
} from './run-search.ts';
export { HeaderTable, type HeaderFields, type Ranker } from './header-table.ts';
