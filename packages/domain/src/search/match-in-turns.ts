/**
 * The evaluator's answer for one large body, `matchesBody` and `scoreQuery` together, in slices.
 * At once, the largest legal record holds the loop for 70-220 ms a query: its values flattened and
 * split into words for every leaf, and a prefix or fuzzy leaf compared with each of its words.
 * Here the body is flattened in turns, each field a leaf reads is counted once into its distinct
 * words, and every leaf is decided over those distinct words (or, for a phrase, its values) a
 * slice at a time; the query's tree is then decided from the leaves' answers.
 */
import type { Slicing } from '../turns/index.ts';
import type { QueryNode } from './query-ast.ts';
import { fieldValues, flattenInTurns, inRange, isFuzzyMatch, positiveTerms, RANGE_FIELDS, tokenize, type FlatDoc } from './match-query.ts';

export interface BodyDecision {
  matches: boolean;
  /** `scoreQuery`'s score; 0 when the body does not match. */
  score: number;
}

type Leaf = Exclude<QueryNode, { type: 'and' | 'or' | 'not' }>;

/** The words of a field (null: every value), each with how often it occurs, and how many in all. */
interface FieldWords {
  counts: Map<string, number>;
  total: number;
}

class BodyText {
  private readonly words = new Map<string | null, FieldWords>();
  constructor(
    readonly flat: FlatDoc,
    readonly slicing: Slicing,
  ) {}

  /** `valuesFor` of match-query.ts: the field's values, or every value for null. */
  *values(field: string | null): Iterable<string> {
    if (field !== null) {
      yield* fieldValues(this.flat, field);
      return;
    }
    for (const values of this.flat.values()) yield* values;
  }

  async some(values: Iterable<string>, test: (value: string) => boolean): Promise<boolean> {
    for (const value of values) {
      if (test(value)) return true;
      if (this.slicing.due()) await this.slicing.turn();
    }
    return false;
  }

  async wordsOf(field: string | null): Promise<FieldWords> {
    let known = this.words.get(field);
    if (known !== undefined) return known;
    known = { counts: new Map(), total: 0 };
    for (const value of this.values(field)) {
      for (const word of tokenize(value)) {
        known.counts.set(word, (known.counts.get(word) ?? 0) + 1);
        known.total++;
      }
      if (this.slicing.due()) await this.slicing.turn();
    }
    this.words.set(field, known);
    return known;
  }
}

async function decideLeaf(leaf: Leaf, text: BodyText): Promise<boolean> {
  switch (leaf.type) {
    case 'all':
      return true;
    case 'exists':
      return text.some(text.values(leaf.field), () => true);
    case 'range':
      return (RANGE_FIELDS as readonly string[]).includes(leaf.field) && text.some(text.flat.get(leaf.field) ?? [], (v) => inRange(v, leaf));
    case 'phrase': {
      const words = ` ${tokenize(leaf.value).join(' ')} `;
      return text.some(text.values(leaf.field), (v) => ` ${tokenize(v).join(' ')} `.includes(words));
    }
    case 'term': {
      const wanted = tokenize(leaf.value);
      if (wanted.length === 0) return true;
      const lower = leaf.value.toLowerCase();
      if (leaf.match === 'exact' && leaf.field !== null && (await text.some(text.values(leaf.field), (v) => v.toLowerCase() === lower))) return true;
      const { counts } = await text.wordsOf(leaf.field);
      for (const w of wanted) {
        const found =
          leaf.match === 'exact'
            ? counts.has(w)
            : await text.some(counts.keys(), leaf.match === 'prefix' ? (x) => x.startsWith(w) : (x) => isFuzzyMatch(x, w));
        if (!found) return false;
      }
      return true;
    }
  }
}

async function decideLeaves(node: QueryNode, text: BodyText, into: Map<QueryNode, boolean>): Promise<void> {
  switch (node.type) {
    case 'and':
    case 'or':
      for (const child of node.children) await decideLeaves(child, text, into);
      return;
    case 'not':
      return decideLeaves(node.child, text, into);
    default:
      into.set(node, await decideLeaf(node, text));
  }
}

function decideTree(node: QueryNode, leaves: Map<QueryNode, boolean>): boolean {
  switch (node.type) {
    case 'and':
      return node.children.every((c) => decideTree(c, leaves));
    case 'or':
      return node.children.some((c) => decideTree(c, leaves));
    case 'not':
      return !decideTree(node.child, leaves);
    default:
      return leaves.get(node) === true;
  }
}

/** `scoreQuery`, counted from the distinct words: a word starting with a term counts as often as it occurs. */
async function score(node: QueryNode, text: BodyText): Promise<number> {
  const terms = positiveTerms(node);
  if (terms.length === 0) return 0;
  const all = await text.wordsOf(null);
  const title = await text.wordsOf('metadata.title');
  let sum = 0;
  for (const term of terms) {
    for (const counted of [all, title]) {
      for (const [word, count] of counted.counts) {
        if (word.startsWith(term)) sum += count;
        if (text.slicing.due()) await text.slicing.turn();
      }
    }
  }
  return sum / Math.sqrt(1 + all.total / 50);
}

/**
 * `matchesBody(node, body)` and, when it matches, `scoreQuery(node, {body})`, the same answers,
 * with `slicing` consulted between steps.
 */
export async function decideBodyInTurns(node: QueryNode, body: object, slicing: Slicing): Promise<BodyDecision> {
  const text = new BodyText(await flattenInTurns(body, async () => (slicing.due() ? slicing.turn() : undefined)), slicing);
  const leaves = new Map<QueryNode, boolean>();
  await decideLeaves(node, text, leaves);
  const matches = decideTree(node, leaves);
  return { matches, score: matches ? await score(node, text) : 0 };
}
