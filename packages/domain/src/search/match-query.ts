/** Evaluates a QueryNode against a document's `body`, for engines without a query language of their own. */
import type { SearchDocument } from '../ports.ts';
import type { QueryNode } from './query-ast.ts';

export type FlatDoc = Map<string, string[]>;

/** A dotted path while flattening: its values, and its members' paths, each built once. */
interface PathNode {
  path: string;
  values: string[] | null;
  members: Map<string, PathNode> | null;
}

/**
 * The list of a path's values, made on its first value. Two nodes may have one path: a key
 * holding a dot (`{'a.b': x}`) and the nested key it names (`{a: {b: y}}`); both values are the
 * path's, as the unfielded words hold both.
 */
function valuesOf(out: FlatDoc, path: string): string[] {
  let values = out.get(path);
  if (values === undefined) out.set(path, (values = []));
  return values;
}

/**
 * Dotted path -> string values, through arrays (`metadata.creators.person_or_org.name`), paths in
 * the order their first value is met. A list of 20,000 creators shares one node per member path,
 * so no path string is built or looked up again per item.
 */
export function flatten(body: unknown): FlatDoc {
  const out: FlatDoc = new Map();
  const walk = (v: unknown, node: PathNode) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, node);
    } else if (typeof v === 'object' && v !== null) {
      const members = (node.members ??= new Map());
      for (const k of Object.keys(v)) {
        let member = members.get(k);
        if (member === undefined) {
          member = { path: node.path === '' ? k : `${node.path}.${k}`, values: null, members: null };
          members.set(k, member);
        }
        walk((v as Record<string, unknown>)[k], member);
      }
    } else if (v !== null && v !== undefined) {
      (node.values ??= valuesOf(out, node.path)).push(String(v));
    }
  };
  walk(body, { path: '', values: null, members: null });
  return out;
}

/** An array or object being walked by `flattenInTurns`, and how far. */
interface WalkFrame {
  node: PathNode;
  items: readonly unknown[] | null;
  object: Record<string, unknown> | null;
  keys: string[] | null;
  next: number;
}

/** Values and containers visited between two calls of `takeTurn` (which looks at the clock): a fraction of a millisecond. */
const FLATTEN_STEP = 2_048;

/**
 * `flatten` with the same result, walked with a stack of its own so that `takeTurn` (which may
 * give the event loop to others) is called every few thousand values: flattening the largest legal
 * record at once holds the loop for tens of milliseconds. `flatten` stays recursive: the evaluator
 * calls it per document, small ones, where a resumable walk would only cost time.
 */
export async function flattenInTurns(body: unknown, takeTurn: () => Promise<void>): Promise<FlatDoc> {
  const out: FlatDoc = new Map();
  const stack: WalkFrame[] = [];
  let visited = 0;
  const visit = (v: unknown, node: PathNode): void => {
    visited++;
    if (Array.isArray(v)) {
      stack.push({ node, items: v, object: null, keys: null, next: 0 });
    } else if (typeof v === 'object' && v !== null) {
      node.members ??= new Map();
      stack.push({ node, items: null, object: v as Record<string, unknown>, keys: Object.keys(v), next: 0 });
    } else if (v !== null && v !== undefined) {
      (node.values ??= valuesOf(out, node.path)).push(String(v));
    }
  };
  visit(body, { path: '', values: null, members: null });
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    if (visited >= FLATTEN_STEP) {
      await takeTurn();
      visited = 0;
    }
    if (frame.items !== null) {
      if (frame.next >= frame.items.length) stack.pop();
      else visit(frame.items[frame.next++], frame.node);
      continue;
    }
    const keys = frame.keys ?? [];
    if (frame.next >= keys.length) {
      stack.pop();
      continue;
    }
    const k = keys[frame.next++] as string;
    const members = frame.node.members as Map<string, PathNode>;
    let member = members.get(k);
    if (member === undefined) {
      member = { path: frame.node.path === '' ? k : `${frame.node.path}.${k}`, values: null, members: null };
      members.set(k, member);
    }
    visit(frame.object?.[k], member);
  }
  return out;
}

/**
 * Words of a text as every engine indexes them: lowercased letter and digit runs with accents
 * dropped (`Müller` is found by `muller`), as SQLite's unicode61 tokenizer does.
 */
export const tokenize = (text: string): string[] =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '');

