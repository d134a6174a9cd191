import { describe, expect, it } from 'vitest';
import { nextSearchTurn } from '../src/search/search-turns.ts';

const nextIteration = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('search turns', () => {
  it('give one search a turn per iteration of the loop, in the order they asked, so others wait for one slice at most', async () => {
    const events: string[] = [];
    const search = async (name: string, slices: number) => {
      for (let i = 0; i < slices; i++) {
        await nextSearchTurn();
        events.push(`${name}${i}`);
      }
    };
    const all = Promise.all([search('a', 3), search('b', 3), search('c', 2)]);
    // Another request's work, once per iteration from now on: between any two of its turns, one slice.
    const others = (async () => {
      for (let i = 0; i < 8; i++) {
        await nextIteration();
        events.push('|');
      }
    })();
    await Promise.all([all, others]);
    expect(events.filter((e) => e !== '|')).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2']);
    const between = events.join(' ').split('|').map((s) => s.trim().split(' ').filter(Boolean).length);
    expect(Math.max(...between)).toBe(1);
  });
});
