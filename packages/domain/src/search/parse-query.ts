/**
 * Lucene / query_string syntax to QueryNode, through the maintained `lucene` parser. Bare terms
 * are AND-ed (InvenioRDM's default operator). Text the grammar rejects becomes an AND of its
 * words, so a search box never answers with an error.
 */
import lucene, { type LuceneNode, type LuceneTerm } from 'lucene';
import type { QueryNode } from './query-ast.ts';

const isTerm = (n: LuceneNode | LuceneTerm): n is LuceneTerm => 'term' in n || 'term_min' in n;

function fieldOf(raw: string | undefined): string | null {
  return raw === undefined || raw === '<implicit>' ? null : raw;
}

function bound(v: string | undefined): string | null {
  return v === undefined || v === '*' ? null : v;
}

function fromTerm(t: LuceneTerm): QueryNode {
  const field = fieldOf(t.field);
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
    node = { type: 'exists', field: t.term ?? '' };
  } else if (t.quoted) {
    node = { type: 'phrase', field, value: t.term ?? '' };
  } else {
    const value = t.term ?? '';
    if (value.endsWith('*') && value.length > 1) node = { type: 'term', field, value: value.slice(0, -1), match: 'prefix' };
    else if (typeof t.similarity === 'number') node = { type: 'term', field, value, match: 'fuzzy' };
    else node = { type: 'term', field, value, match: 'exact' };
  }
  return t.prefix === '-' || t.prefix === '!' ? { type: 'not', child: node } : node;
}

function combine(op: 'and' | 'or', a: QueryNode, b: QueryNode): QueryNode {
  const children = [a, b].flatMap((n) => (n.type === op ? n.children : [n]));
  return { type: op, children };
}

function fromNode(n: LuceneNode | LuceneTerm): QueryNode {
  if (isTerm(n)) return fromTerm(n);
  const node = n as LuceneNode;
  let left: QueryNode = node.left ? fromNode(node.left) : { type: 'all' };
  if (node.start === 'NOT') left = { type: 'not', child: left };
  if (!node.right) return left;
  const right = fromNode(node.right);
  const op = node.operator ?? '<implicit>';
  if (op === 'OR' || op === '||') return combine('or', left, right);
  if (op === 'AND NOT' || op === 'OR NOT') {
    const negated: QueryNode = { type: 'not', child: right };
    return op === 'AND NOT' ? combine('and', left, negated) : combine('or', left, negated);
  }
  return combine('and', left, right);
}

function plainWords(q: string): QueryNode {
  const words = q.split(/[^\p{L}\p{N}_.-]+/u).filter((w) => w !== '');
  if (words.length === 0) return { type: 'all' };
  const terms: QueryNode[] = words.map((w) => ({ type: 'term', field: null, value: w, match: 'exact' }));
  return terms.length === 1 && terms[0] ? terms[0] : { type: 'and', children: terms };
}

export function parseQuery(q: string): QueryNode {
  if (q.trim() === '') return { type: 'all' };
  try {
    return fromNode(lucene.parse(q));
  } catch {
    return plainWords(q);
  }
}
