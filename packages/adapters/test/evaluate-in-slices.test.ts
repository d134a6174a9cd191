import { describe, expect, it } from 'vitest';
import { evaluateInSlices } from '../src/search/evaluate-in-slices.ts';

describe('evaluateInSlices', () => {
  it('keeps what decide keeps, in order', async () => {
    expect(await evaluateInSlices([1, 2, 3, 4], (x) => (x % 2 === 0 ? x * 10 : null))).toEqual([20, 40]);
  });

  it('lets other work run between slices', async () => {
    const seen: string[] = [];
    const ticker = () =>
      setImmediate(() => {
        seen.push('other');
        if (seen.length < 20) ticker();
      });
    ticker();
    // A slice of 0 ms ends after every item: the other work gets a turn between them.
    await evaluateInSlices(['a', 'b', 'c'], (x) => {
      seen.push(x);
      return x;
    }, 0);
    expect(seen.slice(0, 5)).toEqual(['a', 'other', 'b', 'other', 'c']);
  });
});
