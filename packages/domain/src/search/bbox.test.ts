import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { bboxIntersects, parseBBox } from './bbox.ts';

function failure(text: string): DomainError {
  try {
    parseBBox(text);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error(`parsed ${text}`);
}

describe('parseBBox', () => {
  it('reads west,north,east,south into [west, south, east, north]', () => {
    expect(parseBBox('-10.5,60,20,35')).toEqual([-10.5, 35, 20, 60]);
    expect(parseBBox(' 170 , -10 , -170 , -30 ')).toEqual([170, -30, -170, -10]);
    expect(parseBBox('-180,90,180,-90')).toEqual([-180, -90, 180, 90]);
  });

  it('rejects malformed, out of range and upside-down boxes as invalid on the bbox field', () => {
    for (const text of ['', '1,2,3', '1,2,3,4,5', 'a,b,c,d', '1,,3,4', '1e2,0,0,0', '-181,10,0,0', '0,91,10,0', '0,10,181,0', '0,10,10,-91', '0,10,10,20', 'NaN,1,2,0']) {
      const e = failure(text);
      expect(e.kind).toBe('invalid');
      expect(e.code).toBe('search.bbox');
      expect(e.details?.[0]?.field).toBe('bbox');
    }
  });
});

describe('bboxIntersects', () => {
  it('tests overlap, edges included', () => {
    expect(bboxIntersects([0, 0, 10, 10], [5, 5, 15, 15])).toBe(true);
    expect(bboxIntersects([0, 0, 10, 10], [10, 10, 20, 20])).toBe(true);
    expect(bboxIntersects([0, 0, 10, 10], [11, 0, 20, 10])).toBe(false);
    expect(bboxIntersects([0, 0, 10, 10], [0, 11, 10, 20])).toBe(false);
    expect(bboxIntersects([0, 0, 10, 10], [2, 2, 2, 2])).toBe(true);
  });

  it('splits a box crossing the antimeridian (west > east) in two', () => {
    const pacific: [number, number, number, number] = [170, -30, -170, -10];
    expect(bboxIntersects(pacific, [178, -18, 179, -17])).toBe(true);
    expect(bboxIntersects(pacific, [-175, -20, -174, -19])).toBe(true);
    expect(bboxIntersects(pacific, [0, -20, 10, -15])).toBe(false);
    expect(bboxIntersects(pacific, [178, 10, 179, 20])).toBe(false);
  });
});
