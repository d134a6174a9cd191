/**
 * `field:value` on fields other than the title as FTS5 expressions over `doc_field`
 * (field-tokens.ts), meaning what the domain's evaluator makes them mean (`match-query.ts`): a
 * field's words are its own values' when it holds values, else those of every path below it; a
 * term wants each of its words among them (a prefix each word's prefix, a fuzzy word one of its
 * expansions); a phrase wants its words in order inside one value.
 */
import { queryLeaves, tokenize, type QueryNode } from '@krs/domain/search';
import { fieldPrefix, fieldToken } from './field-tokens.ts';
import { ftsBoolean } from './fts-boolean.ts';

/** The numbers of the indexed paths a field names: its own, and every path below it. */
export interface FieldPaths {
  own: number | null;
  below: readonly number[];
}

export interface FieldContext {
  /** Each fuzzy query word's expansion into indexed words. */
  fuzzy: ReadonlyMap<string, readonly string[]>;
  /** The paths of each field the query names; absent until they are looked up. */
  fields?: ReadonlyMap<string, FieldPaths>;
}

/** The field the text index's title column answers (with the scoring of its own). */
const TITLE_FIELD = 'metadata.title';

type Leaf = Extract<QueryNode, { type: 'term' | 'phrase' }>;

/** Whether `doc_field` answers the leaf: a word or phrase on a field other than the title. */
export const isFieldLeaf = (node: QueryNode): node is Leaf & { field: string } =>
  (node.type === 'term' || node.type === 'phrase') && node.field !== null && node.field !== TITLE_FIELD;

/** The fields of a query's `doc_field` leaves, for the caller to look up their paths. */
export const namedFields = (node: QueryNode): string[] =>
  queryLeaves(node).flatMap((leaf) => (isFieldLeaf(leaf) ? [leaf.field] : []));

/**
 * Tokens one query may name in `doc_field`, all its leaves together: a fuzzy word on a field
 * with a hundred paths below it is each of its expansions in each path. Past this the evaluator
 * decides the query.
 */
const TOKENS_PER_QUERY = 20_000;

/** Each leaf's expression, built once per query (its context), and the tokens the query has left. */
interface Built {
  leaves: Map<QueryNode, string | null>;
  tokens: number;
}
const builtFor = new WeakMap<FieldContext, Built>();

/** How a query language writes a field leaf's parts: FTS5 here, PostgreSQL's tsquery for its field vector. */
export interface FieldSyntax {
  /** One word of the path numbered `id`, as the query language quotes a token. */
  word(id: number, word: string): string;
  /** Any word of the path starting with `word`. */
  prefix(id: number, word: string): string;
  /** The words one after another in one value of the path. */
  phrase(id: number, words: readonly string[]): string;
  /** The documents where the path holds values of its own beside members holding values. */
  mark(id: number): string;
  and: string;
  or: string;
  /** `expression` in the documents without `mark`. */
  without(expression: string, mark: string): string;
  /** What matches no document. */
  nothing: string;
}

const quote = (token: string) => `"${token}"`;

const FTS5: FieldSyntax = {
  word: (id, word) => quote(fieldToken(id, word)),
  prefix: (id, word) => `${quote(fieldToken(id, word))} *`,
  phrase: (id, words) => quote(words.map((w) => fieldToken(id, w)).join(' ')),
  mark: (id) => quote(fieldPrefix(id)),
  and: ' AND ',
  or: ' OR ',
  without: (expression, mark) => `(${expression}) NOT ${mark}`,
  // A phrase of no words: FTS5 matches nothing with it.
  nothing: '""',
};

/**
 * One field leaf in `syntax`, or null when it has no words (the evaluator's rules for those hold
 * no index) or its paths were not looked up. `spend` is told how many tokens it names.
 */
