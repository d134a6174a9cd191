import { describe, expect, it } from 'vitest';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { documentLength, fts5Varints, tableTotals } from '../src/search/doc-lengths.ts';
import { fts5Occurrences, fts5Scratch } from '../src/search/fts5-doclist.ts';
import { inverseDocumentFrequency, OCCURRENCES_SQL, relevance, weightedAs } from '../src/search/term-relevance.ts';
import { ScratchArrays } from '../src/search/scratch-arrays.ts';
import { store } from './fts5-corpus.ts';

/** The index's FTS5 table and vocabulary, filled with seeded documents of varied lengths and word counts. */
function corpus(documents: number, seed: number) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE doc_instance USING fts5vocab(doc_fts, instance);`);
  let s = seed;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  // A few common words and many rare ones, so some IDFs are clamped (a word in most documents) and some are not.
  const words = ['ice', 'sea', 'river', 'rivers', 'rover', 'delta', ...Array.from({ length: 40 }, (_, i) => `w${i}`)];
  const pick = () => words[Math.floor(random() ** 2 * words.length)] as string;
  const insert = db.prepare('INSERT INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)');
  for (let rowid = 1; rowid <= documents; rowid++) {
    const title = Array.from({ length: 1 + Math.floor(random() * 5) }, pick).join(' ');
    const text = `${title} ${Array.from({ length: Math.floor(random() * 40) }, pick).join(' ')}`;
    insert.run(rowid, title, text, Array.from({ length: Math.floor(random() * 4) }, (_, i) => `0zpath${i}`).join(' '));
  }
  // Deleting and rewriting leaves the table's totals and the word lists as a live index has them.
  for (let rowid = 3; rowid <= documents; rowid += 7) db.prepare('DELETE FROM doc_fts WHERE rowid = ?').run(rowid);
  return db;
}

/** A word's occurrences as the reader threads decode them from the segments (titles and texts paired). */
function decoded(db: InstanceType<typeof Database>, word: string): Int32Array {
  return fts5Occurrences(store(db), word, fts5Scratch(), (n) => new Int32Array(n));
}

/** What the index does, over the words of one FTS5 expression, in its phrase order. */
function ours(db: InstanceType<typeof Database>, phrases: string[], source: 'vocabulary' | 'segments' = 'vocabulary') {
  const totals = tableTotals(db.prepare('SELECT block FROM doc_fts_data WHERE id = 1').pluck().get() as Uint8Array);
  const lengths = new Int32Array(10_000);
  for (const [rowid, sz] of db.prepare('SELECT id, sz FROM doc_fts_docsize').raw().all() as [number, Uint8Array][]) lengths[rowid] = documentLength(sz);
  const ln = db.prepare('SELECT ln(?)').pluck();
  const occurrences = db.prepare(OCCURRENCES_SQL);
  return relevance(
    phrases.map((word) => (source === 'segments' ? decoded(db, word) : Int32Array.from(occurrences.pluck().all(word) as number[]))),
    (hits) => inverseDocumentFrequency(totals.rows, hits, (x) => ln.get(x) as number),
    lengths,
    totals.tokens / totals.rows,
  );
}

function fts5(db: InstanceType<typeof Database>, phrases: string[]): [number, number][] {
  const expression = `{title text} : (${phrases.map((w) => `"${w}"`).join(' OR ')})`;
  return db.prepare('SELECT rowid, bm25(doc_fts, 2.0, 1.0, 0.0) FROM doc_fts WHERE doc_fts MATCH ? ORDER BY rowid').raw().all(expression) as [number, number][];
}

describe('bm25 of single-word phrases', () => {
  const db = corpus(600, 7);

  it.each([[['ice']], [['river']], [['w25']], [['w39']], [['river', 'rivers', 'rover']], [['rivers', 'river', 'river', 'delta']], [['nowhere']]])(
    'gives the rows and the very scores FTS5 gives for %j',
    (phrases) => {
      const expected = fts5(db, phrases);
      for (const source of ['vocabulary', 'segments'] as const) {
        const got = ours(db, phrases, source);
        expect(Array.from(got.rowids), source).toEqual(expected.map(([rowid]) => rowid));
        // The same doubles, so ties and order are FTS5's (bm25 is the negated score).
        expect(
          expected.map(([rowid]) => -(got.scoreOf[rowid] ?? 0)),
          source,
        ).toEqual(expected.map(([, score]) => score));
      }
    },
  );

  it("gives a title's occurrences alone, from the segments' paired codes, the very scores FTS5 gives for the title", () => {
    const totals = tableTotals(db.prepare('SELECT block FROM doc_fts_data WHERE id = 1').pluck().get() as Uint8Array);
    const lengths = new Int32Array(10_000);
    for (const [rowid, sz] of db.prepare('SELECT id, sz FROM doc_fts_docsize').raw().all() as [number, Uint8Array][]) lengths[rowid] = documentLength(sz);
    const ln = db.prepare('SELECT ln(?)').pluck();
    const codes = decoded(db, 'river');
    expect(codes.some((code) => (code & 3) === 3)).toBe(true);
    const got = relevance([weightedAs(codes, 2)], (hits) => inverseDocumentFrequency(totals.rows, hits, (x) => ln.get(x) as number), lengths, totals.tokens / totals.rows);
    const expected = db.prepare('SELECT rowid, bm25(doc_fts, 2.0, 1.0, 0.0) FROM doc_fts WHERE doc_fts MATCH ? ORDER BY rowid').raw().all('title : "river"') as [number, number][];
    expect(Array.from(got.rowids)).toEqual(expected.map(([rowid]) => rowid));
    expect(expected.map(([rowid]) => -(got.scoreOf[rowid] ?? 0))).toEqual(expected.map(([, score]) => score));
  });

  it('uses the table totals and document lengths FTS5 keeps', () => {
    const totals = tableTotals(db.prepare('SELECT block FROM doc_fts_data WHERE id = 1').pluck().get() as Uint8Array);
    expect(totals.rows).toBe(db.prepare('SELECT count(*) FROM doc_fts').pluck().get());
    const sizes = db.prepare('SELECT sz FROM doc_fts_docsize').pluck().all() as Uint8Array[];
    expect(totals.tokens).toBe(sizes.reduce((sum, sz) => sum + documentLength(sz), 0));
  });

  it('reads varints of every width', () => {
    // 127 in one byte, 128 and 16 383 in two, 2 097 152 in four, 2^32 in five.
    expect(fts5Varints(Uint8Array.from([0x7f, 0x81, 0x00, 0xff, 0x7f, 0x81, 0x80, 0x80, 0x00, 0x90, 0x80, 0x80, 0x80, 0x00]))).toEqual([127, 128, 16_383, 2_097_152, 2 ** 32]);
  });

  it('scores occurrences given out of order as the same given in order', () => {
    const lengths = Int32Array.from([0, 0, 5, 0, 0, 9, 0, 0, 0, 4]);
    const idf = (hits: number) => hits / 10;
    const inOrder = relevance([Int32Array.from([2 * 4 + 2, 2 * 4 + 1, 5 * 4 + 1, 9 * 4 + 2, 9 * 4 + 1])], idf, lengths, 6);
    const shuffled = relevance([Int32Array.from([9 * 4 + 1, 2 * 4 + 2, 9 * 4 + 2, 2 * 4 + 1, 5 * 4 + 1])], idf, lengths, 6);
    expect(Array.from(shuffled.rowids)).toEqual([2, 5, 9]);
    expect(Array.from(shuffled.scoreOf)).toEqual(Array.from(inOrder.scoreOf));
    // Title and text occurrences of one document count together: 2 and 9 score above 5.
    expect(shuffled.scoreOf[2]).toBeGreaterThan(shuffled.scoreOf[5] ?? 0);
    // In order but for the last one: seen only once the others were scored as in order.
    const lateCodes = [...Array.from({ length: 70_000 }, (_, i) => (i + 10) * 4 + 1), 5 * 4 + 2];
    const longLengths = new Int32Array(70_010).fill(6);
    const late = relevance([Int32Array.from(lateCodes)], idf, longLengths, 6);
    const sorted = relevance([Int32Array.from(lateCodes).sort()], idf, longLengths, 6);
    expect(Array.from(late.rowids)).toEqual(Array.from(sorted.rowids));
    expect(Array.from(late.scoreOf)).toEqual(Array.from(sorted.scoreOf));
    expect(late.rowids.length).toBe(70_001);
  });

  it("scores a document whose occurrences straddle a step's end as one read in one piece", () => {
    // 65 535 documents with one occurrence each, then one with three: its occurrences are the
    // 65 536th to the 65 538th, across the end of the first step of scoring.
    const straddling = 65_536;
    const codes = new Int32Array(straddling + 2);
    for (let rowid = 1; rowid < straddling; rowid++) codes[rowid - 1] = rowid * 4 + 1;
    codes.fill(straddling * 4 + 1, straddling - 1);
    const lengths = new Int32Array(straddling + 1).fill(7);
    const idf = () => 1.5;
    const long = relevance([codes], idf, lengths, 7);
    const alone = relevance([Int32Array.from([straddling * 4 + 1, straddling * 4 + 1, straddling * 4 + 1])], idf, lengths, 7);
    expect(long.rowids.length).toBe(straddling);
    expect(long.scoreOf[straddling]).toBe(alone.scoreOf[straddling]);
    expect(long.scoreOf[straddling]).toBeGreaterThan(long.scoreOf[1] ?? 0);
  });

  it('gives the same scores in arrays kept from an earlier, larger scoring', () => {
    const lengths = Int32Array.from([0, 0, 5, 0, 0, 9, 0, 0, 0, 4, 3, 3, 3]);
    const idf = (hits: number) => hits / 10;
    const scratch = new ScratchArrays();
    relevance([Int32Array.from([2 * 4 + 2, 5 * 4 + 1, 9 * 4 + 1, 10 * 4 + 1, 11 * 4 + 2, 12 * 4 + 1])], idf, lengths, 6, scratch);
    const phrases = [Int32Array.from([5 * 4 + 1, 9 * 4 + 2]), Int32Array.from([9 * 4 + 1])];
    const kept = relevance(phrases, idf, lengths, 6, scratch);
    const fresh = relevance(phrases, idf, lengths, 6);
    expect(Array.from(kept.rowids)).toEqual([5, 9]);
    expect(Array.from(kept.scoreOf)).toEqual(Array.from(fresh.scoreOf));
  });
});
