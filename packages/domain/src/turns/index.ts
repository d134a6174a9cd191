export { nextIteration } from './next-iteration.ts';
export { largeValueSlices, timeSlices, turnWhenDue, type Slicing } from './time-slices.ts';
export { jsonText, parseJsonInTurns, stringifyJsonInTurns, type Pieces } from './json-in-turns.ts';
export { encodeOnce } from './encoded-once.ts';
export { memberSpanInTurns } from './json-member-span.ts';
export { isLarge, LARGE_JSON_CHARS, markLarge } from './large-values.ts';
export { nestsWithinInTurns } from './nesting.ts';
