import { describe, expect, it } from 'vitest';
import { Sqlite } from '../src/sql/sqlite-driver.ts';
import { withStatementCache } from '../src/sql/statement-cache.ts';

describe('statement cache', () => {
  it('compiles each SQL text once, evicts the oldest beyond its capacity, and still reads and writes', () => {
    const sqlite = new Sqlite(':memory:');
    let compiled = 0;
    const counting = { prepare: (sql: string) => (compiled++, sqlite.prepare(sql)), close: () => sqlite.close() };
    const db = withStatementCache(counting, 2);
    db.prepare('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)').run([]);
    const insert = 'INSERT INTO t (v) VALUES (?)';
    for (const v of ['a', 'b', 'c']) db.prepare(insert).run([v]);
    expect(db.prepare('SELECT v FROM t ORDER BY id').all([])).toEqual([{ v: 'a' }, { v: 'b' }, { v: 'c' }]);
    expect(compiled).toBe(3);
    // Capacity 2: the CREATE was evicted by the SELECT, the INSERT is still there.
    db.prepare(insert).run(['d']);
    expect(compiled).toBe(3);
    // The INSERT was just used: a new text evicts the SELECT, the least recently used.
    db.prepare('SELECT 1').all([]);
    db.prepare(insert).run(['e']);
    expect(compiled).toBe(4);
    db.prepare('SELECT v FROM t ORDER BY id').all([]);
    expect(compiled).toBe(5);
    db.close();
  });

  it("tells each statement's text and duration, a failed one included, and an iteration's once it has ended", () => {
    const sqlite = new Sqlite(':memory:');
    const told: string[] = [];
    const db = withStatementCache(sqlite, 512, (sql, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      told.push(sql);
    });
    db.prepare('CREATE TABLE t (v INTEGER UNIQUE)').run([]);
    db.prepare('INSERT INTO t VALUES (?)').run([1]);
    expect(() => db.prepare('INSERT INTO t VALUES (?)').run([1])).toThrow(/UNIQUE/);
    expect(() => db.prepare('SELEC v FROM t')).toThrow(/syntax/);
    expect(db.prepare('SELECT v FROM t').all([])).toEqual([{ v: 1 }]);
    const rows = db.prepare('SELECT v FROM t').iterate([]);
    expect(told).toHaveLength(5);
    expect([...rows]).toEqual([{ v: 1 }]);
    expect(told).toEqual(['CREATE TABLE t (v INTEGER UNIQUE)', 'INSERT INTO t VALUES (?)', 'INSERT INTO t VALUES (?)', 'SELEC v FROM t', 'SELECT v FROM t', 'SELECT v FROM t']);
    db.close();
  });

  it('gives each iteration a statement of its own, so a query can run while another is being iterated', () => {
    const sqlite = new Sqlite(':memory:');
    const db = withStatementCache(sqlite);
    db.prepare('CREATE TABLE t (v INTEGER)').run([]);
    for (let v = 0; v < 3; v++) db.prepare('INSERT INTO t VALUES (?)').run([v]);
    const select = 'SELECT v FROM t ORDER BY v';
    const seen: unknown[] = [];
    for (const row of db.prepare(select).iterate([])) seen.push(row, db.prepare(select).all([]).length);
    expect(seen).toEqual([{ v: 0 }, 3, { v: 1 }, 3, { v: 2 }, 3]);
    db.close();
  });
});
