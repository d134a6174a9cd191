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

  it('takes shorter slices while other work is waiting between them', async () => {
    // A clock that moves 1 ms per item decided and 1 ms per turn of the other work.
    let clock = 0;
    const seen: string[] = [];
    let going = true;
    const other = () =>
      setImmediate(() => {
        clock += 1;
        seen.push('other');
        if (going) other();
      });
    other();
    await evaluateInSlices(Array.from({ length: 12 }, (_, i) => i), (x) => {
      clock += 1;
      seen.push(String(x));
      return x;
    }, 4, { busySliceMs: 1, now: () => clock });
    going = false;
    // Items decided between two turns of the other work: 4 before the first, then 1 at a time.
    const runs = seen.join(' ').split('other').map((run) => run.trim().split(' ').filter(Boolean).length).filter((n) => n > 0);
    expect(runs).toEqual([4, 1, 1, 1, 1, 1, 1, 1, 1]);
  });
});
