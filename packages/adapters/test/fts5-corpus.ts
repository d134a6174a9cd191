/** An FTS5 table as the index keeps it, written the way that spreads a word over many segments, for the decoders' tests. */
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import type { Fts5Store } from '../src/search/fts5-doclist.ts';
import { fts5TableStore } from '../src/search/sqlite-reader.ts';

export type Db = InstanceType<typeof Database>;

export const WORDS = ['ice', 'sea', 'river', 'rivers', 'rover', 'delta', ...Array.from({ length: 60 }, (_, i) => `w${i}`)];

/**
 * The index's FTS5 table and `instance` vocabulary, written in many transactions (a segment
 * each), with rows deleted and rewritten in later ones, so a word's entries lie in several
 * segments and the newer ones mark rows deleted or replace them (those in `rewritten`, every row
 * unless told). `setup` runs first (page size, merging).
 */
export function corpus(db: Db, documents: number, seed: number, setup: string[], rewritten: [from: number, to: number] = [1, documents]) {
  db.exec(`CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE doc_instance USING fts5vocab(doc_fts, instance);`);
  for (const option of setup) db.exec(`INSERT INTO doc_fts (doc_fts, rank) VALUES ${option}`);
  let s = seed;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const pick = () => WORDS[Math.floor(random() ** 2 * WORDS.length)] as string;
  const insert = db.prepare('INSERT OR REPLACE INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)');
  const write = (rowid: number) => {
    const title = Array.from({ length: 1 + Math.floor(random() * 5) }, pick).join(' ');
    // Long texts put a word's many positions in one document across page ends.
    const text = Array.from({ length: Math.floor(random() * (random() < 0.05 ? 400 : 40)) }, pick).join(' ');
    insert.run(rowid, title, text, Array.from({ length: Math.floor(random() * 4) }, (_, i) => `0zpath${i}`).join(' '));
  };
  const batch = db.transaction((from: number, to: number) => {
    for (let rowid = from; rowid < to; rowid++) write(rowid);
  });
  for (let from = 1; from <= documents; from += 50) batch(from, Math.min(documents + 1, from + 50));
  // Rows deleted and rewritten in later segments than the ones holding them first; large rowids
  // take more than one byte.
  db.transaction(() => {
    for (let rowid = rewritten[0] + 2; rowid <= rewritten[1]; rowid += 7) db.prepare('DELETE FROM doc_fts WHERE rowid = ?').run(rowid);
  })();
  db.transaction(() => {
    for (let rowid = rewritten[0] + 4; rowid <= rewritten[1]; rowid += 11) write(rowid);
    for (let rowid = 1_000_000; rowid < 1_000_040; rowid++) write(rowid);
  })();
}

/** The table's segments, read as the index reads them on the calling thread. */
export const store = (db: Db): Fts5Store => fts5TableStore(db, 'doc_fts');
