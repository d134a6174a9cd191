import { describe, expect, it } from 'vitest';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { BoxBounds, Codes, roundedDown, roundedUp, type Box } from '../src/search/box-bounds.ts';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('box bounds', () => {
  it("rounds coordinates outward to single precision exactly as SQLite's R*Tree stores them", () => {
    const db = new Database(':memory:');
    db.exec('CREATE VIRTUAL TABLE t USING rtree(id, min_x, max_x, min_y, max_y)');
    const insert = db.prepare('INSERT INTO t (id, min_x, max_x, min_y, max_y) VALUES (?, ?, ?, ?, ?)');
    const next = random(7);
    const values: number[] = [0, -0, 1, -1, 0.1, -0.1, 180, -180, 90, -90, 1e-40, -1e-40, 16777217, -16777217];
    for (let i = 0; i < 2000; i++) values.push((next() * 2 - 1) * 10 ** Math.floor(next() * 8 - 3));
    values.forEach((v, i) => insert.run(i, v, v, v, v));
    const stored = db.prepare('SELECT min_x, max_x FROM t ORDER BY id').raw().all() as [number, number][];
    expect(stored).toEqual(values.map((v) => [roundedDown(v), roundedUp(v)]));
    db.close();
  });

  it('gives no code for the boxes of a clear made while a query was between two of its steps', () => {
    const bounds = new BoxBounds();
    // A box in a cell read after the first step (its slot, the first, is free after the clear),
    // and enough boxes in the first cell read to fill that step.
    bounds.set(70_001, [[1, 1, 2, 2]]);
    for (let rowid = 1; rowid <= 70_000; rowid++) bounds.set(rowid, [[-179, -89, -178, -88]]);
    const out = new Codes();
    const steps = bounds.meetingSteps([-180, -90, 180, 90], out);
    steps.next();
    bounds.clear();
    while (steps.next().done !== true);
    expect(Array.from(out.array()).filter((code) => code < 2)).toEqual([]);
  });

  it("finds the boxes meeting a query box as the R*Tree's query does, after replacements and removals", () => {
    const db = new Database(':memory:');
    db.exec('CREATE VIRTUAL TABLE t USING rtree(id, min_x, max_x, min_y, max_y, +doc_rowid INTEGER)');
    // A document's boxes have ids rowid * 4 + i, so its rows are removed by id.
    const insert = db.prepare('INSERT INTO t (id, min_x, max_x, min_y, max_y, doc_rowid) VALUES (?, ?, ?, ?, ?, ?)');
    const removeRow = db.prepare('DELETE FROM t WHERE id >= ? * 4 AND id < ? * 4 + 4');
    const query = db
      .prepare('SELECT doc_rowid * 2 + (min_x >= ? AND max_x <= ? AND min_y >= ? AND max_y <= ?) FROM t WHERE min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ? ORDER BY 1')
      .pluck();
    const bounds = new BoxBounds();
    const next = random(11);
    // Edges on tenths: most are not single-precision numbers, so rounding decides the edge cases.
    // Points, boxes of a few degrees (within a grid cell or across two) and larger ones.
    const tenths = (x: number) => Math.round(x * 10) / 10;
    const boxOf = (): Box => {
      const size = [0, 0.5, 3, 9.9, 10, 12, 60][Math.floor(next() * 7)] as number;
      const w = tenths(next() * 360 - 180);
      const s = tenths(next() * 180 - 90);
      return [w, s, Math.min(180, tenths(w + next() * size)), Math.min(90, tenths(s + next() * size))];
    };
    const write = (rowid: number, boxes: Box[]) => {
      removeRow.run(rowid, rowid);
      boxes.forEach(([w, s, e, n], i) => insert.run(rowid * 4 + i, w, e, s, n, rowid));
      bounds.set(rowid, boxes);
    };
    const codes = (kept: BoxBounds, box: Box) => {
      const out = new Codes();
      const steps = kept.meetingSteps(box, out);
      while (steps.next().done !== true);
      return Array.from(out.array()).sort((a, b) => a - b);
    };
    const compare = () => {
      const read = new BoxBounds();
      for (const [rowid, minX, maxX, minY, maxY] of db.prepare('SELECT doc_rowid, min_x, max_x, min_y, max_y FROM t').raw().all() as number[][]) {
        read.addStored(rowid as number, minX as number, maxX as number, minY as number, maxY as number);
      }
      for (let i = 0; i < 200; i++) {
        // Query boxes from small to the whole world, some with an edge just beside a stored
        // edge: found only through the stored edge's rounding.
        const [w, s, e, n] = i % 50 === 0 ? [-180, -90, 180, 90] : boxOf();
        const nudge = i % 3 === 0 ? 1e-9 : i % 3 === 1 ? -1e-9 : 0;
        const box: Box = [w + nudge, s - nudge, e - nudge, n + nudge];
        const expected = query.all(box[0], box[2], box[1], box[3], box[2], box[0], box[3], box[1]);
        expect(codes(bounds, box)).toEqual(expected);
        expect(codes(read, box)).toEqual(expected);
      }
    };
    for (let rowid = 1; rowid <= 3000; rowid++) write(rowid, Array.from({ length: 1 + Math.floor(next() * 2.2) }, boxOf));
    compare();
    // Rewrites moving boxes between cells, dropping some and adding others, in three rounds.
    for (let round = 0; round < 3; round++) {
      for (let rowid = 1 + round; rowid <= 3000; rowid += 5) write(rowid, Array.from({ length: Math.floor(next() * 3) }, boxOf));
      compare();
    }
    db.close();
  });
});
