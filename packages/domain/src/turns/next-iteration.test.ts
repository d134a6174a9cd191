import { describe, expect, it } from 'vitest';
import { nextIteration } from './next-iteration.ts';

type Immediate = (run: () => void) => unknown;
const setImmediate = (globalThis as unknown as { setImmediate: Immediate }).setImmediate;

describe('nextIteration', () => {
  it('resumes long tasks in turn, one per iteration of the loop, so no iteration holds a slice of each', async () => {
    // A probe that counts iterations: an immediate set from an immediate runs in the next one.
    let iteration = 0;
    let probing = true;
    const probe = () => {
      iteration++;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    const resumed: [task: string, iteration: number][] = [];
    const task = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await nextIteration();
        resumed.push([name, iteration]);
      }
    };
    await Promise.all([task('a'), task('b'), task('c')]);
    probing = false;
    expect(resumed.map(([name]) => name).join('')).toBe('abcabcabc');
    const iterations = resumed.map(([, at]) => at);
    expect(new Set(iterations).size).toBe(iterations.length);
  });
});
