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

  it("finds the boxes meeting a query box as the R*Tree's query does, after replacements and removals", () => {
    const db = new Database(':memory:');
    db.exec('CREATE VIRTUAL TABLE t USING rtree(id, min_x, max_x, min_y, max_y, +doc_rowid INTEGER)');
    const insert = db.prepare('INSERT INTO t (min_x, max_x, min_y, max_y, doc_rowid) VALUES (?, ?, ?, ?, ?)');
    const removeRow = db.prepare('DELETE FROM t WHERE doc_rowid = ?');
    const query = db
      .prepare('SELECT doc_rowid * 2 + (min_x >= ? AND max_x <= ? AND min_y >= ? AND max_y <= ?) FROM t WHERE min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ? ORDER BY 1')
      .pluck();
    const bounds = new BoxBounds();
    const next = random(11);
    // Edges on tenths: most are not single-precision numbers, so rounding decides the edge cases.
    const coordinate = (range: number) => Math.round((next() * 2 - 1) * range * 10) / 10;
    const boxOf = (): Box => {
      const [w, e] = [coordinate(20), coordinate(20)].sort((a, b) => a - b) as [number, number];
      const [s, n] = [coordinate(10), coordinate(10)].sort((a, b) => a - b) as [number, number];
      return [w, s, e, n];
    };
    const write = (rowid: number, boxes: Box[]) => {
      removeRow.run(rowid);
      for (const [w, s, e, n] of boxes) insert.run(w, e, s, n, rowid);
      bounds.set(rowid, boxes);
    };
    for (let rowid = 1; rowid <= 600; rowid++) write(rowid, Array.from({ length: 1 + Math.floor(next() * 2.2) }, boxOf));
    for (let rowid = 1; rowid <= 600; rowid += 7) write(rowid, rowid % 2 === 0 ? [] : [boxOf()]);
    const read = new BoxBounds();
    for (const [rowid, minX, maxX, minY, maxY] of db.prepare('SELECT doc_rowid, min_x, max_x, min_y, max_y FROM t').raw().all() as number[][]) {
      read.addStored(rowid as number, minX as number, maxX as number, minY as number, maxY as number);
    }
    const codes = (kept: BoxBounds, box: Box) => {
      const out = new Codes();
      const steps = kept.meetingSteps(box, out);
      while (steps.next().done !== true);
      return Array.from(out.array()).sort((a, b) => a - b);
    };
    for (let i = 0; i < 300; i++) {
      const [w, s, e, n] = boxOf();
      // A query edge just beside a stored edge: found only through the stored edge's rounding.
      const nudge = i % 3 === 0 ? 1e-9 : i % 3 === 1 ? -1e-9 : 0;
      const box: Box = [w + nudge, s - nudge, e - nudge, n + nudge];
      const expected = query.all(box[0], box[2], box[1], box[3], box[2], box[0], box[3], box[1]);
      expect(codes(bounds, box)).toEqual(expected);
      expect(codes(read, box)).toEqual(expected);
    }
    db.close();
  });
});
