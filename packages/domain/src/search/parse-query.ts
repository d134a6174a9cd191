/**
 * Lucene / query_string syntax to QueryNode. Bare terms are AND-ed (InvenioRDM's default
 * operator); NOT binds tighter than AND, AND tighter than OR.
 *
 * Hand-written rather than a library: the maintained `lucene` package (a PEG grammar) backtracks
 * exponentially on unclosed groups (`(a ` fifteen times took 4.6 s, twenty ran out of memory).
 * This is one pass of a lexer over the text and one pass of a recursive-descent parser over its
 * tokens, each token read once, so the work is linear in the length; the length, the number of
 * leaves and the nesting are bounded besides (`QUERY_LIMITS`). Text the grammar rejects, or that
 * is over a bound, becomes an AND of its words, so a search box never answers with an error.
 */
import { tokenize } from './match-query.ts';
import type { QueryNode } from './query-ast.ts';

/** Past any of these the text is matched as plain words. Documented in docs/search.md. */
export const QUERY_LIMITS = {
  /** Characters of query text. */
  length: 1000,
  /** Leaves (terms, phrases, ranges, `_exists_`); also the words kept by the plain-text fallback. */
  terms: 32,
  /** Parenthesised groups inside one another. */
  depth: 8,
} as const;

type Token =
  | { kind: 'word'; text: string; raw: string }
  | { kind: 'phrase'; text: string; slop: boolean }
  | { kind: 'field'; name: string }
  | { kind: 'op'; op: 'AND' | 'OR' | 'NOT' }
  | { kind: 'prefix'; op: '+' | '-' }
  | { kind: 'open' | 'close' | 'fuzzy' | 'to' }
  | { kind: 'range-open'; inclusive: boolean }
  | { kind: 'range-close'; inclusive: boolean };

/** Thrown for text the grammar rejects; caught here and turned into the plain-text fallback. */
class Unparsable extends Error {}

/** Counts the work done, so tests can bound it without a clock. */
export interface ParseStats {
  steps: number;
}

