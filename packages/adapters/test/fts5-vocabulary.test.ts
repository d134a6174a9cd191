import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editDistance } from '@krs/domain/search';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { fts5KeptSlices, fts5NearestWords, fts5Scratch, type Fts5Store } from '../src/search/fts5-doclist.ts';
import { createInlineReader, createThreadReader } from '../src/search/sqlite-reader.ts';
import { store, type Db } from './fts5-corpus.ts';

/** No merging, unless asked: each transaction stays a segment of its own. */
const UNMERGED = ["('automerge', 0)", "('crisismerge', 1000)"];

/**
 * Documents each holding words of their own (as record ids give a large index most of its words),
 * a few shared ones and one of many more letters, written in many transactions; then rows deleted
 * (their own words then in no document, though still in the leaves) and others rewritten with
 * other words, in later segments.
 */
function corpus(db: Db, documents: number, setup: string[], deleted: (rowid: number) => boolean) {
  db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE doc_words USING fts5vocab(doc_fts, row);`);
  for (const option of setup) db.exec(`INSERT INTO doc_fts (doc_fts, rank) VALUES ${option}`);
  const insert = db.prepare('INSERT OR REPLACE INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)');
  const own = (rowid: number, round: number) => `g${(rowid * 7919 + round * 104_729).toString(36)} s${rowid.toString(36)}${round}`;
  const write = (rowid: number, round: number) =>
    insert.run(rowid, `glacier ${rowid % 3 === 0 ? 'grace' : 'glacer'} ${own(rowid, round)}`, `sea ice ${rowid % 5 === 0 ? 'gl\u0153tscher' : 'glaciers'} ${'g'.repeat(1 + (rowid % 9))}`, rowid % 4 === 0 ? '0zpath gpath' : '');
  const batch = db.transaction((from: number, to: number) => {
    for (let rowid = from; rowid < to; rowid++) write(rowid, 0);
  });
  for (let from = 1; from <= documents; from += 40) batch(from, Math.min(documents + 1, from + 40));
  db.transaction(() => {
    for (let rowid = 1; rowid <= documents; rowid++) if (deleted(rowid)) db.prepare('DELETE FROM doc_fts WHERE rowid = ?').run(rowid);
  })();
  db.transaction(() => {
    for (let rowid = 5; rowid <= documents; rowid += 13) if (!deleted(rowid)) write(rowid, 1);
  })();
}

/** What `doc_words` gives: the slice's words within the lengths, the first at or after the word, then the last before it, in turn. */
function fromVocabulary(db: Db, from: string, to: string, word: string, shortest: number, longest: number, most: number): string[] {
  const words = db
    .prepare('SELECT term FROM doc_words WHERE term >= ? AND term < ? AND length(term) <= ? AND length(CAST(term AS BLOB)) >= ? ORDER BY term')
    .pluck()
    .all(from, to, longest, shortest) as string[];
  const split = words.findIndex((w) => w >= word);
  const at = split < 0 ? words.length : split;
  const nearest: string[] = [];
  for (let i = 0; nearest.length < most && (at + i < words.length || at - 1 - i >= 0); i++) {
    if (at + i < words.length) nearest.push(words[at + i] as string);
    if (at - 1 - i >= 0 && nearest.length < most) nearest.push(words[at - 1 - i] as string);
  }
  return nearest;
}

const fromLeaves = (db: Db, from: string, to: string, word: string, shortest: number, longest: number, most: number) =>
  fts5NearestWords(store(db), from, to, word, shortest, longest, most, fts5Scratch());

/** Slices as fuzzy words ask for them: a letter, lengths within the word's distance, bounds above and below the slice's size. */
const SLICES: [word: string, shortest: number, longest: number, most: number][] = [
  ['glacer', 4, 8, 20_000],
  ['glacer', 4, 8, 50],
  ['glacer', 4, 8, 1],
  ['gzzzz', 4, 6, 30],
  ['g', 1, 40, 200],
  ['sea', 2, 4, 20_000],
  ['s0', 1, 3, 7],
  ['gl\u0153cier', 5, 9, 100],
];

describe("a slice of the vocabulary read from FTS5's leaves", () => {
  it.each([
    ['default pages, deleted rows spread out', [] as string[], (rowid: number) => rowid % 6 === 1],
    ['small pages, no merging, deleted rows spread out', ["('pgsz', 64)", ...UNMERGED], (rowid: number) => rowid % 6 === 1],
    ['small pages, no merging, a stretch deleted', ["('pgsz', 64)", ...UNMERGED], (rowid: number) => rowid > 300 && rowid < 420],
    ['small pages, merged as FTS5 does by default', ["('pgsz', 80)"], (rowid: number) => rowid % 6 === 1],
  ])('is the row vocabulary\'s, with %s', (_, setup, deleted) => {
    const db = new Database(':memory:');
    corpus(db, 1200, setup, deleted);
    for (const [word, shortest, longest, most] of SLICES) {
      const letter = String.fromCodePoint(word.codePointAt(0) ?? 0);
      const next = String.fromCodePoint((letter.codePointAt(0) ?? 0) + 1);
      const expected = fromVocabulary(db, letter, next, word, shortest, longest, most);
      expect(fromLeaves(db, letter, next, word, shortest, longest, most), `${word} ${most}`).toEqual(expected);
    }
    // The deleted rows' own words are in the leaves and in no document: not listed.
    const all = fromVocabulary(db, 'g', 'h', 'g', 1, 40, 100_000);
    expect(all.length).toBeGreaterThan(1000);
    const gone = Array.from({ length: 1200 }, (_, i) => i + 1).find(deleted) ?? 0;
    expect(all).not.toContain(`g${(gone * 7919).toString(36)}`);
    db.close();
  });

  it("is the row vocabulary's while a merge is under way and after an optimize", () => {
    const db = new Database(':memory:');
    corpus(db, 1000, ["('pgsz', 64)", ...UNMERGED], (rowid) => rowid % 4 === 2);
    const check = () => {
      for (const [word, shortest, longest, most] of SLICES.slice(0, 6)) {
        const next = String.fromCodePoint((word.codePointAt(0) ?? 0) + 1);
        expect(fromLeaves(db, word[0] as string, next, word, shortest, longest, most), word).toEqual(fromVocabulary(db, word[0] as string, next, word, shortest, longest, most));
      }
    };
    db.exec("INSERT INTO doc_fts (doc_fts, rank) VALUES ('merge', 7)");
    check();
    db.exec("INSERT INTO doc_fts (doc_fts, rank) VALUES ('merge', 300)");
    check();
    db.exec("INSERT INTO doc_fts (doc_fts) VALUES ('optimize')");
    check();
    db.close();
  });

  it('decides a word whose newest entries are all delete markers by its entries in every segment', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE doc_words USING fts5vocab(doc_fts, row);
      INSERT INTO doc_fts (doc_fts, rank) VALUES ('automerge', 0);`);
    const insert = db.prepare('INSERT INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)');
    // `gone` is in rows 1 and 2 (one segment), `kept` in rows 1 and 3 (two); rows 1 and 2 are deleted in a third.
    insert.run(1, 'gone kept', '', '');
    insert.run(2, 'gone', '', '');
    db.transaction(() => insert.run(3, 'kept', '', ''))();
    db.exec('DELETE FROM doc_fts WHERE rowid IN (1, 2)');
    expect(fromVocabulary(db, 'g', 'l', 'g', 1, 10, 10)).toEqual(['kept']);
    expect(fromLeaves(db, 'g', 'l', 'g', 1, 10, 10)).toEqual(['kept']);
    db.close();
  });

  it('refuses a slice with more words to decide by their entries than it reads so', () => {
    const db = new Database(':memory:');
    corpus(db, 1200, UNMERGED, (rowid) => rowid % 2 === 0);
    expect(() => fromLeaves(db, 'g', 'h', 'glacer', 4, 8, 20_000)).toThrow(/too many words/);
    db.close();
  });

  it('kept between queries, is read again from the leaves only after a write, and is the vocabulary\'s after each', () => {
    const db = new Database(':memory:');
    corpus(db, 600, ["('pgsz', 64)", ...UNMERGED], (rowid) => rowid % 6 === 1);
    // The leaves' reads counted: a slice kept is answered without them.
    let leafReads = 0;
    const counted: Fts5Store = { ...store(db), leaves: (...args) => (leafReads++, store(db).leaves(...args)) };
    const kept = fts5KeptSlices();
    const scratch = fts5Scratch();
    const check = (label: string) => {
      for (const [word, shortest, longest, most] of SLICES) {
        const letter = String.fromCodePoint(word.codePointAt(0) ?? 0);
        const next = String.fromCodePoint((letter.codePointAt(0) ?? 0) + 1);
        const answer = db.transaction(() => fts5NearestWords(counted, letter, next, word, shortest, longest, most, scratch, kept))();
        expect(answer, `${label}: ${word} ${most}`).toEqual(fromVocabulary(db, letter, next, word, shortest, longest, most));
      }
    };
    check('first read');
    const first = leafReads;
    expect(first).toBeGreaterThan(0);
    check('kept');
    expect(leafReads).toBe(first);
    // New words, in a segment of their own.
    db.prepare('INSERT INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)').run(5000, 'glaciex gzzzy glacer2', 'seb sea0', '');
    check('after an insert');
    expect(leafReads).toBeGreaterThan(first);
    // Every row of a word deleted: no longer in the slice.
    db.exec("DELETE FROM doc_fts WHERE rowid IN (5000, 3, 9)");
    check('after a delete');
    db.exec("INSERT INTO doc_fts (doc_fts, rank) VALUES ('merge', 300)");
    check('after a merge');
    db.exec("INSERT INTO doc_fts (doc_fts) VALUES ('optimize')");
    check('after an optimize');
    db.close();
  });

  it('keeps slices up to its bound of words, the oldest dropped first', () => {
    const db = new Database(':memory:');
    corpus(db, 400, [], () => false);
    const scratch = fts5Scratch();
    const g = fromVocabulary(db, 'g', 'h', 'g', 1, 40, 100_000).length;
    const s = fromVocabulary(db, 's', 't', 's', 1, 40, 100_000).length;
    expect(g).toBeGreaterThan(100);
    expect(s).toBeGreaterThan(100);
    // Room for either slice, not for both.
    const kept = fts5KeptSlices(Math.max(g, s) + 1);
    const read = (from: string, to: string) => db.transaction(() => fts5NearestWords(store(db), from, to, from, 1, 40, 100_000, scratch, kept))();
    expect(read('g', 'h')).toHaveLength(g);
    expect(read('s', 't')).toHaveLength(s);
    expect(kept.held).toBe(s);
    expect([...kept.slices.keys()].map((name) => name[0])).toEqual(['s']);
    expect(read('g', 'h')).toEqual(fromVocabulary(db, 'g', 'h', 'g', 1, 40, 100_000));
    db.close();
  });

  const dir = mkdtempSync(join(tmpdir(), 'krs-fts5-vocabulary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is answered the same by a reader thread (the decoder as source text) and inline', async () => {
    const file = join(dir, 'index.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    corpus(db, 800, ["('pgsz', 64)", ...UNMERGED], (rowid) => rowid % 6 === 1);
    const thread = createThreadReader(file, 1);
    const inline = createInlineReader(db);
    try {
      for (const [word, shortest, longest, most] of SLICES) {
        const letter = String.fromCodePoint(word.codePointAt(0) ?? 0);
        const to = String.fromCodePoint((letter.codePointAt(0) ?? 0) + 1);
        const expected = fromVocabulary(db, letter, to, word, shortest, longest, most);
        // Every word of the slice is within 40 edits of the word: all are handed over.
        expect(await thread.nearestWords('doc_fts', { from: letter, to, word, shortest, longest, most, distance: 40 }), word).toEqual({ read: expected.length, near: expected });
        expect(await inline.nearestWords('doc_fts', { from: letter, to, word, shortest, longest, most, distance: 40 }), word).toEqual({ read: expected.length, near: expected });
        // Within two, only some: the count is still the slice's.
        const near = expected.filter((w) => editDistance(w, word, 2) <= 2);
        const answered = await thread.nearestWords('doc_fts', { from: letter, to, word, shortest, longest, most, distance: 2 });
        expect(answered.read).toBe(expected.length);
        expect(near.every((w) => answered.near.includes(w)) && answered.near.every((w) => expected.includes(w)), word).toBe(true);
        if (most === 20_000) expect(answered.near.length, word).toBeLessThan(expected.length / 2);
      }
      // The thread keeps the slices it read: a word written since is in its next answer.
      db.prepare('INSERT INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)').run(5000, 'glaciex', '', '');
      const expected = fromVocabulary(db, 'g', 'h', 'glacer', 4, 8, 20_000);
      expect(expected).toContain('glaciex');
      expect(await thread.nearestWords('doc_fts', { from: 'g', to: 'h', word: 'glacer', shortest: 4, longest: 8, most: 20_000, distance: 40 })).toEqual({ read: expected.length, near: expected });
    } finally {
      await thread.close();
      db.close();
    }
  });
});
