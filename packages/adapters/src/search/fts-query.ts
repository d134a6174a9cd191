/**
 * The parsed query language as SQLite: FTS5 MATCH expressions for the leaves the text index
 * answers (terms, phrases, prefixes, fuzzy terms expanded beforehand, `metadata.title:`, and
 * `_exists_` through the `paths` column), SQL over the `doc_range` index for ranges, SQL over
 * `doc` for boolean shapes FTS5 cannot say alone (with `field:value` on fields other than the
 * title from `doc_field`, field-query.ts), and a prefilter for the queries only the domain's
 * evaluator can decide.
 */
import { NUMERIC_RANGE_FIELDS, queryLeaves, RANGE_FIELDS, tokenize, type QueryNode } from '@krs/domain/search';
import { PATH_TOKEN_PREFIX, pathToken } from './path-token.ts';
import { fieldMatch, inFields, isEmptyFieldTerm, type FieldPaths } from './field-query.ts';
import { ftsBoolean } from './fts-boolean.ts';

export type Param = string | number;
export interface Sql {
  where: string;
  params: Param[];
}

/** What a query needs from the index before it can be written as SQL. */
export interface QueryContext {
  /** Each fuzzy query word's expansion into indexed words (empty: none are close). */
  fuzzy: ReadonlyMap<string, readonly string[]>;
  /** The indexed paths of each field the query names (field-query.ts); absent until looked up. */
  fields?: ReadonlyMap<string, FieldPaths>;
}

const quote = (token: string) => `"${token.replace(/"/g, '""')}"`;
const inMatch = (expression: string): Sql => ({ where: 'doc.rowid IN (SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?)', params: [expression] });
/** The words a free-text leaf searches, never the `paths` column. */
const TEXT_COLUMNS = '{title text} : ';
/** A phrase of no words: FTS5 matches nothing with it. */
const NOTHING = '""';

/** The fuzzy query words of a query, for the caller to expand before building SQL. */
export const fuzzyWords = (node: QueryNode): string[] => queryLeaves(node).flatMap((leaf) => (leaf.type === 'term' && leaf.match === 'fuzzy' ? tokenize(leaf.value) : []));

/** FTS5 MATCH text for one leaf, or null when the leaf needs the document (handled in JS). */
export function matchText(node: QueryNode, ctx: QueryContext): string | null {
  if (node.type === 'exists') return `paths : ${quote(pathToken(node.field))}`;
  if (node.type !== 'term' && node.type !== 'phrase') return null;
  const column = node.field === null ? TEXT_COLUMNS : node.field === 'metadata.title' ? 'title : ' : null;
  if (column === null) return null;
  const words = tokenize(node.value);
  if (words.length === 0) return null;
  if (node.type === 'phrase') return `${column}${quote(words.join(' '))}`;
  const parts = words.map((w) => {
    if (node.match === 'fuzzy') {
      const near = ctx.fuzzy.get(w) ?? [];
      return near.length === 0 ? NOTHING : `(${near.map(quote).join(' OR ')})`;
    }
    // `sea-lev*` wants a word starting with each of its words, as the evaluator reads it.
    return node.match === 'prefix' ? `${quote(w)} *` : quote(w);
  });
  return parts.length === 1 ? `${column}${parts[0]}` : `${column}(${parts.join(' AND ')})`;
}

/**
 * The words FTS5 scores a query by when each is a phrase of one word searched in the text
 * columns (a plain word, or a fuzzy word's expansion), in the order its expression numbers its
 * phrases; null for any other query. Words outside lowercase ASCII letters and digits are left
 * to FTS5, which may split or fold them otherwise than `tokenize`, and so are words shaped like a
 * path token (see the occurrences read in sqlite-search-index.ts).
 */
export function singleWordPhrases(node: QueryNode, ctx: QueryContext): string[] | null {
  if (node.type !== 'term' || node.field !== null || (node.match !== 'exact' && node.match !== 'fuzzy')) return null;
  const words = tokenize(node.value);
  const [word] = words;
  if (word === undefined || words.length !== 1) return null;
  const phrases = node.match === 'fuzzy' ? [...(ctx.fuzzy.get(word) ?? [])] : [word];
  // A word shaped like a path token may also be in the `paths` column, which the scores leave out.
  return phrases.length > 0 && phrases.every((w) => /^[a-z0-9]+$/.test(w) && !w.startsWith(PATH_TOKEN_PREFIX)) ? phrases : null;
}

