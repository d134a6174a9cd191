/** Evaluates a QueryNode against a document's `body`, for engines without a query language of their own. */
import type { QueryNode } from './query-ast.ts';

export type FlatDoc = Map<string, string[]>;

/** Dotted path -> string values, through arrays (`metadata.creators.person_or_org.name`). */
export function flatten(body: unknown): FlatDoc {
  const out: FlatDoc = new Map();
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) for (const x of v) walk(x, path);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    else if (v !== null && v !== undefined) {
      const list = out.get(path) ?? [];
      list.push(String(v));
      out.set(path, list);
    }
  };
  walk(body, '');
  return out;
}

export const tokenize = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t !== '');

function valuesFor(doc: FlatDoc, field: string | null): string[] {
  if (field === null) return [...doc.values()].flat();
  const exact = doc.get(field);
  if (exact) return exact;
  // `metadata.title` also matches nested members such as `metadata.subjects.subject` by prefix.
  return [...doc].filter(([k]) => k.startsWith(`${field}.`)).flatMap(([, v]) => v);
}

function editDistanceAtMost(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return (prev[b.length] ?? Infinity) <= max;
}

function termMatches(values: string[], value: string, match: 'exact' | 'prefix' | 'fuzzy'): boolean {
  const wanted = tokenize(value);
  if (wanted.length === 0) return true;
  const lowered = values.map((v) => v.toLowerCase());
  if (match === 'exact' && lowered.includes(value.toLowerCase())) return true;
  const tokens = new Set(values.flatMap(tokenize));
  return wanted.every((w) => {
    if (match === 'prefix') return [...tokens].some((t) => t.startsWith(w));
    if (match === 'fuzzy') return [...tokens].some((t) => editDistanceAtMost(t, w, w.length > 5 ? 2 : 1));
    return tokens.has(w);
  });
}

function inRange(values: string[], n: Extract<QueryNode, { type: 'range' }>): boolean {
  return values.some((v) => {
    const aboveMin = n.min === null || (n.includeMin ? v >= n.min : v > n.min);
    // A max of `2021-06` includes `2021-06-30`: compare on the bound's precision.
    const cut = n.max === null ? v : v.slice(0, n.max.length);
    const belowMax = n.max === null || (n.includeMax ? cut <= n.max : cut < n.max);
    return aboveMin && belowMax;
  });
}

export function matchesQuery(node: QueryNode, doc: FlatDoc): boolean {
  switch (node.type) {
    case 'all':
      return true;
    case 'term':
      return termMatches(valuesFor(doc, node.field), node.value, node.match);
    case 'phrase': {
      const words = tokenize(node.value).join(' ');
      return valuesFor(doc, node.field).some((v) => ` ${tokenize(v).join(' ')} `.includes(` ${words} `));
    }
    case 'exists':
      return valuesFor(doc, node.field).length > 0;
    case 'range':
      return inRange(valuesFor(doc, node.field), node);
    case 'and':
      return node.children.every((c) => matchesQuery(c, doc));
    case 'or':
      return node.children.some((c) => matchesQuery(c, doc));
    case 'not':
      return !matchesQuery(node.child, doc);
  }
}

/** Plain terms of a query (not negated), for scoring. */
export function positiveTerms(node: QueryNode): string[] {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return tokenize(node.value);
    case 'and':
    case 'or':
      return node.children.flatMap(positiveTerms);
    default:
      return [];
  }
}
