import { describe, expect, it } from 'vitest';
import { JsonShapeScanner } from './json-shape.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds the text in chunks of `size` bytes, as a request body arrives. */
function scan(text: string, maxDepth: number, maxContainers: number, size = 7) {
  const scanner = new JsonShapeScanner(maxDepth, maxContainers);
  const all = bytes(text);
  for (let i = 0; i < all.length; i += size) {
    const problem = scanner.write(all.subarray(i, i + size));
    if (problem) return problem;
  }
  return null;
}

describe('JSON shape scanning', () => {
  it('names the path of the first container nested too deep, across chunk boundaries', () => {
    const body = JSON.stringify({ access: { record: 'public' }, metadata: { title: 'a "quoted" [text] {x}', funding: [{ funder: {} }, { award: [[[[]]]] }] } });
    expect(scan(body, 6, 1000)).toEqual({ kind: 'too_deep', path: 'metadata.funding.1.award.0.0' });
    expect(scan(body, 8, 1000)).toBeNull();
  });

  it('keeps member names with escapes and non-ASCII text, cut to a bounded length', () => {
    expect(scan('{"mé\\"ta": [[[]]]}', 3, 100)).toEqual({ kind: 'too_deep', path: 'mé\\"ta.0.0' });
    const long = 'k'.repeat(500);
    expect(scan(`{"${long}": [[[]]]}`, 3, 100)).toEqual({ kind: 'too_deep', path: `${'k'.repeat(100)}.0.0` });
  });

  it('counts objects and arrays, not brackets inside strings', () => {
    expect(scan(JSON.stringify({ a: Array.from({ length: 10 }, () => ({})) }), 10, 12)).toBeNull();
    expect(scan(JSON.stringify({ a: Array.from({ length: 11 }, () => ({})) }), 10, 12)).toEqual({ kind: 'too_many_containers' });
    expect(scan(JSON.stringify({ a: '[[[[{{{{'.repeat(100) }), 2, 2)).toBeNull();
  });

  it('counts list items over the whole body and names the list that passes the limit', () => {
    const body = JSON.stringify({ metadata: { subjects: ['a', 'b', 'c'] }, files: { order: ['x', 'y', 'z'] } });
    expect(new JsonShapeScanner(10, 100, 4).write(bytes(body))).toBeNull();
    expect(scan(body, 10, 100)).toBeNull();
    const tight = new JsonShapeScanner(10, 100, 3);
    expect(tight.write(bytes(body))).toEqual({ kind: 'too_many_items', path: 'files.order' });
  });

  it('names the member whose string is longer than allowed, escapes counted as sent, across chunks', () => {
    const body = JSON.stringify({ metadata: { title: 'short', creators: [{ name: 'x' }, { name: 'é'.repeat(10) }] } });
    const scanner = (max: number) => new JsonShapeScanner(10, 100, 100, max);
    expect(scanner(19).write(bytes(body))).toEqual({ kind: 'too_long', path: 'metadata.creators.1.name' });
    expect(scanner(20).write(bytes(body))).toBeNull();
    const escaped = '{"description": "\\u00e9\\u00e9"}';
    expect(new JsonShapeScanner(5, 5, 5, 11).write(bytes(escaped))).toEqual({ kind: 'too_long', path: 'description' });
    const chunked = new JsonShapeScanner(5, 5, 5, 10);
    const all = bytes(JSON.stringify({ list: ['a'.repeat(6), 'b'.repeat(11)] }));
    let problem = null;
    for (let i = 0; i < all.length && problem === null; i += 3) problem = chunked.write(all.subarray(i, i + 3));
    expect(problem).toEqual({ kind: 'too_long', path: 'list.1' });
  });

  it('stops at the first problem: ten megabytes of [ are refused after the first few', () => {
    const scanner = new JsonShapeScanner(17, 200_000);
    const chunk = bytes('['.repeat(64 * 1024));
    expect(scanner.write(chunk)).toMatchObject({ kind: 'too_deep' });
    expect(scanner.write(chunk)).toMatchObject({ kind: 'too_deep' });
  });
});
