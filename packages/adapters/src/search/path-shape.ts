/**
 * What a document's field paths alone decide for the SQLite index: the `paths` column's tokens
 * (for `_exists_:`) and, per path, whether it also has members holding values (`FieldWords`'s
 * mixed flag). Documents made by one form have the same paths in the same order, so the answer
 * is kept per list of paths: working it out again cost a create about 11 µs (every path's
 * ancestors sliced out twice, and a Set of each).
 */
import { fieldPaths, type FlatDoc } from '@krs/domain/search';
import { keptUpTo } from './kept-up-to.ts';
import { pathToken } from './path-token.ts';

export interface PathShape {
  /** `fieldPaths` as path tokens, space-separated. */
  tokens: string;
  /** Per path of the document, in its order: 1 when the path also has members holding values. */
  mixed: readonly (0 | 1)[];
}

/**
 * Lists of paths kept (custom fields' keys are the depositor's, so shapes can be many). A key is
 * a document's paths joined, a few KiB at most here.
 */
const shapes = keptUpTo<PathShape>(256);

function shapeOf(flat: FlatDoc): PathShape {
  // Paths with members holding values: each path's ancestors.
  const parents = new Set<string>();
  for (const path of flat.keys()) for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) parents.add(path.slice(0, i));
  return {
    tokens: fieldPaths(flat).map(pathToken).join(' '),
    mixed: Array.from(flat.keys(), (path) => (parents.has(path) ? 1 : 0)),
  };
}

export function pathShape(flat: FlatDoc): PathShape {
  let key = '';
  for (const path of flat.keys()) {
    // A key holding the separator could make two lists one key: such a document is worked out alone.
    if (path.includes('\n')) return shapeOf(flat);
    key += `${path}\n`;
  }
  return shapes(key, () => shapeOf(flat));
}
