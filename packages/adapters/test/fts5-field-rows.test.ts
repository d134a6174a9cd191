import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { fts5PhraseScratch, fts5Phrases, fts5Rows, fts5Scratch, fts5Segments, type Fts5Store } from '../src/search/fts5-doclist.ts';
import { createInlineReader, createThreadReader, fts5TableStore } from '../src/search/sqlite-reader.ts';
import type { Db } from './fts5-corpus.ts';

const WORDS = ['ice', 'sea', 'river', 'delta', 'z', ...Array.from({ length: 40 }, (_, i) => `w${i}`)];

/**
 * A contentless-delete table as `doc_field` is kept: rows written in many transactions, then
 * deleted (tombstones, not entries) and rewritten under the same rowid in later ones, so the
 * segments hold tombstone pages and a row's entries lie in several segments.
 */
function fieldCorpus(db: Db, documents: number, seed: number, setup: string[]) {
  db.exec("CREATE VIRTUAL TABLE doc_field USING fts5(words, content = '', contentless_delete = 1, tokenize = 'unicode61')");
  for (const option of setup) db.exec(`INSERT INTO doc_field (doc_field, rank) VALUES ${option}`);
  let s = seed;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const pick = () => WORDS[Math.floor(random() ** 2 * WORDS.length)] as string;
  const remove = db.prepare('DELETE FROM doc_field WHERE rowid = ?');
  const insert = db.prepare('INSERT INTO doc_field (rowid, words) VALUES (?, ?)');
  const write = (rowid: number) => insert.run(rowid, Array.from({ length: 1 + Math.floor(random() * (random() < 0.05 ? 300 : 30)) }, pick).join(' '));
  const batch = db.transaction((from: number, to: number) => {
    for (let rowid = from; rowid < to; rowid++) write(rowid);
  });
  for (let from = 1; from <= documents; from += 50) batch(from, Math.min(documents + 1, from + 50));
  // Deleted, and rewritten as the writer rewrites a document (delete, then insert).
  db.transaction(() => {
    for (let rowid = 3; rowid <= documents; rowid += 7) remove.run(rowid);
  })();
  db.transaction(() => {
    for (let rowid = 5; rowid <= documents; rowid += 11) {
      remove.run(rowid);
      write(rowid);
    }
    for (let rowid = 1_000_000; rowid < 1_000_040; rowid++) write(rowid);
  })();
  db.transaction(() => {
    for (let rowid = 9; rowid <= documents; rowid += 13) remove.run(rowid);
  })();
}

const fieldStore = (db: Db): Fts5Store => fts5TableStore(db, 'doc_field');

const decoded = (db: Db, word: string) => Array.from(fts5Rows(fieldStore(db), new TextEncoder().encode(`0${word}`), fts5Scratch(), (n) => new Int32Array(n)));
const matched = (db: Db, expression: string) => db.prepare('SELECT rowid FROM doc_field WHERE doc_field MATCH ? ORDER BY rowid').pluck().all(expression) as number[];
/** The documents of an AND of phrases, from the phrases' decoded codes (those of the first phrase, each row once). */
function phraseRows(db: Db, phrases: string[][]): number[] {
  const packed = fts5Phrases(fieldStore(db), phrases, fts5Scratch(), fts5PhraseScratch(), (n) => new Int32Array(n));
  const k = packed[0] as number;
  const rows = new Set<number>();
  for (let i = 0; i < (packed[1 + k] as number); i++) rows.add((packed[1 + 2 * k + i] as number) >> 2);
  return [...rows];
}
const tombstonePages = (db: Db) => {
  const pages: number[] = [];
  fts5Segments(fieldStore(db), pages);
  return pages.reduce((a, b) => a + b, 0);
};

const UNMERGED = ["('pgsz', 64)", "('automerge', 0)", "('crisismerge', 1000)"];

describe("a contentless-delete table's rows decoded from its segments and tombstones", () => {
  it.each([
    ['default pages', [] as string[]],
    ['small pages, no merging (many segments, tombstones in many)', UNMERGED],
    ['small pages, merged as FTS5 does by default', ["('pgsz', 80)"]],
  ])("are FTS5's own match of a word and of phrases, with %s", (_, setup) => {
    const db = new Database(':memory:');
    fieldCorpus(db, 1500, 7, setup);
    expect(tombstonePages(db)).toBeGreaterThan(0);
    for (const word of [...WORDS, 'nowhere', 'ic']) expect(decoded(db, word), word).toEqual(matched(db, `"${word}"`));
    expect(decoded(db, 'ice').length).toBeGreaterThan(500);
    for (const phrases of [[['sea', 'ice']], [['ice', 'sea', 'ice']], [['ice'], ['river']], [['river'], ['sea', 'ice']], [['w3', 'nowhere']]]) {
      const expression = phrases.map((words) => `"${words.join(' ')}"`).join(' AND ');
      expect(phraseRows(db, phrases), expression).toEqual(matched(db, expression));
    }
    expect(matched(db, '"sea ice"').length).toBeGreaterThan(100);
    db.close();
  });

  it('are the match after an incremental merge, an optimize, and every row deleted', () => {
    const db = new Database(':memory:');
    fieldCorpus(db, 1200, 5, UNMERGED);
    db.exec("INSERT INTO doc_field (doc_field, rank) VALUES ('merge', 7)");
    for (const word of WORDS) expect(decoded(db, word), word).toEqual(matched(db, `"${word}"`));
    db.exec("INSERT INTO doc_field (doc_field) VALUES ('optimize')");
    for (const word of WORDS) expect(decoded(db, word), word).toEqual(matched(db, `"${word}"`));
    db.exec('DELETE FROM doc_field');
    expect(decoded(db, 'ice')).toEqual([]);
    db.close();
  });

  it('leave the text columns\' decoder refusing a V2 structure record', () => {
    const db = new Database(':memory:');
    fieldCorpus(db, 100, 3, []);
    expect(() => fts5Segments(fieldStore(db))).toThrow(/V2/);
    db.close();
  });

  const dir = mkdtempSync(join(tmpdir(), 'krs-fts5-field-rows-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are answered the same by a reader thread (the decoder as source text) and inline', async () => {
    const file = join(dir, 'index.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    fieldCorpus(db, 800, 11, UNMERGED);
    const thread = createThreadReader(file, 1);
    const inline = createInlineReader(db);
    try {
      for (const phrases of [[['ice']], [['sea', 'ice']], [['ice'], ['river']], [['nowhere']]]) {
        const expected = matched(db, phrases.map((words) => `"${words.join(' ')}"`).join(' AND '));
        expect(Array.from(await thread.fieldRows('doc_field', phrases)), JSON.stringify(phrases)).toEqual(expected);
        expect(Array.from(await inline.fieldRows('doc_field', phrases)), JSON.stringify(phrases)).toEqual(expected);
      }
    } finally {
      await thread.close();
      db.close();
    }
  });
});
