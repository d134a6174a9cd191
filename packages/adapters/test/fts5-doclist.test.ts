import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { fts5Occurrences, fts5Scratch } from '../src/search/fts5-doclist.ts';
import { createInlineReader, createThreadReader } from '../src/search/sqlite-reader.ts';
import { OCCURRENCES_SQL } from '../src/search/term-relevance.ts';
import { corpus, store, WORDS, type Db } from './fts5-corpus.ts';

const decoded = (db: Db, word: string) => Array.from(fts5Occurrences(store(db), word, fts5Scratch(), (n) => new Int32Array(n)));
const vocabulary = (db: Db, word: string) => db.prepare(OCCURRENCES_SQL).pluck().all(word) as number[];

/**
 * The vocabulary's occurrences (one code each, by document, the title's first) in the decoder's
 * form: per document, an occurrence in the title and one in the text paired as a code of weight 3,
 * then the title's left (2), then the text's (1).
 */
function paired(codes: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < codes.length; ) {
    const rowid = Math.floor((codes[i] as number) / 4);
    const weights: number[] = [];
    for (; i < codes.length && Math.floor((codes[i] as number) / 4) === rowid; i++) weights.push((codes[i] as number) % 4);
    const title = weights.filter((w) => w === 2).length;
    const text = weights.filter((w) => w === 1).length;
    const both = Math.min(title, text);
    out.push(...Array<number>(both).fill(rowid * 4 + 3), ...Array<number>(title - both).fill(rowid * 4 + 2), ...Array<number>(text - both).fill(rowid * 4 + 1));
  }
  return out;
}

const fromVocabulary = (db: Db, word: string) => paired(vocabulary(db, word));
/** Segments with pages (a page's id is its segment's id shifted left 37 bits, plus the page number). */
const segments = (db: Db) => db.prepare('SELECT count(DISTINCT id >> 37) FROM doc_fts_data WHERE id >= 1 << 37').pluck().get() as number;
/** No merging, unless asked: each transaction stays a segment of its own. */
const UNMERGED = ["('automerge', 0)", "('crisismerge', 1000)"];

describe("a word's occurrences decoded from FTS5's segments", () => {
  it.each([
    ['default pages', [] as string[]],
    ['small pages, no merging (many segments, doclists over many pages)', ["('pgsz', 64)", ...UNMERGED]],
    ['small pages, merged as FTS5 does by default', ["('pgsz', 80)"]],
  ])('are the instance vocabulary\'s, in its order, with %s', (_, setup) => {
    const db = new Database(':memory:');
    corpus(db, 1500, 11, setup);
    if (setup.includes(UNMERGED[0] as string)) expect(segments(db)).toBeGreaterThan(20);
    for (const word of [...WORDS, 'nowhere', 'ic', 'ices', 'zz']) expect(decoded(db, word), word).toEqual(fromVocabulary(db, word));
    expect(decoded(db, 'ice').length).toBeGreaterThan(1000);
    // Documents holding the word in both columns, in one alone, and more often in one than the other.
    const weights = new Set(decoded(db, 'ice').map((code) => code % 4));
    expect([...weights].sort()).toEqual([1, 2, 3]);
    db.close();
  });

  it('are the vocabulary\'s while a merge is under way (segments cut at their start) and after an optimize', () => {
    const db = new Database(':memory:');
    corpus(db, 1200, 5, ["('pgsz', 64)", ...UNMERGED]);
    expect(segments(db)).toBeGreaterThan(20);
    // A few pages of an incremental merge: the inputs' first pages are trimmed, the output is unfinished.
    db.exec("INSERT INTO doc_fts (doc_fts, rank) VALUES ('merge', 7)");
    for (const word of WORDS) expect(decoded(db, word), word).toEqual(fromVocabulary(db, word));
    db.exec("INSERT INTO doc_fts (doc_fts, rank) VALUES ('merge', 300)");
    for (const word of WORDS) expect(decoded(db, word), word).toEqual(fromVocabulary(db, word));
    db.exec("INSERT INTO doc_fts (doc_fts) VALUES ('optimize')");
    expect(segments(db)).toBe(1);
    for (const word of WORDS) expect(decoded(db, word), word).toEqual(fromVocabulary(db, word));
    db.close();
  });

  it('are the vocabulary\'s where most segments hold rows no other holds and a few overlap', () => {
    const db = new Database(':memory:');
    // Rows rewritten and deleted between 400 and 470 only: the segments before and after hold rows of their own.
    corpus(db, 1500, 23, ["('pgsz', 64)", ...UNMERGED], [400, 470]);
    expect(segments(db)).toBeGreaterThan(20);
    for (const word of [...WORDS, 'nowhere']) expect(decoded(db, word), word).toEqual(fromVocabulary(db, word));
    db.close();
  });

  it('are none in a table never written or emptied', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2')");
    expect(decoded(db, 'ice')).toEqual([]);
    db.exec("INSERT INTO doc_fts (rowid, title, text, paths) VALUES (1, 'ice', 'sea ice', ''); DELETE FROM doc_fts;");
    expect(decoded(db, 'ice')).toEqual([]);
    db.close();
  });

  const dir = mkdtempSync(join(tmpdir(), 'krs-fts5-doclist-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are answered the same by a reader thread (the decoder as source text) and inline", async () => {
    const file = join(dir, 'index.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    corpus(db, 800, 3, ["('pgsz', 64)", ...UNMERGED]);
    const thread = createThreadReader(file, 1);
    const inline = createInlineReader(db);
    try {
      // A fallback answering nothing shows the answers were decoded.
      const nothing = 'SELECT 0 WHERE ? IS NULL';
      for (const word of ['ice', 'river', 'w7', 'nowhere']) {
        const expected = fromVocabulary(db, word);
        expect(Array.from(await thread.occurrences('doc_fts', word, nothing)), word).toEqual(expected);
        expect(Array.from(await inline.occurrences('doc_fts', word, nothing)), word).toEqual(expected);
      }
      expect(fromVocabulary(db, 'ice').length).toBeGreaterThan(0);
    } finally {
      await thread.close();
      db.close();
    }
  });

  it('fall back to the vocabulary where the segments have a layout the decoder does not read (contentless-delete)', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, content = '', contentless_delete = 1);
      CREATE VIRTUAL TABLE doc_instance USING fts5vocab(doc_fts, instance);
      INSERT INTO doc_fts (rowid, title, text, paths) VALUES (1, 'ice sea', 'ice', ''), (2, 'river', 'ice ice', ''), (3, 'ice', '', '');
      DELETE FROM doc_fts WHERE rowid = 3;`);
    expect(() => decoded(db, 'ice')).toThrow(/V2/);
    const expected = vocabulary(db, 'ice');
    expect(expected).toEqual([1 * 4 + 2, 1 * 4 + 1, 2 * 4 + 1, 2 * 4 + 1]);
    expect(Array.from(await createInlineReader(db).occurrences('doc_fts', 'ice', OCCURRENCES_SQL))).toEqual(expected);
    db.close();
  });
});
