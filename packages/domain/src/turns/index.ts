export { nextIteration } from './next-iteration.ts';
export { largeValueSlices, timeSlices, type Slicing } from './time-slices.ts';
export { parseJsonInTurns, stringifyJsonInTurns, type Pieces } from './json-in-turns.ts';
export { isLarge, knownWithinLevels, LARGE_JSON_CHARS, markLarge, markLevels } from './large-values.ts';
export { nestsWithinInTurns } from './nesting.ts';