/**
 * A body as the leaves need it, each view built on first use and shared by every leaf: plain
 * values for unfielded phrases, dotted paths for fields, words per field for terms.
 */
interface DocText {
  body: object;
  values?: string[];
  flat?: FlatDoc;
  words: Map<string | null, string[]>;
}

// Built per call, not cached on the document: an engine holding many documents would otherwise
// keep a second, flattened copy of each one alive.
const textOf = (body: object): DocText => ({ body, words: new Map() });

function allValues(v: unknown, out: string[]): string[] {
  if (Array.isArray(v)) for (const x of v) allValues(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) allValues(x, out);
  else if (v !== null && v !== undefined) out.push(String(v));
  return out;
}

/** The values at the dotted path itself, none of those nested under it. */
const ownValues = (t: DocText, field: string): readonly string[] => (t.flat ??= flatten(t.body)).get(field) ?? [];

/**
 * The values a `field:` leaf reads: the path's own values, or where it holds none those of every
 * path nested under it (`metadata.title` of `{en, fr}` reads both languages).
 */
export function fieldValues(flat: FlatDoc, field: string): string[] {
  const exact = flat.get(field);
  if (exact) return exact;
  return [...flat].filter(([k]) => k.startsWith(`${field}.`)).flatMap(([, v]) => v);
}

function valuesFor(t: DocText, field: string | null): string[] {
  if (field === null) return (t.values ??= allValues(t.body, []));
  return fieldValues((t.flat ??= flatten(t.body)), field);
}

function wordsFor(t: DocText, field: string | null): string[] {
  let w = t.words.get(field);
  if (!w) {
    w = valuesFor(t, field).flatMap(tokenize);
    t.words.set(field, w);
  }
  return w;
}

/** Elasticsearch's AUTO fuzziness: 0 edits up to 2 letters, 1 up to 5, else 2. */
export const fuzzyDistance = (term: string): number => (term.length <= 2 ? 0 : term.length <= 5 ? 1 : 2);

/**
 * Whether an indexed word is a fuzzy match of a query word: within its edit distance, and
 * starting with the same letter (Lucene's `prefix_length` 1), which lets an engine look at one
 * letter's slice of its vocabulary instead of all of it.
 */
export const isFuzzyMatch = (word: string, term: string): boolean =>
  word.length > 0 && word.codePointAt(0) === term.codePointAt(0) && editDistance(word, term, fuzzyDistance(term)) <= fuzzyDistance(term);

/** Most indexed words one fuzzy query word expands to in an engine (Lucene's `max_expansions`). */
export const MAX_FUZZY_EXPANSIONS = 50;

/**
 * The indexed words a fuzzy query word stands for, nearest first, at most
 * `MAX_FUZZY_EXPANSIONS`; `vocabulary` is the engine's words starting with the same letter.
 */
export function fuzzyExpansions(term: string, vocabulary: Iterable<string>): string[] {
  const max = fuzzyDistance(term);
  const found: [word: string, distance: number][] = [];
  for (const word of vocabulary) {
    if (word.codePointAt(0) !== term.codePointAt(0)) continue;
    const d = editDistance(word, term, max);
    if (d <= max) found.push([word, d]);
  }
  return found
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_FUZZY_EXPANSIONS)
    .map(([word]) => word);
}

/** Two rows of the distance table, reused: fuzzy expansion measures thousands of words per query. */
let previousRow = new Int32Array(64);
let currentRow = new Int32Array(64);

/** The edit distance of a and b, or `max + 1` as soon as it is known to exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (previousRow.length <= b.length) {
    previousRow = new Int32Array(b.length + 1);
    currentRow = new Int32Array(b.length + 1);
  }
  let prev = previousRow;
  let cur = currentRow;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (ai === b.charCodeAt(j - 1) ? 0 : 1));
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    const swap = prev;
    prev = cur;
    cur = swap;
  }
  return Math.min(prev[b.length] ?? max + 1, max + 1);
}

function termMatches(t: DocText, node: Extract<QueryNode, { type: 'term' }>): boolean {
  const wanted = tokenize(node.value);
  if (wanted.length === 0) return true;
  // A keyword value with punctuation (`id:abcde-12345`) equals the whole field value.
  if (node.match === 'exact' && node.field !== null && valuesFor(t, node.field).some((v) => v.toLowerCase() === node.value.toLowerCase())) return true;
  const words = wordsFor(t, node.field);
  return wanted.every((w) => {
    if (node.match === 'prefix') return words.some((x) => x.startsWith(w));
    if (node.match === 'fuzzy') return words.some((x) => isFuzzyMatch(x, w));
    return words.includes(w);
  });
}

/**
 * The fields ranges apply to, each kept by the engines in an ordered index of its own; a range
 * on any other field matches nothing. Dates compare as text on the bound's precision, the
 * version index as a number.
 */
