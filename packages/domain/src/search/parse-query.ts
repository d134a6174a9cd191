/**
 * Lucene / query_string syntax to QueryNode, through the maintained `lucene` parser. Bare terms
 * are AND-ed (InvenioRDM's default operator); NOT binds tighter than AND, AND tighter than OR.
 * Text the grammar rejects becomes an AND of its words, so a search box never answers with an
 * error.
 */
import lucene, { type LuceneNode, type LuceneTerm } from 'lucene';
import type { QueryNode } from './query-ast.ts';

const isTerm = (n: LuceneNode | LuceneTerm): n is LuceneTerm => 'term' in n || 'term_min' in n;

function fieldOf(raw: string | undefined, inherited: string | null): string | null {
  return raw === undefined || raw === '<implicit>' ? inherited : raw;
}

function bound(v: string | undefined): string | null {
  return v === undefined || v === '*' ? null : unescape(v);
}

const unescape = (v: string) => v.replace(/\\(.)/g, '$1');

function wordsOf(field: string | null, value: string): QueryNode {
  const words = value.split(/\s+/).filter((w) => w !== '');
  const terms: QueryNode[] = words.map((w) => ({ type: 'term', field, value: w, match: 'exact' }));
  return terms.length === 1 && terms[0] ? terms[0] : { type: 'and', children: terms };
}

function fromTerm(t: LuceneTerm, inherited: string | null): QueryNode {
  const field = fieldOf(t.field, inherited);
  let node: QueryNode;
  if (t.term_min !== undefined || t.term_max !== undefined) {
    node = {
      type: 'range',
      field: field ?? '',
      min: bound(t.term_min),
      max: bound(t.term_max),
      includeMin: t.inclusive === 'both' || t.inclusive === 'left',
      includeMax: t.inclusive === 'both' || t.inclusive === 'right',
    };
  } else if (field === '_exists_') {
    node = { type: 'exists', field: unescape(t.term ?? '') };
  } else if (t.quoted) {
    // A sloppy phrase ("a b"~3) only promises its words nearby; all of them present is the
    // closest rule that needs no positions.
    node = typeof t.proximity === 'number' && t.proximity > 0 ? wordsOf(field, t.term ?? '') : { type: 'phrase', field, value: t.term ?? '' };
  } else {
    const value = unescape(t.term ?? '');
    if (value === '*') node = field === null ? { type: 'all' } : { type: 'exists', field };
    else if (value.endsWith('*') && value.length > 1) node = { type: 'term', field, value: value.slice(0, -1), match: 'prefix' };
    else if (typeof t.similarity === 'number') node = { type: 'term', field, value, match: 'fuzzy' };
    else node = { type: 'term', field, value, match: 'exact' };
  }
  return t.prefix === '-' || t.prefix === '!' ? negate(node) : node;
}

const negate = (node: QueryNode): QueryNode => (node.type === 'not' ? node.child : { type: 'not', child: node });

function combine(op: 'and' | 'or', parts: QueryNode[]): QueryNode {
  const children = parts.flatMap((n) => (n.type === op ? n.children : [n]));
  return children.length === 1 && children[0] ? children[0] : { type: op, children };
}

/**
 * The parser nests `a OP b OP c` to the right without precedence; this collects the chain as
 * operands and operators, then groups AND runs inside OR.
 */
function fromNode(n: LuceneNode | LuceneTerm, inherited: string | null): QueryNode {
  if (isTerm(n)) return fromTerm(n, inherited);
  const operands: QueryNode[] = [];
  const operators: string[] = [];
  // `metadata.title:(a b)` puts the field on the group: every term inside inherits it.
  const field = fieldOf(n.field, inherited);
  let cur: LuceneNode | LuceneTerm | undefined = n;
  let first = true;
  while (cur !== undefined) {
    if (!first && (isTerm(cur) || cur.parenthesized || cur.field !== undefined)) {
      operands.push(fromNode(cur, field));
      break;
    }
    first = false;
    const node: LuceneNode = cur;
    let left: QueryNode = node.left ? fromNode(node.left, field) : { type: 'all' };
    if (node.start === 'NOT') left = negate(left);
    operands.push(left);
    if (node.right === undefined) break;
    operators.push(node.operator ?? '<implicit>');
    cur = node.right;
  }
  // `a NOT b`, `a AND NOT b`: the NOT belongs to the operand on its right.
  const groups: QueryNode[][] = [[operands[0] ?? { type: 'all' }]];
  operators.forEach((op, i) => {
    let operand = operands[i + 1] ?? { type: 'all' };
    if (op.endsWith('NOT')) operand = negate(operand);
    if (op === 'OR' || op === '||' || op === 'OR NOT') groups.push([operand]);
    else groups[groups.length - 1]?.push(operand);
  });
  return combine('or', groups.map((g) => combine('and', g)));
}

/** Rewrites what the grammar lacks into what it has, outside quoted phrases. */
function prepare(q: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < q.length; i++) {
    const c = q[i] ?? '';
    const prev = i > 0 ? (q[i - 1] ?? '') : '';
    if (c === '\\') {
      out += c + (q[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    // `-(a b)`, `-field:value`: the grammar negates these only with NOT, and `+` adds nothing
    // when every clause is required anyway.
    if (!quoted && (c === '-' || c === '!' || c === '+') && (prev === '' || /[\s(]/.test(prev)) && /^(\(|[^\s:()"\\]+:)/.test(q.slice(i + 1))) {
      if (c !== '+') out += 'NOT ';
      continue;
    }
    if (!quoted && c === '~' && prev !== '"') {
      // `term~2`: the grammar reads the edit distance as a new term; the distance is chosen by
      // term length anyway (Elasticsearch's AUTO), so only the `~` is kept.
      const m = /^\d+(?![.\d])/.exec(q.slice(i + 1));
      out += '~';
      if (m) i += m[0].length;
      continue;
    }
    out += c;
  }
  return out;
}

function plainWords(q: string): QueryNode {
  const words = q.split(/[^\p{L}\p{N}_.-]+/u).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length === 0) return { type: 'all' };
  return combine(
    'and',
    words.map((w) => ({ type: 'term', field: null, value: w, match: 'exact' })),
  );
}

/** Never throws: text the grammar rejects is matched as plain words. */
export function parseQuery(q: string): QueryNode {
  if (q.trim() === '') return { type: 'all' };
  try {
    return fromNode(lucene.parse(prepare(q)), null);
  } catch {
    return plainWords(q);
  }
}
