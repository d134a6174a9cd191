import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memberSpanInTurns } from './json-member-span.ts';
import type { Slicing } from './time-slices.ts';

const alwaysDue: Slicing = { due: () => true, turn: async () => undefined };

const objects = fc.tuple(
  fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('metadata', 'meta', '"metadata":', '\\', 'métadonnées')), fc.jsonValue({ maxDepth: 4 })),
  fc.constantFrom(undefined, 1, '\t'),
  fc.integer({ min: 1, max: 40 }),
);

describe('memberSpanInTurns', () => {
  it('finds the text of a top-level member, which parses to its value, whatever the text and the steps (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(objects, async ([value, space, step]) => {
        const text = JSON.stringify(value, null, space);
        const span = await memberSpanInTurns(text, 'metadata', alwaysDue, step);
        if (!Object.prototype.hasOwnProperty.call(value, 'metadata')) expect(span).toBeNull();
        else expect(JSON.parse(text.slice(...(span as [number, number])))).toStrictEqual(JSON.parse(JSON.stringify(value['metadata'])));
      }),
      { seed: 20261127, numRuns: 2000 },
    );
  });

  it('leaves the member as it is found deeper, or as a string, or in a text that is no object', async () => {
    expect(await memberSpanInTurns('{"a":{"metadata":1},"b":"\\"metadata\\":2"}', 'metadata', alwaysDue)).toBeNull();
    expect(await memberSpanInTurns('[{"metadata":1}]', 'metadata', alwaysDue)).toBeNull();
    const text = '{ "id" : "r1" , "metadata" :  {"x": [1, "}"]}  , "z": null }';
    const span = await memberSpanInTurns(text, 'metadata', alwaysDue, 3);
    expect(text.slice(...(span as [number, number]))).toBe('{"x": [1, "}"]}');
  });
});
