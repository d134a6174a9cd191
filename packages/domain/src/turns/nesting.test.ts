import { describe, expect, it } from 'vitest';
import { nestsWithinInTurns } from './nesting.ts';

const always = { due: () => true, turn: async () => undefined };
const nested = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { member: v };
  return v;
};

describe('nestsWithinInTurns', () => {
  it('counts the value itself as the first level, scalars as none', async () => {
    expect(await nestsWithinInTurns(nested(3), 3, always)).toBe(true);
    expect(await nestsWithinInTurns(nested(4), 3, always)).toBe(false);
    expect(await nestsWithinInTurns('text', 0, always)).toBe(true);
    expect(await nestsWithinInTurns({ a: [1, { b: null }] }, 3, always)).toBe(true);
    expect(await nestsWithinInTurns({ a: [1, { b: [] }] }, 3, always)).toBe(false);
  });

  it('walks a value nested a hundred thousand levels deep, and one of many containers, taking turns', async () => {
    expect(await nestsWithinInTurns(nested(100_000), 16, always)).toBe(false);
    let turns = 0;
    const wide = Array.from({ length: 10_000 }, (_, i) => ({ creator: { name: `n${i}`, affiliations: [{ name: 'a' }] } }));
    expect(await nestsWithinInTurns({ creators: wide }, 6, { due: () => true, turn: async () => void turns++ })).toBe(true);
    expect(turns).toBeGreaterThan(10);
  });
});
