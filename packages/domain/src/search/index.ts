export type { QueryNode } from './query-ast.ts';
export { parseQuery } from './parse-query.ts';
export { flatten, matchesQuery, positiveTerms, tokenize, type FlatDoc } from './match-query.ts';
export { parseBBox, bboxIntersects } from './bbox.ts';
export { geometryBounds } from './geometry-bounds.ts';
export { runSearch, passesFilter, facetValue, compareFor } from './run-search.ts';
