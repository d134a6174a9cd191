/**
 * What is already known of a value, so the code that would walk, encode or check it whole does
 * not do it again, or takes turns doing it. Recorded where it is known anyway: a large value
 * where metadata is normalised (its size is checked there) or a record read from a row (the row's
 * length); a bound on nesting where it was checked (a body's nesting as it arrived, metadata's
 * at normalisation). Kept on the object itself: a record copied with its metadata keeps it.
 */
const large = new WeakSet<object>();
const levelsAtMost = new WeakMap<object, number>();

/** Characters of JSON from which a value is large: encoding or parsing it takes a millisecond or more. */
export const LARGE_JSON_CHARS = 256 * 1024;

export function markLarge(value: unknown): void {
  if (typeof value === 'object' && value !== null) large.add(value);
}

export function isLarge(value: unknown): boolean {
  return typeof value === 'object' && value !== null && large.has(value);
}

/** Nothing in `value` lies deeper than `levels` levels, the value itself being the first. */
export function markLevels(value: unknown, levels: number): void {
  if (typeof value === 'object' && value !== null) levelsAtMost.set(value, levels);
}

/** Whether `value` is known to nest no deeper than `levels` levels; false when nothing is known. */
export function knownWithinLevels(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const known = levelsAtMost.get(value);
  return known !== undefined && known <= levels;
}
