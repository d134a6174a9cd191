export { queryLeaves, type QueryNode } from './query-ast.ts';
export { parseQuery, parseQueryCounting, QUERY_LIMITS } from './parse-query.ts';
export { costlyShape } from './query-cost.ts';
export {
  fieldPaths,
  fieldValues,
  flatten,
  flattenInTurns,
  editDistance,
  fuzzyDistance,
  fuzzyExpansions,
  MAX_FUZZY_EXPANSIONS,
  inRange,
  isFuzzyMatch,
  matchesBody,
  matchesQuery,
  NUMERIC_RANGE_FIELDS,
  positiveTerms,
  RANGE_FIELDS,
  rangeValues,
  scoreQuery,
  tokenize,
  type FlatDoc,
} from './match-query.ts';
export { decideBodyInTurns, type BodyDecision } from './match-in-turns.ts';
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
export { ACCESS, firstByColumn, firstByColumnSteps, flagsOf, headerFlags, HeaderTable, Interned, KINDS, runSteps, STATES, type HeaderFields, type Ranker, type Selection, type Steps } from './header-table.ts';
