import { describe, expect, it } from 'vitest';
import { pruneDepth } from './prune-depth.ts';

describe('pruneDepth', () => {
  it('copies a value, leaving out what lies deeper than the limit; a value within it is returned as it is', () => {
    const value = { a: 1, b: [1, { c: 'x', d: [2] }], e: null };
    const copy = pruneDepth(value, 2);
    expect(copy).toEqual({ a: 1, b: [1, { c: 'x' }], e: null });
    expect(pruneDepth(value, 10)).toEqual(value);
    expect(pruneDepth(value, 10)).toBe(value);
    expect(pruneDepth(value, 2)).not.toBe(value);
    expect(pruneDepth('text', 0)).toBe('text');
  });

  it('walks a value nested a hundred thousand levels deep without running out of stack', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 100_000; i++) deep = { funding: [deep] };
    const copy = pruneDepth(deep, 4) as { funding: { funding: unknown[] }[] };
    expect(JSON.stringify(copy)).toBe('{"funding":[{"funding":[{}]}]}');
  });

  it('keeps a __proto__ key as a plain member', () => {
    const copy = pruneDepth(JSON.parse('{"__proto__": {"polluted": true}}'), 3) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
