import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { parseJsonInTurns, stringifyJsonInTurns, type Pieces } from './json-in-turns.ts';
import type { Slicing } from './time-slices.ts';

/** Always due: every place the walk may give the loop back, it does. */
function countingSlicing(): Slicing & { turns: number } {
  const s = { turns: 0, due: () => true, turn: async () => void s.turns++ };
  return s;
}

/** Pieces small enough that values of a few members are cut up. */
const tiny: Pieces = { chars: 1, members: 0, levels: 64 };

const jsonTexts = fc.tuple(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(undefined, 1, 2, '\t')).map(([v, space]) => JSON.stringify(v, null, space));

async function outcome(f: () => unknown): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await f() };
  } catch (e) {
    return { error: (e as Error).constructor.name };
  }
}

describe('parseJsonInTurns', () => {
  it('gives what JSON.parse gives, for any JSON text cut into pieces of any size (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(jsonTexts, fc.integer({ min: 1, max: 64 }), async (text, chars) => {
        expect(await parseJsonInTurns(text, countingSlicing(), { ...tiny, chars })).toStrictEqual(JSON.parse(text));
      }),
      { seed: 20261127, numRuns: 1500 },
    );
  });

  it('refuses with a SyntaxError exactly the texts JSON.parse refuses (seeded mutations of valid texts)', async () => {
    const mutated = fc
      .tuple(jsonTexts, fc.nat(), fc.constantFrom('', ',', ':', '"', '{', '}', '[', ']', '\\', ' ', 'x', '1'), fc.boolean())
      .map(([text, at, ch, replace]) => {
        const i = text.length === 0 ? 0 : at % text.length;
        return text.slice(0, i) + ch + text.slice(replace ? i + 1 : i);
      });
    await fc.assert(
      fc.asyncProperty(mutated, async (text) => {
        expect(await outcome(() => parseJsonInTurns(text, countingSlicing(), tiny))).toStrictEqual(await outcome(() => JSON.parse(text)));
      }),
      { seed: 11, numRuns: 3000 },
    );
  });

  it('keeps a __proto__ member as a plain member, as JSON.parse does', async () => {
    const parsed = (await parseJsonInTurns('{"__proto__": {"polluted": true}, "a": [1, 2]}', countingSlicing(), tiny)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('parses a large value natively only in pieces, giving the loop back between them', async () => {
    const value = Array.from({ length: 20_000 }, (_, i) => ({ name: `Person ${i}`, affiliations: [{ name: `Institute ${i % 97}` }] }));
    const text = JSON.stringify({ metadata: { creators: value } });
    const parse = vi.spyOn(JSON, 'parse');
    const slicing = countingSlicing();
    try {
      expect(await parseJsonInTurns(text, slicing)).toStrictEqual({ metadata: { creators: value } });
      const longest = Math.max(...parse.mock.calls.map(([t]) => t.length));
      expect(longest).toBeLessThanOrEqual(32 * 1024);
      expect(slicing.turns).toBeGreaterThan(text.length / (32 * 1024));
    } finally {
      parse.mockRestore();
    }
  });

  it('takes a value nested far deeper than it cuts up', async () => {
    const text = `${'['.repeat(5000)}${JSON.stringify('x'.repeat(100))}${']'.repeat(5000)}`;
    // Walked without recursion: comparing 5,000 levels recursively would exhaust the stack itself.
    let level = await parseJsonInTurns(text, countingSlicing(), tiny);
    let depth = 0;
    while (Array.isArray(level) && level.length === 1) [level, depth] = [level[0], depth + 1];
    expect([depth, level]).toEqual([5000, 'x'.repeat(100)]);
  });
});

describe('stringifyJsonInTurns', () => {
  it('gives what JSON.stringify gives, for any JSON value cut into pieces (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 4 }), async (value, members) => {
        expect(await stringifyJsonInTurns(value, countingSlicing(), { ...tiny, members, levels: 1 })).toBe(JSON.stringify(value));
      }),
      { seed: 20261127, numRuns: 1500 },
    );
  });

  it('indents as JSON.stringify does, for any JSON value cut into pieces (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 4 }), fc.constantFrom('  ', '\t', ' '.repeat(12)), async (value, members, indent) => {
        expect(await stringifyJsonInTurns(value, countingSlicing(), { ...tiny, members, levels: 1 }, indent)).toBe(JSON.stringify(value, null, indent));
      }),
      { seed: 20261127, numRuns: 1500 },
    );
  });

  it('indents a large value cut into runs of items as JSON.stringify does', async () => {
    const value = { metadata: { creators: Array.from({ length: 3_000 }, (_, i) => ({ name: `Person ${i}`, ids: [i, [i, []], {}] })) } };
    expect(await stringifyJsonInTurns(value, countingSlicing(), undefined, '  ')).toBe(JSON.stringify(value, null, 2));
  });

  it('leaves out what JSON.stringify leaves out, and writes null where it does', async () => {
    const value = { a: undefined, b: [undefined, () => 1, Number.NaN, -0], c: new Date(0), d: { toJSON: () => 'own' }, e: Object.create(null) as object };
    expect(await stringifyJsonInTurns(value, countingSlicing(), tiny)).toBe(JSON.stringify(value));
    expect(await stringifyJsonInTurns(value, countingSlicing(), tiny, '  ')).toBe(JSON.stringify(value, null, '  '));
  });

  it('encodes a large value in pieces, giving the loop back between them', async () => {
    const value = { metadata: { creators: Array.from({ length: 20_000 }, (_, i) => ({ name: `Person ${i}` })) } };
    const stringify = vi.spyOn(JSON, 'stringify');
    const slicing = countingSlicing();
    try {
      const text = await stringifyJsonInTurns(value, slicing);
      const encoded = stringify.mock.results.map((r) => String(r.value));
      stringify.mockRestore();
      expect(text).toBe(JSON.stringify(value));
      // Runs of at most 512 members (each item here about 22 characters) per native call.
      expect(Math.max(...encoded.map((t) => t.length))).toBeLessThan(16 * 1024);
      expect(encoded.length).toBeGreaterThan(20_000 / 512);
      expect(slicing.turns).toBeGreaterThan(0);
    } finally {
      stringify.mockRestore();
    }
  });
});
