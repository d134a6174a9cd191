import { describe, expect, it } from 'vitest';
import { parseQuery } from '@krs/domain/search';
import { rangeColumns, RangeValues, type RangeNode } from '../src/search/range-values.ts';

const N = 100_000;
/** Every document's version index, 1 to 5; document 0 holds none. */
const values = () => RangeValues.fromColumns(new Map([['versions.index', rangeColumns(Array.from({ length: N - 1 }, (_, i) => [i + 1, ((i + 1) % 5) + 1]).sort((a, b) => (a[1] as number) - (b[1] as number)))]]));
const rangeOf = (q: string) => parseQuery(q) as RangeNode;
const counting = () => {
  const pauses: number[] = [];
  return { pauses, pause: async () => void pauses.push(1) };
};
const rowsTo = (n: number, keep: (x: number) => boolean) => Array.from({ length: n }, (_, i) => i).filter(keep);

describe('range values held in memory', () => {
  // A range over every document, marked and listed at once, held the loop for milliseconds beside cheap GETs.
  it('lists a range over most documents with pauses between steps, in rowid order', async () => {
    const { pauses, pause } = counting();
    const rows = await values().rows(rangeOf('versions.index:[2 TO 5]'), null, pause);
    expect(Array.from(rows)).toEqual(rowsTo(N, (x) => x > 0 && x % 5 !== 0));
    expect(pauses.length).toBeGreaterThan(5);
  });

  it('lists the rows a range does not take with pauses between steps', async () => {
    const { pauses, pause } = counting();
    const rows = await values().rows(rangeOf('versions.index:[2 TO 5]'), N - 1, pause);
    expect(Array.from(rows)).toEqual(rowsTo(N, (x) => x === 0 || x % 5 === 0));
    expect(pauses.length).toBeGreaterThan(5);
  });

  it('marks a range with pauses between steps, a document written meanwhile by its values now', async () => {
    const v = values();
    let written = false;
    const marks = await v.marks(rangeOf('versions.index:[2 TO 5]'), async () => {
      if (written) return;
      written = true;
      v.set(7, [['versions.index', 1]]);
      v.set(10, [['versions.index', 3]]);
    });
    expect(written).toBe(true);
    expect(marks[7]).toBe(0);
    expect(marks[10]).toBe(1);
    expect(marks[11]).toBe(1);
    expect(marks[15]).toBe(0);
  });
});