/**
 * The word of a query that is one plain word searched in the title alone
 * (`metadata.title:drought`), as `singleWordPhrases` allows one; null for any other. FTS5 scores
 * it as a phrase whose occurrences are the word's in the title, found in the documents holding it
 * there.
 */
export function singleTitleWord(node: QueryNode): string | null {
  if (node.type !== 'term' || node.field !== 'metadata.title' || node.match !== 'exact') return null;
  const words = tokenize(node.value);
  const [word] = words;
  if (word === undefined || words.length !== 1) return null;
  return /^[a-z0-9]+$/.test(word) && !word.startsWith(PATH_TOKEN_PREFIX) ? word : null;
}

/**
 * The word of a query that is one prefix of three letters or more searched in the text columns
 * (`defor*`), or null: FTS5 scores it as one phrase whose occurrences are those of every
 * indexed word it starts, which can be scored from those words' occurrences. Shorter prefixes
 * have FTS5 prefix indexes and may start thousands of words; they keep FTS5's `bm25()`, as do
 * words outside lowercase ASCII letters and digits and prefixes of path tokens.
 */
export function singlePrefix(node: QueryNode): string | null {
  if (node.type !== 'term' || node.field !== null || node.match !== 'prefix') return null;
  const words = tokenize(node.value);
  const [word] = words;
  if (word === undefined || words.length !== 1) return null;
  return /^[a-z0-9]{3,}$/.test(word) && !word.startsWith(PATH_TOKEN_PREFIX) ? word : null;
}

/**
 * The whole query as one FTS5 expression over `doc_fts`, or null (see `ftsBoolean`).
 */
export const ftsExpression = (node: QueryNode, ctx: QueryContext): string | null => ftsBoolean(node, (leaf) => matchText(leaf, ctx));

/** Rows whose range field lies in the range, from the ordered `doc_range` index. */
function rangeSql(node: Extract<QueryNode, { type: 'range' }>): Sql {
  if (!(RANGE_FIELDS as readonly string[]).includes(node.field)) return { where: '0', params: [] };
  const numeric = NUMERIC_RANGE_FIELDS.includes(node.field);
  const conditions = ['field = ?'];
  const params: Param[] = [node.field];
  if (numeric) {
    // Numbers are stored as numbers; a bound that is not one matches nothing, as in the evaluator.
    const bounds = [node.min, node.max].filter((b): b is string => b !== null);
    if (bounds.some((b) => !/^-?\d+(\.\d+)?$/.test(b))) return { where: '0', params: [] };
    for (const [bound, include, operator] of [[node.min, node.includeMin, '>'], [node.max, node.includeMax, '<']] as const) {
      if (bound === null) continue;
      conditions.push(`value ${include ? `${operator}=` : operator} ?`);
      params.push(Number(bound));
      // The evaluator subtracts: an infinite value minus the same infinite bound is NaN, in no range.
      if (!Number.isFinite(Number(bound))) {
        conditions.push('value <> ?');
        params.push(Number(bound));
      }
    }
    // Values that are not numbers are stored as text, after every number: a bound takes none.
    if (node.min !== null && node.max === null) conditions.push("value < ''");
  } else {
    // Dates compare on the bound's precision: `[* TO 2021]` takes all of 2021. Every text
    // starting with the bound sorts between the bound and the bound followed by the highest
    // character, so each rule is one comparison the index can answer.
    const past = (bound: string) => `${bound}\u{10FFFF}`;
    if (node.min !== null) {
      conditions.push('value >= ?');
      params.push(node.includeMin ? node.min : past(node.min));
    }
    if (node.max !== null) {
      conditions.push('value < ?');
      params.push(node.includeMax ? past(node.max) : node.max);
    }
  }
  return { where: `doc.rowid IN (SELECT doc_rowid FROM doc_range WHERE ${conditions.join(' AND ')})`, params };
}

