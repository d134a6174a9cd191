import { describe, expect, it } from 'vitest';
import { parseQuery } from '@krs/domain/search';
import { queryRows, type RowSources } from '../src/search/query-rows.ts';

/** Sources whose ranges are the given lists, counting the pauses asked for between steps. */
function sources(ranges: Record<string, Int32Array>, highest: number) {
  const log: string[] = [];
  const from: RowSources = {
    text: async () => new Int32Array(0),
    fields: async () => new Int32Array(0),
    range: async (node) => ranges[node.field] ?? new Int32Array(0),
    rangeMarks: async (node) => {
      const marks = new Uint8Array(highest + 1);
      for (const rowid of ranges[node.field] ?? []) marks[rowid] = 1;
      return marks;
    },
    highest: () => highest,
    pause: async () => {
      log.push('pause');
    },
  };
  return { from, log };
}

const rowsTo = (n: number, keep: (x: number) => boolean) => Int32Array.from(Array.from({ length: n }, (_, i) => i).filter(keep));

describe('a query decided on lists of rows in memory', () => {
  // A query's lists at 100k records, united, negated or intersected at once, held the loop for
  // milliseconds beside cheap GETs.
  it('gives the event loop back between steps of a union over long lists, and unites them as before', async () => {
    const n = 200_000;
    const { from, log } = sources({ 'metadata.publication_date': rowsTo(n, (x) => x % 2 === 0), created: rowsTo(n, (x) => x % 3 === 0) }, n - 1);
    const rows = await queryRows(parseQuery('metadata.publication_date:[1900 TO 2100] OR created:[* TO *]'), { fuzzy: new Map() }, from);
    expect(Array.from(rows ?? [])).toEqual(Array.from(rowsTo(n, (x) => x % 2 === 0 || x % 3 === 0)));
    expect(log.length).toBeGreaterThan(10);
  });

  it('gives the event loop back between steps of a NOT over long lists, and takes the same rows', async () => {
    const n = 200_000;
    const { from, log } = sources({ 'metadata.publication_date': rowsTo(n, (x) => x % 2 === 0), created: rowsTo(n, (x) => x % 3 === 0) }, n - 1);
    const rows = await queryRows(parseQuery('-(metadata.publication_date:[1900 TO 2100] OR created:[* TO *])'), { fuzzy: new Map() }, from);
    expect(Array.from(rows ?? [])).toEqual(Array.from(rowsTo(n, (x) => x % 2 !== 0 && x % 3 !== 0)));
    expect(log.length).toBeGreaterThan(10);
  });

  it('gives the event loop back between steps of an AND over long lists, and intersects them as before', async () => {
    const n = 200_000;
    const { from, log } = sources({ 'metadata.publication_date': rowsTo(n, (x) => x % 2 === 0), created: rowsTo(n, (x) => x % 3 === 0), 'versions.index': rowsTo(n, (x) => x % 5 === 0) }, n - 1);
    const rows = await queryRows(parseQuery('metadata.publication_date:[1900 TO 2100] AND created:[* TO *] AND versions.index:[1 TO 10]'), { fuzzy: new Map() }, from);
    expect(Array.from(rows ?? [])).toEqual(Array.from(rowsTo(n, (x) => x % 30 === 0)));
    expect(log.length).toBeGreaterThan(10);
  });
});
