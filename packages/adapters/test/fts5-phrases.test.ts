import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSteps } from '@krs/domain/search';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { documentLength, tableTotals } from '../src/search/doc-lengths.ts';
import { fts5Phrases, fts5PhraseScratch, fts5Scratch } from '../src/search/fts5-doclist.ts';
import { createInlineReader, createThreadReader } from '../src/search/sqlite-reader.ts';
import { inverseDocumentFrequency, phrasesRelevanceSteps, unpackPhrases } from '../src/search/term-relevance.ts';
import { corpus, store, type Db } from './fts5-corpus.ts';

const UNMERGED = ["('pgsz', 64)", "('automerge', 0)", "('crisismerge', 1000)"];

/** The phrases scored as the index scores them: decoded from the segments, bm25 computed here. */
function ours(db: Db, phrases: string[][]) {
  const totals = tableTotals(db.prepare('SELECT block FROM doc_fts_data WHERE id = 1').pluck().get() as Uint8Array);
  const lengths = new Int32Array(1_000_100);
  for (const [rowid, sz] of db.prepare('SELECT id, sz FROM doc_fts_docsize').raw().all() as [number, Uint8Array][]) lengths[rowid] = documentLength(sz);
  const ln = db.prepare('SELECT ln(?)').pluck();
  const packed = fts5Phrases(store(db), phrases, fts5Scratch(), fts5PhraseScratch(), (n) => new Int32Array(n));
  const idf = (hits: number) => inverseDocumentFrequency(totals.rows, hits, (x) => ln.get(x) as number);
  return runSteps(phrasesRelevanceSteps(unpackPhrases(packed), idf, lengths, totals.tokens / totals.rows));
}

/** The phrases' AND as FTS5 writes it, in the text columns. */
const expression = (phrases: string[][]) => `{title text} : (${phrases.map((words) => `"${words.join(' ')}"`).join(' AND ')})`;

function fts5(db: Db, phrases: string[][]): [number, number][] {
  return db.prepare('SELECT rowid, bm25(doc_fts, 2.0, 1.0, 0.0) FROM doc_fts WHERE doc_fts MATCH ? ORDER BY rowid').raw().all(expression(phrases)) as [number, number][];
}

const CASES: string[][][] = [
  [['sea', 'ice']],
  [['ice', 'sea']],
  [['ice'], ['sea']],
  [['river'], ['sea', 'ice'], ['delta']],
  [['ice', 'ice']],
  [['ice', 'sea', 'ice']],
  [['ice'], ['ice']],
  [['w3'], ['ice']],
  [['ice'], ['nowhere']],
  [['sea', 'nowhere']],
  [['ice']],
];

describe("an AND of phrases scored from FTS5's segments", () => {
  it.each([
    ['default pages', [] as string[], undefined],
    ['small pages, no merging (many segments, doclists over many pages)', UNMERGED, undefined],
    ['small pages, no merging, rows rewritten in one stretch only (most segments hold rows of their own)', UNMERGED, [400, 470] as [number, number]],
  ])('gives the rows and the very scores of FTS5\'s bm25(), with %s', (_, setup, rewritten) => {
    const db = new Database(':memory:');
    corpus(db, 1500, 17, setup, rewritten);
    for (const phrases of CASES) {
      const expected = fts5(db, phrases);
      const got = ours(db, phrases);
      expect(Array.from(got.rowids), JSON.stringify(phrases)).toEqual(expected.map(([rowid]) => rowid));
      // The same doubles, so ties and order are FTS5's (bm25 is the negated score).
      expect(
        expected.map(([rowid]) => -(got.scoreOf[rowid] ?? 0)),
        JSON.stringify(phrases),
      ).toEqual(expected.map(([, score]) => score));
    }
    // The corpus holds the phrases in both columns, and more documents with both words than with the phrase.
    expect(fts5(db, [['sea', 'ice']]).length).toBeGreaterThan(20);
    expect(db.prepare('SELECT count(*) FROM doc_fts WHERE doc_fts MATCH ?').pluck().get('title : "sea ice"')).toBeGreaterThan(0);
    expect(fts5(db, [['sea'], ['ice']]).length).toBeGreaterThan(fts5(db, [['sea', 'ice']]).length);
    db.close();
  });

  const dir = mkdtempSync(join(tmpdir(), 'krs-fts5-phrases-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are answered the same by a reader thread (the decoder as source text) and inline', async () => {
    const file = join(dir, 'index.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    corpus(db, 800, 3, UNMERGED);
    const thread = createThreadReader(file, 1);
    const inline = createInlineReader(db);
    try {
      for (const phrases of CASES) {
        const expected = Array.from(fts5Phrases(store(db), phrases, fts5Scratch(), fts5PhraseScratch(), (n) => new Int32Array(n)));
        expect(Array.from(await thread.phrases('doc_fts', phrases)), JSON.stringify(phrases)).toEqual(expected);
        expect(Array.from(await inline.phrases('doc_fts', phrases)), JSON.stringify(phrases)).toEqual(expected);
      }
      expect(unpackPhrases(await thread.phrases('doc_fts', [['sea', 'ice']]))[0]?.codes.length).toBeGreaterThan(0);
    } finally {
      await thread.close();
      db.close();
    }
  });

  it('refuse a word standing in the paths column, so the caller keeps bm25()', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths);
      INSERT INTO doc_fts (rowid, title, text, paths) VALUES (1, 'ice sea', 'ice', 'sea'), (2, 'river', 'sea ice', 'ice');`);
    expect(() => fts5Phrases(store(db), [['ice'], ['river']], fts5Scratch(), fts5PhraseScratch(), (n) => new Int32Array(n))).not.toThrow();
    db.exec("INSERT INTO doc_fts (rowid, title, text, paths) VALUES (3, 'river', 'delta', 'ice')");
    expect(() => fts5Phrases(store(db), [['ice'], ['river']], fts5Scratch(), fts5PhraseScratch(), (n) => new Int32Array(n))).toThrow(/outside the text columns/);
    db.close();
  });
});
