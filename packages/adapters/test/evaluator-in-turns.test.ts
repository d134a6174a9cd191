import { describe, expect, it } from 'vitest';
import type { Slicing } from '@krs/domain';
import { decideBodyInTurns, matchesBody, parseQuery, scoreQuery } from '@krs/domain/search';
import { largestLegalMetadata } from '@krs/domain/testing';
import { randomSearch, seeded } from './contracts/random-search.ts';
import { evaluateLargeApart } from '../src/search/decide-candidates.ts';

/** A slicing whose every check says a turn is due (`always`) or none is, counting the turns taken. */
const slicing = (always: boolean) => {
  const s = { turns: 0, due: () => always, turn: async () => void s.turns++ };
  return s satisfies Slicing;
};

const evaluator = (q: string, body: object) => {
  const node = parseQuery(q);
  const matches = matchesBody(node, body);
  return { matches, score: matches ? scoreQuery(node, { body } as Parameters<typeof scoreQuery>[1]) : 0 };
};

describe('a large body decided in turns', () => {
  it("answers and scores as the evaluator at once, whether it takes a turn at every step or never (seeded)", async () => {
    for (const seed of [1, 2, 3]) {
      const { document, query } = randomSearch(seeded(seed));
      const docs = Array.from({ length: 60 }, (_, i) => document(i));
      for (let n = 0; n < 60; n++) {
        const q = query();
        for (const doc of docs) {
          const expected = evaluator(q, doc.body);
          for (const always of [true, false]) {
            const got = await decideBodyInTurns(parseQuery(q), doc.body, slicing(always));
            expect({ q, id: doc.id, ...got }).toEqual({ q, id: doc.id, ...expected });
          }
        }
      }
    }
  });

  it('decides the largest legal record as the evaluator does, a prefix and a fuzzy word of many included, taking turns as it goes', async () => {
    const body = { id: 'large', metadata: largestLegalMetadata() };
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
    for (const q of [letters.map((l) => `${l}*`).join(' OR '), 'glacer~ OR flod~', '"sea ice" AND NOT zzzz', 'metadata.creators.person_or_org.name:a*', '_exists_:metadata.funding', 'metadata.publication_date:[2000 TO *]']) {
      const s = slicing(true);
      expect(await decideBodyInTurns(parseQuery(q), body, s)).toEqual(evaluator(q, body));
      // Offered a turn at every step, it takes them as it goes.
      expect(s.turns).toBeGreaterThan(10);
    }
  });
});

describe('candidates with large ones decided apart', () => {
  it('keeps their order, decides the large ones by their own step, and draws the others only as it decides them', async () => {
    let drawn = 0;
    let largestAhead = 0;
    const decided: number[] = [];
    const items = function* () {
      for (let i = 0; i < 5_000; i++) {
        drawn++;
        largestAhead = Math.max(largestAhead, drawn - decided.length);
        yield i;
      }
    };
    const kept = await evaluateLargeApart(
      items(),
      (i) => i % 1_000 === 999,
      (i) => (decided.push(i), i % 3 === 0 ? `small ${i}` : null),
      async (i) => (decided.push(i), `large ${i}`),
    );
    const expected = Array.from({ length: 5_000 }, (_, i) => (i % 1_000 === 999 ? `large ${i}` : i % 3 === 0 ? `small ${i}` : null)).filter((x) => x !== null);
    expect(kept).toEqual(expected);
    expect(decided).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    // Each item decided as it is drawn, none gathered ahead.
    expect(largestAhead).toBe(1);
  });
});
