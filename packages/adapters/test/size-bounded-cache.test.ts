import { describe, expect, it } from 'vitest';
import { sizeBoundedCache } from '../src/size-bounded-cache.ts';

describe('sizeBoundedCache', () => {
  const texts = () => sizeBoundedCache<string>(10, (t) => t.length, 5);

  it('drops the least recently used first once over its size', () => {
    const cache = texts();
    cache.set('a', 'aaa');
    cache.set('b', 'bbb');
    cache.set('c', 'ccc');
    expect(cache.get('a')).toBe('aaa'); // now the most recent
    cache.set('d', 'ddd');
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual(['aaa', 'ccc', 'ddd']);
  });

  it('never keeps a value over its share, and replaces a key without counting it twice', () => {
    const cache = texts();
    cache.set('big', 'x'.repeat(6));
    expect(cache.get('big')).toBeUndefined();
    for (let i = 0; i < 5; i++) cache.set('k', 'yyyy');
    cache.set('m', 'zzzz');
    expect([cache.get('k'), cache.get('m')]).toEqual(['yyyy', 'zzzz']);
  });

  it('makes a value once while it is kept', () => {
    const cache = texts();
    let made = 0;
    const make = () => `v${++made}`;
    expect([cache.through('a', make), cache.through('a', make)]).toEqual(['v1', 'v1']);
    cache.drop('a');
    expect(cache.through('a', make)).toBe('v2');
  });
});