const SPECIAL = new Set([' ', '\t', '\n', '\r', '(', ')', '[', ']', '{', '}', '"', ':', '^', '~']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

function lex(q: string, stats: ParseStats): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  // `+`, `-` and `!` negate or require only at the start of a clause.
  const atClauseStart = () => i === 0 || isSpace(q[i - 1] ?? '') || q[i - 1] === '(';
  while (i < q.length) {
    stats.steps++;
    const c = q[i] ?? '';
    if (isSpace(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close' });
      i++;
    } else if (c === '[' || c === '{') {
      tokens.push({ kind: 'range-open', inclusive: c === '[' });
      i++;
    } else if (c === ']' || c === '}') {
      tokens.push({ kind: 'range-close', inclusive: c === ']' });
      i++;
    } else if (c === '"') {
      let text = '';
      i++;
      while (i < q.length && q[i] !== '"') {
        stats.steps++;
        if (q[i] === '\\' && i + 1 < q.length) i++;
        text += q[i];
        i++;
      }
      if (i >= q.length) throw new Unparsable('unclosed phrase');
      i++;
      let slop = false;
      // `"a b"~3`: a sloppy phrase.
      if (q[i] === '~') {
        i++;
        const n = /^\d+/.exec(q.slice(i, i + 8));
        if (n) {
          i += n[0].length;
          slop = Number(n[0]) > 0;
        }
      }
      tokens.push({ kind: 'phrase', text, slop });
    } else if (c === '~') {
      // `term~`, `term~2`, `term~0.8`: the edit distance is chosen by term length anyway
      // (Elasticsearch's AUTO), so the number is read and dropped.
      const prev = tokens[tokens.length - 1];
      if (prev?.kind !== 'word' || isSpace(q[i - 1] ?? ' ')) throw new Unparsable('stray ~');
      i++;
      const n = /^\d+(\.\d+)?/.exec(q.slice(i, i + 16));
      if (n) i += n[0].length;
      tokens.push({ kind: 'fuzzy' });
    } else if (c === '^') {
      // A boost changes scores only; read and dropped.
      const n = /^\d+(\.\d+)?/.exec(q.slice(i + 1, i + 17));
      if (!n || tokens.length === 0) throw new Unparsable('stray ^');
      i += 1 + n[0].length;
    } else if (c === ':') {
      throw new Unparsable('stray :');
    } else if ((c === '+' || c === '-' || c === '!') && atClauseStart() && i + 1 < q.length && !isSpace(q[i + 1] ?? ' ')) {
      tokens.push(c === '!' ? { kind: 'op', op: 'NOT' } : { kind: 'prefix', op: c });
      i++;
    } else {
      let text = '';
      let raw = '';
      while (i < q.length) {
        const d = q[i] ?? '';
        if (SPECIAL.has(d) || isSpace(d)) break;
        stats.steps++;
        if (d === '\\') {
          if (i + 1 >= q.length) throw new Unparsable('trailing escape');
          text += q[i + 1];
          raw += d + q[i + 1];
          i += 2;
          continue;
        }
        text += d;
        raw += d;
        i++;
      }
      if (q[i] === ':') {
        tokens.push({ kind: 'field', name: text });
        i++;
      } else if (raw === 'AND' || raw === '&&' || raw === 'OR' || raw === '||' || raw === 'NOT') {
        tokens.push({ kind: 'op', op: raw === '&&' ? 'AND' : raw === '||' ? 'OR' : raw });
      } else if (raw === 'TO') {
        tokens.push({ kind: 'to' });
      } else {
        tokens.push({ kind: 'word', text, raw });
      }
    }
  }
  return tokens;
}

const negate = (node: QueryNode): QueryNode => (node.type === 'not' ? node.child : { type: 'not', child: node });

/** Flattens nested groups of the same operator; `all` drops out of an AND and absorbs an OR. */
function combine(op: 'and' | 'or', parts: QueryNode[]): QueryNode {
  if (op === 'or' && parts.some((n) => n.type === 'all')) return { type: 'all' };
  const children = parts.flatMap((n) => (n.type === op ? n.children : n.type === 'all' ? [] : [n]));
  if (children.length === 0) return { type: 'all' };
  return children.length === 1 && children[0] ? children[0] : { type: op, children };
}

/**
 * A term or phrase without a single word (`**`, `"!?"`) holds in every document, as the
 * evaluator decides it: said so here, no engine has to look at documents to find that out.
 */
const wordless = (value: string) => tokenize(value).length === 0;

const words = (field: string | null, text: string): QueryNode =>
  combine(
    'and',
    text
      .split(/\s+/)
      .filter((w) => w !== '')
      .map((value) => ({ type: 'term', field, value, match: 'exact' })),
  );

/** Recursive descent over the tokens; every token is consumed once, and depth is bounded. */
function parseTokens(tokens: Token[], stats: ParseStats): QueryNode {
  let pos = 0;
  let leaves = 0;
  const peek = () => tokens[pos];
  const next = () => {
    stats.steps++;
    const t = tokens[pos++];
    if (t === undefined) throw new Unparsable('unexpected end');
    return t;
  };
  const leaf = (node: QueryNode): QueryNode => {
    if (++leaves > QUERY_LIMITS.terms) throw new Unparsable('too many terms');
    return node;
  };

  function bound(t: Token): string | null {
    if (t.kind === 'phrase') return t.text;
    if (t.kind !== 'word') throw new Unparsable('range bound');
    return t.raw === '*' ? null : t.text;
  }

  function range(field: string | null, open: Extract<Token, { kind: 'range-open' }>): QueryNode {
    const min = bound(next());
    if (next().kind !== 'to') throw new Unparsable('range without TO');
    const max = bound(next());
    const close = next();
    if (close.kind !== 'range-close') throw new Unparsable('unclosed range');
    return leaf({ type: 'range', field: field ?? '', min, max, includeMin: open.inclusive, includeMax: close.inclusive });
  }

  function word(field: string | null, t: Extract<Token, { kind: 'word' }>): QueryNode {
    const fuzzy = peek()?.kind === 'fuzzy';
    if (fuzzy) next();
    if (field === '_exists_') return leaf({ type: 'exists', field: t.text });
    if (t.raw === '*') return field === null ? { type: 'all' } : leaf({ type: 'exists', field });
    const prefix = t.raw.endsWith('*') && !t.raw.endsWith('\\*') && t.text.length > 1;
    const value = prefix ? t.text.slice(0, -1) : t.text;
    if (wordless(value)) return leaf({ type: 'all' });
    return leaf({ type: 'term', field, value, match: prefix ? 'prefix' : fuzzy ? 'fuzzy' : 'exact' });
  }

  /** A term, phrase, range or group, in the field given (inherited from `field:(...)`). */
  function primary(field: string | null, depth: number): QueryNode {
    const t = next();
    switch (t.kind) {
      case 'open': {
        if (depth >= QUERY_LIMITS.depth) throw new Unparsable('too deep');
        const inner = or(field, depth + 1);
        if (next().kind !== 'close') throw new Unparsable('unclosed group');
        return inner;
      }
      case 'field': {
        const value = peek();
        if (value === undefined || value.kind === 'field' || value.kind === 'op' || value.kind === 'prefix' || value.kind === 'close') throw new Unparsable('field without value');
        return primary(t.name, depth);
      }
      case 'word':
        return word(field, t);
      case 'phrase':
        // A sloppy phrase only promises its words nearby; all of them present is the closest
        // rule that needs no positions.
        if (wordless(t.text)) return leaf({ type: 'all' });
        return leaf(t.slop ? words(field, t.text) : { type: 'phrase', field, value: t.text });
      case 'range-open':
        return range(field, t);
      default:
        throw new Unparsable(`unexpected ${t.kind}`);
    }
  }

  /** Any run of NOT, `!`, `-` and `+` before a clause, read in a loop rather than by recursion. */
  function unary(field: string | null, depth: number): QueryNode {
    let negated = false;
    for (let t = peek(); t !== undefined && ((t.kind === 'op' && t.op === 'NOT') || t.kind === 'prefix'); t = peek()) {
      next();
      if (t.kind === 'op' || t.op === '-') negated = !negated;
    }
    const node = primary(field, depth);
    return negated ? negate(node) : node;
  }

  const startsClause = (t: Token | undefined) => t !== undefined && t.kind !== 'close' && !(t.kind === 'op' && t.op !== 'NOT');

  function and(field: string | null, depth: number): QueryNode {
    const parts = [unary(field, depth)];
    for (;;) {
      const t = peek();
      if (t?.kind === 'op' && t.op === 'AND') {
        next();
        parts.push(unary(field, depth));
      } else if (startsClause(t)) {
        parts.push(unary(field, depth));
      } else {
        return combine('and', parts);
      }
    }
  }

  function or(field: string | null, depth: number): QueryNode {
    const parts = [and(field, depth)];
    while (peek()?.kind === 'op' && (peek() as Extract<Token, { kind: 'op' }>).op === 'OR') {
      next();
      parts.push(and(field, depth));
    }
    return combine('or', parts);
  }

  const node = or(null, 0);
  if (pos !== tokens.length) throw new Unparsable('trailing tokens');
  return node;
}

const OPERATOR_WORDS = new Set(['AND', 'OR', 'NOT', 'TO']);

/** The plain-text fallback: the first `QUERY_LIMITS.terms` words, operators left out, AND-ed. */
function plainWords(q: string, stats: ParseStats): QueryNode {
  const found: QueryNode[] = [];
  const seen = new Set<string>();
  for (const m of q.matchAll(/[\p{L}\p{N}_.-]+/gu)) {
    stats.steps++;
    const w = m[0];
    if (OPERATOR_WORDS.has(w) || seen.has(w) || !/[\p{L}\p{N}]/u.test(w)) continue;
    seen.add(w);
    found.push({ type: 'term', field: null, value: w, match: 'exact' });
    if (found.length === QUERY_LIMITS.terms) break;
  }
  return found.length === 0 ? { type: 'all' } : combine('and', found);
}

/** `parseQuery`, also reporting the work it did (for tests that bound it). */
export function parseQueryCounting(q: string): { node: QueryNode; stats: ParseStats } {
  const stats: ParseStats = { steps: 0 };
  if (q.trim() === '') return { node: { type: 'all' }, stats };
  if (q.length > QUERY_LIMITS.length) {
    // Cut at the last space before the bound, so no word is read half.
    const head = q.slice(0, QUERY_LIMITS.length + 1).replace(/\S*$/u, '');
    return { node: plainWords(head, stats), stats };
  }
  try {
    return { node: parseTokens(lex(q, stats), stats), stats };
  } catch (e) {
    if (!(e instanceof Unparsable)) throw e;
    return { node: plainWords(q, stats), stats };
  }
}

/** Never throws: text the grammar rejects, or over a bound, is matched as plain words. */
export function parseQuery(q: string): QueryNode {
  return parseQueryCounting(q).node;
}
