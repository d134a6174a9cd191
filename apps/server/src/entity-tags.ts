/** Entity tags as RFC 9110 8.8.3 writes them, and its two comparisons (8.8.3.2). */

export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `*`, or a list of entity tags; null when the field cannot be read. */
export function entityTags(field: string): '*' | EntityTag[] | null {
  const value = field.trim();
  if (value === '*') return '*';
  const tags: EntityTag[] = [];
  for (const part of value.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const m = /^(W\/)?"([^"]*)"$/.exec(item);
    if (!m) return null;
    tags.push({ weak: m[1] !== undefined, opaque: m[2] ?? '' });
  }
  return tags.length > 0 ? tags : null;
}

export function entityTag(value: string): EntityTag {
  const m = /^(W\/)?"([^"]*)"$/.exec(value);
  return { weak: m?.[1] !== undefined, opaque: m?.[2] ?? value };
}

/** What If-Match and If-Range use: a weak tag never matches. */
export const strongMatch = (a: EntityTag, b: EntityTag) => !a.weak && !b.weak && a.opaque === b.opaque;
/** What If-None-Match uses. */
export const weakMatch = (a: EntityTag, b: EntityTag) => a.opaque === b.opaque;

/**
 * Whether an If-None-Match field names `current` (weak comparison; `*` names any current
 * representation); null when the field is absent or cannot be read, and so is no condition.
 */
export function noneMatchNames(field: string | undefined, current: EntityTag): boolean | null {
  const tags = field === undefined ? null : entityTags(field);
  if (tags === null) return null;
  return tags === '*' || tags.some((t) => weakMatch(t, current));
}
