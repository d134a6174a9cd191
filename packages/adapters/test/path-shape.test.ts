/**
 * A document's path tokens and mixed flags come from its own paths, whichever documents came
 * before it: kept answers are only reused for the very same list of paths.
 */
import { describe, expect, it } from 'vitest';
import { fieldPaths, type FlatDoc } from '@krs/domain/search';
import { pathShape } from '../src/search/path-shape.ts';
import { pathToken } from '../src/search/path-token.ts';

const flat = (...paths: string[]): FlatDoc => new Map(paths.map((p) => [p, ['v']]));

describe('path shape', () => {
  it('gives the path tokens and, per path, whether it also has members holding values', () => {
    const doc = flat('metadata.subjects', 'metadata.subjects.subject', 'metadata.title');
    expect(pathShape(doc)).toEqual({ tokens: fieldPaths(doc).map(pathToken).join(' '), mixed: [1, 0, 0] });
  });

  it('answers each document from its own paths, also after documents of other shapes', () => {
    const docs = [
      flat('a', 'a.b', 'c'),
      flat('a', 'c'),
      flat('a.b', 'a', 'c'),
      flat('a', 'a.b', 'c'),
      // Joined by line breaks, these two lists would read the same.
      flat('x\ny', 'x.z'),
      flat('x', 'y', 'x.z'),
      flat('x\ny', 'x.z'),
    ];
    for (const doc of docs) {
      const paths = [...doc.keys()];
      const expected = { tokens: fieldPaths(doc).map(pathToken).join(' '), mixed: paths.map((p) => (paths.some((q) => q.startsWith(`${p}.`)) ? 1 : 0)) };
      expect([paths, pathShape(doc)]).toEqual([paths, expected]);
    }
  });
});
