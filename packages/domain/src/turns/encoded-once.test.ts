import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeOnce } from './encoded-once.ts';
import { stringifyJsonInTurns, type Pieces } from './json-in-turns.ts';
import type { Slicing } from './time-slices.ts';

const alwaysDue: Slicing = { due: () => true, turn: async () => undefined };
const tiny: Pieces = { chars: 1, members: 0, levels: 64 };

/** JSON values with members JSON.stringify leaves out or writes as null, and a Date (its own toJSON). */
const values = fc.dictionary(
  fc.string({ maxLength: 6 }),
  fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant(undefined), fc.constant(() => 1), fc.constant(new Date(0)), fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)))),
);

describe('encodeOnce', () => {
  it('gives what JSON.stringify gives (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        expect(await encodeOnce(value, alwaysDue)).toBe(JSON.stringify(value));
      }),
      { seed: 20261127, numRuns: 500 },
    );
  });

  it('is spliced where the encoder meets the value or its members again, which are then not read again', async () => {
    const metadata = { title: 'Flood maps', creators: [{ name: 'Obi' }], locations: { features: [{ place: 'Delta' }] } };
    const text = await encodeOnce(metadata, alwaysDue);
    // Changed behind the kept texts' back, which a domain value never is: what the encoder
    // writes shows whether it read the values or spliced their texts.
    metadata.title = 'changed';
    metadata.locations.features.push({ place: 'changed' });
    const answer = { id: 'r1', metadata };
    expect(await stringifyJsonInTurns(answer, alwaysDue)).toBe(`{"id":"r1","metadata":${text}}`);
    const withoutEmails = { ...metadata, creators: [{ name: 'Obi' }] };
    const document = { id: 'r1', body: { metadata: withoutEmails } };
    expect(await stringifyJsonInTurns(document, alwaysDue, tiny)).toBe(
      `{"id":"r1","body":{"metadata":{"title":"changed","creators":[{"name":"Obi"}],"locations":{"features":[{"place":"Delta"}]}}}}`,
    );
  });

  it('is not spliced into indented text', async () => {
    const metadata = { title: 'Flood maps', locations: [{ place: 'Delta' }] };
    await encodeOnce(metadata, alwaysDue);
    expect(await stringifyJsonInTurns({ metadata }, alwaysDue, tiny, '  ')).toBe(JSON.stringify({ metadata }, null, '  '));
  });
});
