import { describe, expect, it } from 'vitest';
import { fuzzyExpansions } from '@krs/domain/search';
import { expandInSlices } from '../src/search/expand-in-slices.ts';

describe('expandInSlices', () => {
  // Near words spread over every part of a vocabulary of five parts, more of them than a term expands to.
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => (i % 97 === 0 ? `glacie${String.fromCharCode(97 + (i % 26))}${i % 3 === 0 ? 's' : ''}` : `g${i.toString(36)}zz`));

  it('expands as fuzzyExpansions does over the whole vocabulary', async () => {
    const whole = fuzzyExpansions('glacier', vocabulary);
    expect(whole.length).toBeGreaterThan(1);
    expect(await expandInSlices('glacier', vocabulary)).toEqual(whole);
    expect(await expandInSlices('gxyz', vocabulary)).toEqual(fuzzyExpansions('gxyz', vocabulary));
  });

  it('lets other work run between its parts', async () => {
    let others = 0;
    const ticker = () => setImmediate(() => (others++ < 100 ? ticker() : undefined));
    ticker();
    await expandInSlices('glacier', vocabulary);
    expect(others).toBeGreaterThanOrEqual(4);
  });
});
