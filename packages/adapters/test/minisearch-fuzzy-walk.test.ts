import { describe, expect, it } from 'vitest';
import SearchableMap from 'minisearch/SearchableMap';
import type { TermData } from '../src/search/minisearch-saved-terms.ts';
import { fuzzyFind, FuzzyWalk, type FuzzyFound } from '../src/search/minisearch-fuzzy-walk.ts';
import { seeded } from './contracts/random-search.ts';

const LETTERS = 'aabceilmnorst';

/** The walk a node at a time: the most a caller may cut it up. */
function walkAll(tree: SearchableMap<TermData>, word: string, distance: number): { found: FuzzyFound; steps: number } {
  const walk = new FuzzyWalk(tree._tree, word, distance);
  let steps = 1;
  while (!walk.run(1)) steps++;
  return { found: walk.found, steps };
}

describe('the fuzzy walk in steps', () => {
  it("finds the words MiniSearch's fuzzyGet finds, with the same distances, in the same order (seeded)", () => {
    let cutUp = 0;
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed);
      const word = (length: number) => Array.from({ length }, () => LETTERS[Math.floor(random() * LETTERS.length)] ?? 'a').join('');
      const tree = new SearchableMap<TermData>();
      for (let i = 0; i < 3000; i++) tree.set(word(2 + Math.floor(random() * 7)), new Map([[0, new Map([[i, 1]])]]));
      for (let q = 0; q < 40; q++) {
        const query = word(2 + Math.floor(random() * 6));
        for (const distance of [1, 2, 3]) {
          const { found, steps } = walkAll(tree, query, distance);
          const wanted = [...tree.fuzzyGet(query, distance).entries()];
          expect([...found.entries()]).toEqual(wanted);
          expect([...fuzzyFind(tree._tree, query, distance).entries()]).toEqual(wanted);
          // A step per node entered: the caller may give the loop back between any two.
          cutUp += steps - 1;
        }
      }
    }
    expect(cutUp).toBeGreaterThan(1000);
  });
});