export const RANGE_FIELDS = ['metadata.publication_date', 'metadata.dates.date', 'created', 'updated', 'versions.index'] as const;
export const NUMERIC_RANGE_FIELDS: readonly string[] = ['versions.index'];
const isRangeField = (field: string): boolean => (RANGE_FIELDS as readonly string[]).includes(field);

/** The values of a flattened body in the range fields, for an engine's range index. */
export function rangeValues(flat: FlatDoc): [field: string, value: string][] {
  return RANGE_FIELDS.flatMap((field) => (flat.get(field) ?? []).map((v): [string, string] => [field, v]));
}

/**
 * Every dotted path of a flattened body that holds a value, with its ancestors (`metadata.title.en` gives
 * `metadata`, `metadata.title` and `metadata.title.en`): what `_exists_:` can find.
 */
export function fieldPaths(flat: FlatDoc): string[] {
  const out = new Set<string>();
  for (const path of flat.keys()) {
    if (path === '') continue;
    for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) out.add(path.slice(0, i));
    out.add(path);
  }
  return [...out];
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Numbers as numbers in numeric fields; anything else (dates) as text on the bound's precision. */
function compare(field: string, value: string, limit: string): number {
  if (NUMERIC_RANGE_FIELDS.includes(field)) return NUMBER.test(value) && NUMBER.test(limit) ? Number(value) - Number(limit) : Number.NaN;
  // A bound of `2021-06` covers every day of that month: compare on its precision.
  const cut = value.slice(0, limit.length);
  return cut < limit ? -1 : cut > limit ? 1 : 0;
}

/** Whether one value of the range's field lies in the range. */
export function inRange(value: string, n: Extract<QueryNode, { type: 'range' }>): boolean {
  const lo = n.min === null ? 1 : compare(n.field, value, n.min);
  const hi = n.max === null ? -1 : compare(n.field, value, n.max);
  return (n.includeMin ? lo >= 0 : lo > 0) && (n.includeMax ? hi <= 0 : hi < 0);
}

function matches(node: QueryNode, t: DocText): boolean {
  switch (node.type) {
    case 'all':
      return true;
    case 'term':
      return termMatches(t, node);
    case 'phrase': {
      const words = tokenize(node.value).join(' ');
      return valuesFor(t, node.field).some((v) => ` ${tokenize(v).join(' ')} `.includes(` ${words} `));
    }
    case 'exists':
      return valuesFor(t, node.field).length > 0;
    case 'range':
      // A range field's own values, as the engines' range indexes hold them (`rangeValues`): a
      // field an index maps as a date or a number has no members to look under.
      return isRangeField(node.field) && ownValues(t, node.field).some((v) => inRange(v, node));
    case 'and':
      return node.children.every((c) => matches(c, t));
    case 'or':
      return node.children.some((c) => matches(c, t));
    case 'not':
      return !matches(node.child, t);
  }
}

/** Whether the document's `body` satisfies the query. */
export function matchesQuery(node: QueryNode, doc: SearchDocument): boolean {
  return matchesBody(node, doc.body);
}

/** `matchesQuery` for an engine that keeps bodies apart from the rest of the document. */
export function matchesBody(node: QueryNode, body: object): boolean {
  return matches(node, textOf(body));
}

/** Plain terms of a query (not negated), for scoring and for narrowing candidates. */
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

/**
 * A simple relevance score: occurrences of the query's positive words, title words counting
 * double, damped by the document's length so a short title that says it all ranks first.
 */
export function scoreQuery(node: QueryNode, doc: SearchDocument): number {
  const terms = positiveTerms(node);
  if (terms.length === 0) return 0;
  const t = textOf(doc.body);
  const all = wordsFor(t, null);
  const title = wordsFor(t, 'metadata.title');
  let score = 0;
  for (const term of terms) {
    const hit = (w: string) => w === term || w.startsWith(term);
    score += all.filter(hit).length + title.filter(hit).length;
  }
  return score / Math.sqrt(1 + all.length / 50);
}
