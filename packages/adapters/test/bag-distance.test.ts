import { describe, expect, it } from 'vitest';
import { editDistance, fuzzyDistance, fuzzyExpansions } from '@krs/domain/search';
import { withinBagDistance } from '../src/search/bag-distance.ts';

/** Words of a small alphabet, so many lie within a few edits of each other. */
function words(count: number, seed: number): string[] {
  let s = seed;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 9) }, () => 'aeglcirs\u00e9\u{1f30a}'.charAt(Math.floor(random() * 10))).join(''));
}

describe('words that may lie within a number of edits (bag distance)', () => {
  it('keeps every word within the distance, and the expansions are the same from what it keeps', () => {
    const vocabulary = words(20_000, 7);
    for (const word of ['glacer', 'sea', 'gl', 'glaciers', 'ice\u00e9', 'a\u{1f30a}c']) {
      for (const distance of [0, 1, 2]) {
        const kept = withinBagDistance(vocabulary, word, distance);
        const within = vocabulary.filter((w) => editDistance(w, word, distance) <= distance);
        expect(within.every((w) => kept.includes(w)), `${word} ${distance}`).toBe(true);
      }
      expect(fuzzyExpansions(word, withinBagDistance(vocabulary, word, fuzzyDistance(word)))).toEqual(fuzzyExpansions(word, vocabulary));
    }
  });

  it('drops words whose letters are too far from the word\'s, whatever their order', () => {
    expect(withinBagDistance(['g1x9k', 'glacier', 'gracel', 'lagcer', 'glaceeeer', 'gl'], 'glacer', 2)).toEqual(['glacier', 'gracel', 'lagcer']);
    expect(withinBagDistance(['sea', 'ase', 'sex', 'sexy', 'se', 's'], 'sea', 1)).toEqual(['sea', 'ase', 'sex', 'se']);
  });
});
