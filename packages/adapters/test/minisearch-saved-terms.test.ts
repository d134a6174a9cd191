import SearchableMap from 'minisearch/SearchableMap';
import { describe, expect, it } from 'vitest';
import { exportTerms, PATH_FIELDS, postingStarts, savedTermTree, type SavedTerms } from '../src/search/minisearch-saved-terms.ts';

type Tree = Map<string, unknown>;
const LEAF = '';

/** Every node's keys in order, as nested lists: two trees with the same shape iterate, expand and score alike. */
function shape(node: Tree): unknown[] {
  return [...node.keys()].map((key) => (key === LEAF ? LEAF : [key, shape(node.get(key) as Tree)]));
}

/** Words over a small alphabet, many sharing prefixes, in a scrambled order. */
function words(): string[] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = new Set<string>();
  while (out.size < 400) out.add(Array.from({ length: 1 + Math.floor(next() * 6) }, () => 'abcü'[Math.floor(next() * 4)]).join(''));
  return [...out];
}

/** The words with postings of one field each, the word's number as its short id. */
function saved(terms: string[]): SavedTerms {
  const postings = Int32Array.from(terms.flatMap((_, i) => [1, 0, 1, i, i + 1]));
  return { terms, starts: postingStarts(terms.length, postings), postings };
}

describe('the term tree read from a snapshot', () => {
  // What a snapshot holds: the words of a tree written to (added and removed), in its iterator's order.
  const written = new SearchableMap<number>();
  for (const word of words()) written.set(word, 0);
  for (const word of words().filter((_, i) => i % 5 === 0)) written.delete(word);
  const list = [...written.keys()];

  it('has the shape of the tree built word by word from the same list, node for node, children in the same order', () => {
    const byWord = new SearchableMap<number>();
    for (const word of list) byWord.set(word, 0);
    expect(shape(savedTermTree(saved(list)))).toEqual(shape(byWord._tree as Tree));
  });

  it("gives each word its postings, and writes the words back in the iterator's order whether read in or not", () => {
    const terms = saved(list);
    const tree = new SearchableMap<Map<number, Map<number, number>>>(savedTermTree(terms) as ConstructorParameters<typeof SearchableMap<Map<number, Map<number, number>>>>[0]);
    const expectedOrder = [...new SearchableMap<number>(savedTermTree(terms) as ConstructorParameters<typeof SearchableMap<number>>[0]).keys()];
    const exported = () => {
      const out: string[] = [];
      const postings: number[] = [];
      exportTerms(tree._tree as Tree, '', out, postings);
      return { out, postings };
    };
    const untouched = exported();
    expect(untouched.out).toEqual(expectedOrder);
    // Some nodes read in, one word's postings read, one word added and one removed.
    expect(tree.get(list[3] ?? '')?.get(0)?.get(3)).toBe(4);
    expect([...tree.atPrefix('ab').keys()].every((w) => w.startsWith('ab'))).toBe(true);
    tree.set('abcabcz', new Map([[0, new Map([[999, 1]])]]));
    tree.delete(list[10] ?? '');
    const after = exported();
    expect(after.out).toEqual([...tree.keys()]);
    expect(after.out).toHaveLength(list.length);
    expect(new Set(after.out)).toEqual(new Set([...list.filter((w) => w !== list[10]), 'abcabcz']));
  });

  it('holds every word of a list that is not a walk of a tree, read word by word', () => {
    const list = ['ab', 'b', 'ac', 'a', 'abc'];
    const tree = new SearchableMap<unknown>(savedTermTree(saved(list)) as ConstructorParameters<typeof SearchableMap<unknown>>[0]);
    expect(list.map((w) => tree.has(w))).toEqual([true, true, true, true, true]);
    expect(new Set(tree.keys())).toEqual(new Set(list));
  });

  it("keeps a path field's postings as short ids alone, read back with frequency 1 and written back as they were", () => {
    const path = PATH_FIELDS + 4;
    // `sea`: the text field's (short 3 twice, short 8 once) and one path's (shorts 3 and 8); `ice`: a path's alone.
    const postings = Int32Array.from([2, 1, 2, 3, 2, 8, 1, path, 2, 3, 8, 1, path, 1, 5]);
    const terms = { terms: ['sea', 'ice'], starts: postingStarts(2, postings), postings };
    expect([...terms.starts]).toEqual([0, 11, 15]);
    const tree = new SearchableMap<Map<number, Map<number, number>>>(savedTermTree(terms) as ConstructorParameters<typeof SearchableMap<Map<number, Map<number, number>>>>[0]);
    expect(new Map(tree.get('sea'))).toEqual(new Map([[1, new Map([[3, 2], [8, 1]])], [path, new Map([[3, 1], [8, 1]])]]));
    const out: string[] = [];
    const written: number[] = [];
    exportTerms(tree._tree as Tree, '', out, written);
    // The iterator's order: each node's children last first; `sea` was read in, `ice` was not.
    expect(out).toEqual(['ice', 'sea']);
    expect(written).toEqual([1, path, 1, 5, 2, 1, 2, 3, 2, 8, 1, path, 2, 3, 8]);
    expect(() => postingStarts(2, postings.subarray(0, 14))).toThrow();
  });
});