/**
 * An AND's or OR's children as one FTS5 expression of its free-text leaves over `doc_fts` (FTS5
 * intersects or unites them itself, far faster than one subquery per term), one of its field
 * leaves over `doc_field`, and the other children; null for an expression with no leaves.
 */
export function siblingsGrouped(node: Extract<QueryNode, { type: 'and' | 'or' }>, ctx: QueryContext): { op: string; text: string | null; fields: string | null; rest: QueryNode[] } {
  const op = node.type === 'and' ? ' AND ' : ' OR ';
  const texts = node.children.map((c) => matchText(c, ctx));
  const fields = node.children.map((c, i) => (texts[i] === null ? fieldMatch(c, ctx) : null));
  const joined = (parts: (string | null)[]) => {
    const present = parts.filter((t): t is string => t !== null);
    return present.length === 0 ? null : present.map((m) => `(${m})`).join(op);
  };
  return { op, text: joined(texts), fields: joined(fields), rest: node.children.filter((_, i) => texts[i] === null && fields[i] === null) };
}

/** The query as SQL over `doc`, or null if any leaf needs the evaluator. */
export function querySql(node: QueryNode, ctx: QueryContext): Sql | null {
  switch (node.type) {
    case 'all':
      return { where: '1', params: [] };
    case 'range':
      return rangeSql(node);
    case 'term':
    case 'phrase':
    case 'exists': {
      const m = matchText(node, ctx);
      if (m !== null) return inMatch(m);
      const f = fieldMatch(node, ctx);
      return f !== null ? inFields(f) : isEmptyFieldTerm(node) ? { where: '1', params: [] } : null;
    }
    case 'and':
    case 'or': {
      const { op, text, fields, rest } = siblingsGrouped(node, ctx);
      const others = rest.map((c) => querySql(c, ctx));
      if (others.some((p) => p === null)) return null;
      const parts = others as Sql[];
      if (fields !== null) parts.unshift(inFields(fields));
      if (text !== null) parts.unshift(inMatch(text));
      return { where: `(${parts.map((p) => p.where).join(op)})`, params: parts.flatMap((p) => p.params) };
    }
    case 'not': {
      const inner = querySql(node.child, ctx);
      return inner === null ? null : { where: `NOT (${inner.where})`, params: inner.params };
    }
  }
}

/** Positive free-text leaves, for bm25 ranking. */
export function rankedLeaves(node: QueryNode, ctx: QueryContext): QueryNode[] {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return matchText(node, ctx) === null ? [] : [node];
    case 'and':
    case 'or':
      return node.children.flatMap((c) => rankedLeaves(c, ctx));
    default:
      return [];
  }
}

/** The FTS5 expressions of the positive free-text leaves, for bm25 ranking. */
export const rankText = (node: QueryNode, ctx: QueryContext): string[] => rankedLeaves(node, ctx).map((leaf) => matchText(leaf, ctx) ?? '');

/**
 * A superset of the matches in SQL, or null when none can be had. Any `field:value` leaf needs
 * the value's words somewhere in the document, so the text columns narrow it even where only
 * the evaluator can decide the field; every other leaf is answered exactly by `querySql`.
 */
export function textPrefilter(node: QueryNode, ctx: QueryContext): Sql | null {
  switch (node.type) {
    case 'term':
    case 'phrase': {
      const m = matchText(node.field === null || node.field === 'metadata.title' ? node : { ...node, field: null }, ctx);
      return m === null ? null : inMatch(m);
    }
    case 'exists':
    case 'range':
      return querySql(node, ctx);
    case 'and': {
      const parts = node.children.map((c) => textPrefilter(c, ctx)).filter((p): p is Sql => p !== null);
      return parts.length === 0 ? null : { where: parts.map((p) => p.where).join(' AND '), params: parts.flatMap((p) => p.params) };
    }
    case 'or': {
      const parts = node.children.map((c) => textPrefilter(c, ctx));
      if (parts.length === 0 || parts.some((p) => p === null)) return null;
      return { where: `(${(parts as Sql[]).map((p) => p.where).join(' OR ')})`, params: (parts as Sql[]).flatMap((p) => p.params) };
    }
    default:
      return null;
  }
}
