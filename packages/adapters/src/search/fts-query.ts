/**
 * The parsed query language as SQLite FTS5: MATCH expressions for the free-text leaves (terms,
 * phrases, prefixes, `metadata.title:`), SQL over `doc` for boolean shapes FTS5 cannot say alone,
 * and a text prefilter for queries only the domain's evaluator can decide.
 */
import { tokenize, type QueryNode } from '@krs/domain/search';

export type Param = string | number;
export interface Sql {
  where: string;
  params: Param[];
}

const quote = (token: string) => `"${token.replace(/"/g, '""')}"`;
const inMatch = (expression: string): Sql => ({ where: 'doc.rowid IN (SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?)', params: [expression] });

/** FTS5 MATCH text for one leaf, or null when the leaf needs the document (handled in JS). */
export function matchText(node: QueryNode): string | null {
  if (node.type !== 'term' && node.type !== 'phrase') return null;
  const column = node.field === null ? '' : node.field === 'metadata.title' ? 'title : ' : null;
  if (column === null) return null;
  const words = tokenize(node.value);
  if (words.length === 0) return null;
  if (node.type === 'phrase') return `${column}${quote(words.join(' '))}`;
  if (node.match === 'fuzzy') return null;
  const last = words.length - 1;
  const parts = words.map((w, i) => (node.match === 'prefix' && i === last ? `${quote(w)} *` : quote(w)));
  return parts.length === 1 ? `${column}${parts[0]}` : `${column}(${parts.join(' AND ')})`;
}

/**
 * The whole query as one FTS5 expression, or null. Covers leaves, AND/OR of such, and an AND
 * whose NOT children are such (`(a AND b) NOT (c OR d)`); a NOT standing alone has no FTS5 form.
 */
export function ftsExpression(node: QueryNode): string | null {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return matchText(node);
    case 'or': {
      const parts = node.children.map(ftsExpression);
      return parts.some((p) => p === null) ? null : parts.map((p) => `(${p})`).join(' OR ');
    }
    case 'and': {
      const positive = node.children.filter((c) => c.type !== 'not').map(ftsExpression);
      const negative = node.children.flatMap((c) => (c.type === 'not' ? [ftsExpression(c.child)] : []));
      if (positive.length === 0 || [...positive, ...negative].some((p) => p === null)) return null;
      const and = positive.map((p) => `(${p})`).join(' AND ');
      return negative.length === 0 ? and : `(${and}) NOT (${negative.map((p) => `(${p})`).join(' OR ')})`;
    }
    default:
      return null;
  }
}

/** The query as SQL over `doc`, or null if any leaf needs the evaluator. */
export function querySql(node: QueryNode): Sql | null {
  switch (node.type) {
    case 'all':
      return { where: '1', params: [] };
    case 'term':
    case 'phrase': {
      const m = matchText(node);
      return m === null ? null : inMatch(m);
    }
    case 'and':
    case 'or': {
      // Sibling free-text leaves become one MATCH expression: FTS5 intersects or unites them
      // itself, far faster than one subquery per term.
      const op = node.type === 'and' ? ' AND ' : ' OR ';
      const texts = node.children.map(matchText);
      const merged = texts.filter((t): t is string => t !== null);
      const rest = node.children.filter((_, i) => texts[i] === null).map(querySql);
      if (rest.some((p) => p === null)) return null;
      const parts = rest as Sql[];
      if (merged.length > 0) parts.unshift(inMatch(merged.map((m) => `(${m})`).join(op)));
      return { where: `(${parts.map((p) => p.where).join(op)})`, params: parts.flatMap((p) => p.params) };
    }
    case 'not': {
      const inner = querySql(node.child);
      return inner === null ? null : { where: `NOT (${inner.where})`, params: inner.params };
    }
    default:
      return null;
  }
}

/** Positive free-text leaves, for bm25 ranking. */
export function rankText(node: QueryNode): string[] {
  switch (node.type) {
    case 'term':
    case 'phrase': {
      const m = matchText(node);
      return m === null ? [] : [m];
    }
    case 'and':
    case 'or':
      return node.children.flatMap(rankText);
    default:
      return [];
  }
}

/**
 * A superset of the matches in SQL, or null when none can be had. Any `field:value` leaf needs
 * the value's words somewhere in the document, so the text column narrows it even where only
 * the evaluator can decide the field.
 */
export function textPrefilter(node: QueryNode): Sql | null {
  switch (node.type) {
    case 'term':
    case 'phrase': {
      if (node.type === 'term' && node.match === 'fuzzy') return null;
      const m = matchText(node.field === null || node.field === 'metadata.title' ? node : { ...node, field: null });
      return m === null ? null : inMatch(m);
    }
    case 'and': {
      const parts = node.children.map(textPrefilter).filter((p): p is Sql => p !== null);
      return parts.length === 0 ? null : { where: parts.map((p) => p.where).join(' AND '), params: parts.flatMap((p) => p.params) };
    }
    case 'or': {
      const parts = node.children.map(textPrefilter);
      if (parts.length === 0 || parts.some((p) => p === null)) return null;
      return { where: `(${(parts as Sql[]).map((p) => p.where).join(' OR ')})`, params: (parts as Sql[]).flatMap((p) => p.params) };
    }
    default:
      return null;
  }
}
