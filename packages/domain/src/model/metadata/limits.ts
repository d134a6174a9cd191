/**
 * Size limits of stored metadata (docs/limits.md says why each number). Anything past a limit is
 * refused whole with a 400 and field errors, before or instead of being stored, so every stored
 * record can be read, indexed, exported and reloaded within bounded time and memory.
 */
import { invalid, type FieldIssue } from '../../errors.ts';

export const METADATA_LIMITS = {
  /** Object/array nesting, `metadata` itself being level 1; the deepest legal shape (a MultiPolygon in a GeometryCollection) is 11. */
  maxDepth: 16,
  /** Characters of any plain-text member (titles, names, identifiers, places, ...). */
  maxText: 10_000,
  /** Characters of an HTML description, as sent and after sanitising. */
  maxHtml: 100_000,
  /** Creators, and contributors. */
  maxPeople: 20_000,
  /** Related identifiers, and references. */
  maxLinks: 10_000,
  /** Affiliations of one creator or contributor. */
  maxAffiliations: 100,
  /** Identifiers of one person or organisation, or of one award. */
  maxPersonIdentifiers: 20,
  /** Any other list (subjects, languages, dates, funding, features, affiliations of one person, ...). */
  maxList: 1_000,
  /** GeoJSON positions over all locations of a record. */
  maxPositions: 20_000,
  /** Characters of the normalised metadata written as JSON. */
  maxSerialized: 2 * 1024 * 1024,
  /** Draft problems kept and shown; more are summed up in one last entry. */
  maxIssues: 100,
} as const;

/** Limits of the free-form `custom_fields` of packages. */
export const CUSTOM_FIELD_LIMITS = { maxDepth: 4, maxKeys: 100, maxSerialized: 64 * 1024 } as const;

/** Thrown when input is past a limit: nothing of the request is kept. */
export const limitExceeded = (issues: FieldIssue[]) =>
  invalid('metadata.limit', 'A validation error occurred: the record is larger than the documented limits.', issues.slice(0, METADATA_LIMITS.maxIssues));

/**
 * The path of the first container nested deeper than `maxDepth` (the value itself being level 1),
 * or null; it stops at the first offence. The walk recurses, but never past `maxDepth + 1`
 * levels, so hostile nesting cannot exhaust the stack; and it allocates nothing per container
 * (an entry per container made the largest legal metadata cost 10 ms of one turn).
 */
export function tooDeepPath(value: unknown, path: string, maxDepth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  // The offender's keys, innermost first, pushed as the walk unwinds from it.
  const keys: string[] = [];
  if (!deeperThan(value, 1, maxDepth, keys)) return null;
  return [path, ...keys.reverse().map((key) => (key.length > 100 ? `${key.slice(0, 100)}…` : key))].join('.');
}

function deeperThan(container: object, depth: number, maxDepth: number, keys: string[]): boolean {
  if (depth > maxDepth) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const child: unknown = container[i];
      if (typeof child === 'object' && child !== null && deeperThan(child, depth + 1, maxDepth, keys)) {
        keys.push(String(i));
        return true;
      }
    }
    return false;
  }
  for (const key in container) {
    const child: unknown = (container as { [k: string]: unknown })[key];
    if (typeof child === 'object' && child !== null && deeperThan(child, depth + 1, maxDepth, keys)) {
      keys.push(key);
      return true;
    }
  }
  return false;
}

export function assertNotTooDeep(value: unknown, path: string, maxDepth: number): void {
  const deep = tooDeepPath(value, path, maxDepth);
  if (deep !== null) throw limitExceeded([{ field: deep, messages: [`Nested deeper than ${maxDepth} levels.`] }]);
}

/**
 * Draft issues as shown: one entry per field, at most `maxIssues`, the rest counted in a last
 * `_schema` entry (300k unknown ids must not become 300k stored issues).
 */
export function capIssues(issues: FieldIssue[]): FieldIssue[] {
  const byField = new Map<string, string[]>();
  for (const issue of issues) {
    const messages = byField.get(issue.field);
    if (messages) {
      for (const m of issue.messages) if (!messages.includes(m) && messages.length < 5) messages.push(m);
    } else byField.set(issue.field, issue.messages.slice(0, 5));
  }
  const all = [...byField].map(([field, messages]) => ({ field, messages }));
  if (all.length <= METADATA_LIMITS.maxIssues) return all;
  const kept = all.slice(0, METADATA_LIMITS.maxIssues - 1);
  return [...kept, { field: '_schema', messages: [`${all.length - kept.length} more problems are not listed; fix these first.`] }];
}
