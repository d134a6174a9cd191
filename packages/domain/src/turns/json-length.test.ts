import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLengthInTurns } from './json-length.ts';
import type { Slicing } from './time-slices.ts';

/** Always due: every place the walk may give the loop back, it does. */
function countingSlicing(): Slicing & { turns: number } {
  const s = { turns: 0, due: () => true, turn: async () => void s.turns++ };
  return s;
}

/** Any UTF-16 code unit: quotes, backslashes, control characters and lone surrogate halves among them. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 });
const anyNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, Number.NaN, Infinity, -Infinity, 1e21, 5e-324));
/** JSON values with what JSON.stringify leaves out or writes as null mixed in. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    anyText,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(undefined, () => 1, Symbol('s'), new Date(0)),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(anyText, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('jsonLengthInTurns', () => {
  it('is the length of JSON.stringify\'s text, for any value (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        expect(await jsonLengthInTurns(value, countingSlicing())).toBe(JSON.stringify(value)?.length ?? 0);
      }),
      { seed: 20261127, numRuns: 3000 },
    );
  });

  it('counts a large value in slices, giving the loop back between them', async () => {
    const value = { creators: Array.from({ length: 5_000 }, (_, i) => ({ name: `Person ${i} «é»`, ids: [i, -i / 3, true, null] })) };
    const slicing = countingSlicing();
    expect(await jsonLengthInTurns(value, slicing)).toBe(JSON.stringify(value).length);
    expect(slicing.turns).toBeGreaterThan(10);
  });

  it('measures a value nested past the walk\'s depth, and refuses a cycle as JSON.stringify does', async () => {
    let deep: unknown = ['"end"'];
    for (let i = 0; i < 200; i++) deep = { [`k${i}`]: deep };
    expect(await jsonLengthInTurns(deep, countingSlicing())).toBe(JSON.stringify(deep).length);
    const cycle: Record<string, unknown> = {};
    let at = cycle;
    for (let i = 0; i < 60; i++) at = (at['next'] = {}) as Record<string, unknown>;
    at['back'] = cycle;
    await expect(jsonLengthInTurns(cycle, countingSlicing())).rejects.toThrow(TypeError);
  });
});