export function fieldLeaf(
  node: Leaf & { field: string },
  paths: FieldPaths | undefined,
  fuzzy: ReadonlyMap<string, readonly string[]>,
  syntax: FieldSyntax,
  spend: (tokens: number) => void,
): string | null {
  const words = tokenize(node.value);
  if (paths === undefined || words.length === 0) return null;
  const group = (parts: readonly string[], op: string): string =>
    parts.length === 0 ? syntax.nothing : parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(${p})`).join(op);
  const tokensOf = (id: number, word: string): string[] => {
    if (node.type === 'phrase' || node.match === 'exact') return [syntax.word(id, word)];
    if (node.match === 'prefix') return [syntax.prefix(id, word)];
    return (fuzzy.get(word) ?? []).map((near) => syntax.word(id, near));
  };
  const within = (ids: readonly number[]): string | null => {
    if (ids.length === 0) return null;
    if (node.type === 'phrase') {
      spend(ids.length * words.length);
      return group(
        ids.map((id) => syntax.phrase(id, words)),
        syntax.or,
      );
    }
    const each = words.map((w) => ids.flatMap((id) => tokensOf(id, w)));
    spend(each.reduce((sum, tokens) => sum + tokens.length, 0));
    return group(
      each.map((tokens) => group(tokens, syntax.or)),
      syntax.and,
    );
  };
  const own = paths.own === null ? null : within([paths.own]);
  const below = within(paths.below);
  const parts: string[] = [];
  if (own !== null) parts.push(own);
  // A document where the field holds values of its own reads those alone (the path's mark).
  if (below !== null) parts.push(paths.own === null ? below : syntax.without(below, syntax.mark(paths.own)));
  return group(parts, syntax.or);
}

/**
 * One leaf as an FTS5 expression over `doc_field`, or null when it has no words (the
 * evaluator's rules for those hold no index) or its paths were not looked up.
 */
function leafMatch(node: Leaf & { field: string }, ctx: FieldContext): string | null {
  let built = builtFor.get(ctx);
  if (built === undefined) builtFor.set(ctx, (built = { leaves: new Map(), tokens: TOKENS_PER_QUERY }));
  const known = built.leaves.get(node);
  if (known !== undefined) return known;
  const budget = built;
  const expression = fieldLeaf(node, ctx.fields?.get(node.field), ctx.fuzzy, FTS5, (tokens) => (budget.tokens -= tokens));
  const kept = budget.tokens < 0 ? null : expression;
  built.leaves.set(node, kept);
  return kept;
}

/** One `doc_field` leaf as an FTS5 expression (see `leafMatch`), or null. */
export const fieldMatch = (node: QueryNode, ctx: FieldContext): string | null => (isFieldLeaf(node) ? leafMatch(node, ctx) : null);

/** The whole query as one FTS5 expression over `doc_field`, or null (see `ftsBoolean`). */
export const fieldExpression = (node: QueryNode, ctx: FieldContext): string | null => ftsBoolean(node, (leaf) => fieldMatch(leaf, ctx));

/**
 * The tokens of a query of field leaves that is an AND of phrases in `doc_field` (each phrase its
 * tokens; a word is a phrase of one), which its segments can answer without FTS5's match
 * (`fts5FieldRows`): words and phrases, each on a field that names one path (its own, with none
 * below, or one below it and none of its own), under AND. Null for any other shape: prefixes,
 * fuzzy words, OR, NOT, a field of several paths, a leaf of no words.
 */
export function fieldPhrases(node: QueryNode, ctx: FieldContext): string[][] | null {
  if (node.type === 'and') {
    const phrases: string[][] = [];
    for (const child of node.children) {
      const of = fieldPhrases(child, ctx);
      if (of === null) return null;
      phrases.push(...of);
    }
    return phrases.length === 0 ? null : phrases;
  }
  if (!isFieldLeaf(node) || (node.type === 'term' && node.match !== 'exact')) return null;
  const paths = ctx.fields?.get(node.field);
  const words = tokenize(node.value);
  if (paths === undefined || words.length === 0) return null;
  const id = paths.own !== null && paths.below.length === 0 ? paths.own : paths.own === null && paths.below.length === 1 ? (paths.below[0] as number) : null;
  if (id === null) return null;
  return node.type === 'phrase' ? [words.map((w) => fieldToken(id, w))] : words.map((w) => [fieldToken(id, w)]);
}

/** Rows a `doc_field` expression matches, as SQL over `doc`. */
export const inFields = (expression: string) => ({ where: 'doc.rowid IN (SELECT rowid FROM doc_field WHERE doc_field MATCH ?)', params: [expression] });

/** A term of no words on a field: the evaluator matches every document with it. */
export const isEmptyFieldTerm = (node: QueryNode): boolean => node.type === 'term' && isFieldLeaf(node) && tokenize(node.value).length === 0;

/**
 * The query with its `doc_field` leaves searched in the text columns instead: what ranks their
 * matches (by the words, wherever they are) and narrows them when only the evaluator can decide.
 */
export function unfielded(node: QueryNode): QueryNode {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return isFieldLeaf(node) ? { ...node, field: null } : node;
    case 'and':
    case 'or':
      return { ...node, children: node.children.map(unfielded) };
    case 'not':
      return { ...node, child: unfielded(node.child) };
    default:
      return node;
  }
}
