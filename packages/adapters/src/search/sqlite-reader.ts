/**
 * Read queries of the SQLite search index that may cost more than a few milliseconds (a match
 * of every document, a prefix of one letter, bm25 over a large match, a box around the world),
 * run on a worker thread with a read-only connection of its own. better-sqlite3 is synchronous:
 * on the main thread such a query would stop every other request until it ends; here it only
 * delays its own answer. WAL lets the worker read while the main connection writes, and each
 * statement reads the last committed state.
 *
 * A database in memory cannot be opened twice, so it is read inline, on the calling thread.
 */
import type { Database } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { SQLITE_MODULE_PATH } from '../sql/sqlite-driver.ts';
import { LOWER_PRIORITY } from './worker-priority.ts';
import { threadsEnded } from './threads-ended.ts';
import { leastLoaded, SEARCH_READER_THREADS, type ThreadLoad } from './reader-threads.ts';
import { withinBagDistance } from './bag-distance.ts';
import { rangeColumns, type RangeColumns } from './range-values.ts';
import type { Param } from './fts-query.ts';
import { documentLength, fts5Varints } from './doc-lengths.ts';
import {
  fts5Append,
  fts5Codes,
  fts5ColumnCounts,
  fts5ColumnPositions,
  fts5Doclist,
  fts5Grown,
  fts5CodedEntries,
  fts5CodedParts,
  fts5CodedMerged,
  fts5CodedCluster,
  fts5NextCommon,
  fts5MergedInto,
  fts5Occurrences,
  fts5Offsets,
  fts5Page,
  fts5PhraseDocuments,
  fts5Phrases,
  fts5PhraseLists,
  fts5PhraseScratch,
  fts5Scratch,
  fts5Seek,
  fts5Segments,
  fts5SpanEntries,
  fts5VarintAt,
  fts5Winners,
  fts5WordSpans,
  fts5LeafTerms,
  fts5NearestWords,
  fts5KeptSlices,
  fts5SliceKeys,
  fts5WordOfKey,
  fts5WordLives,
  fts5Tombstoned,
  fts5Buried,
  fts5Rows,
  fts5SpansBuried,
  fts5FieldRows,
  fts5PhraseWords,
  type Fts5KeptSlices,
  type Fts5Store,
} from './fts5-doclist.ts';

/** SQL function of every reader: a `docsize` row's tokens, all columns together. */
export const ROW_SIZE_FUNCTION = 'fts5_row_size';

export interface SqliteReader {
  /** The first column of every row, as integers (rowids). */
  rowids(sql: string, params: readonly Param[]): Promise<Int32Array>;
  /** Every row as an array of its columns. */
  rows(sql: string, params: readonly Param[]): Promise<unknown[][]>;
  /** Rows of two numbers (rowid, score), flattened: a typed array crosses threads without copying each row. */
  pairs(sql: string, params: readonly Param[]): Promise<Float64Array>;
  /** Rows of numbers, every column, flattened (`pairs` of any width). */
  numbers(sql: string, params: readonly Param[]): Promise<Float64Array>;
  /** Rows of `(rowid, value)` ordered by value, as columns (range-values.ts). */
  ranges(sql: string, params: readonly Param[]): Promise<RangeColumns>;
  /**
   * A word's occurrences in the title and text columns of the FTS5 table `fts`, decoded from
   * its segments (fts5-doclist.ts); `fallback`, SQL of the same answer taking the word, when
   * they cannot be.
   */
  occurrences(fts: string, word: string, fallback: string): Promise<Int32Array>;
  /**
   * An AND of phrases' documents and occurrences in the title and text columns of `fts`,
   * decoded from its segments (`fts5Phrases`); rejects when they cannot be.
   */
  phrases(fts: string, phrases: readonly (readonly string[])[]): Promise<Int32Array>;
  /**
   * The rows of the contentless-delete table `fts` (`doc_field`) matching an AND of phrases, in
   * rowid order, decoded from its segments and tombstones (`fts5FieldRows`); rejects when they
   * cannot be.
   */
  fieldRows(fts: string, phrases: readonly (readonly string[])[]): Promise<Int32Array>;
  /**
   * The `most` words of `fts`'s vocabulary in `[from, to)` nearest `word` in order, of those at
   * least `shortest` bytes and at most `longest` characters long, read from its segments'
   * leaves (`fts5NearestWords`): how many (`read`), and those that may lie within `distance`
   * edits of the word (`near`, see bag-distance.ts); rejects when they cannot be read.
   */
  nearestWords(fts: string, slice: NearestWords): Promise<{ read: number; near: string[] }>;
  /**
   * Gives back an array `rowids` answered, once nothing reads it any more: a reader thread fills
   * it again rather than memory it has not touched (see scratch-arrays.ts).
   */
  recycle(rowids: Int32Array): void;
  /** Resolves once every thread has ended (see `threadsEnded`). */
  close(): Promise<void>;
}

/** A slice of a vocabulary and the word whose nearest words in it are wanted (see `nearestWords`). */
export interface NearestWords {
  from: string;
  to: string;
  word: string;
  shortest: number;
  longest: number;
  most: number;
  distance: number;
}

interface Request {
  id: number;
  kind: 'rowids' | 'rows' | 'pairs' | 'ranges' | 'occurrences' | 'phrases' | 'fieldRows' | 'words' | 'recycle' | 'close';
  sql: string;
  params: readonly Param[];
}
type Result = Int32Array | Float64Array | unknown[][] | string | RangeColumns;
type Reply = { id: number; result: Result } | { id: number; error: string };

/** Plain JavaScript, evaluated by the worker: it loads better-sqlite3 from the path given. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
// A file that cannot be opened is reported with each query, never thrown from here: the
// thread stays up until it is asked to close.
let db = null;
let openError = null;
try {
  db = new Database(workerData.filename, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.function('${ROW_SIZE_FUNCTION}', { deterministic: true }, documentLength);
} catch (e) {
  openError = String((e && e.message) || e);
}
${LOWER_PRIORITY}
// doc-lengths.ts's decoder, as source text: one reading of a docsize row on every thread.
${fts5Varints}
${documentLength}
// fts5-doclist.ts's, likewise.
${fts5VarintAt}
${fts5Page}
${fts5Append}
${fts5Doclist}
${fts5CodedEntries}
${fts5CodedParts}
${fts5CodedMerged}
${fts5CodedCluster}
${fts5Winners}
${fts5MergedInto}
${fts5Codes}
${fts5Offsets}
${fts5Grown}
${fts5Occurrences}
${fts5Segments}
${fts5Scratch}
${fts5Phrases}
${fts5WordSpans}
${fts5SpanEntries}
${fts5ColumnCounts}
${fts5ColumnPositions}
${fts5PhraseDocuments}
${fts5PhraseScratch}
${fts5Seek}
${fts5NextCommon}
${fts5LeafTerms}
${fts5WordLives}
${fts5KeptSlices}
${fts5SliceKeys}
${fts5NearestWords}
${fts5WordOfKey}
${fts5Tombstoned}
${fts5Buried}
${fts5Rows}
${fts5SpansBuried}
${fts5FieldRows}
${fts5PhraseWords}
${fts5PhraseLists}
// bag-distance.ts's.
${withinBagDistance}
// range-values.ts's.
${rangeColumns}
const statements = new Map();
// Rowids come back joined in one text, not as one value per row: handing each row to JavaScript
// was most of the cost of a large match (a term in 57k of 100k documents: 19 ms row by row,
// 3 ms for SQLite to walk the match, 7 ms joined and parsed). One array per row was worse still
// (100-300 ms at 1M documents for a term in a tenth of them). The text is handed over as a blob,
// its bytes: made a JavaScript string, the 670 KB of a word's 100 000 occurrences cost 3 ms more.
// The queries read one column; the cast is for the box table's rowid column, which the R*Tree
// hands back as a number with a point.
function statement(kind, sql) {
  const key = (kind === 'rowids' ? 'v:' : 'r:') + sql;
  let s = statements.get(key);
  if (s === undefined) {
    s = kind === 'rowids' ? db.prepare('WITH q(id) AS (' + sql + ') SELECT CAST(group_concat(CAST(id AS INTEGER)) AS BLOB) FROM q').pluck() : db.prepare(sql).raw();
    // Query shapes vary with the text searched: keep the recent ones only.
    if (statements.size >= 256) statements.delete(statements.keys().next().value);
    statements.set(key, s);
  }
  return s;
}
// Buffers the main thread gave back, filled again before new ones are made.
const spare = [];
function int32s(count) {
  const i = spare.findIndex((b) => b.byteLength >= count * 4);
  const buffer = i < 0 ? new ArrayBuffer(Math.ceil(count * 1.25) * 4 + 4096) : spare.splice(i, 1)[0];
  return new Int32Array(buffer, 0, count);
}
/** The integers of a comma-separated text's bytes (null for none), read in one pass. */
function parseRowids(bytes) {
  if (bytes === null || bytes === undefined) return new Int32Array(0);
  let count = 1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 44) count++;
  const out = int32s(count);
  let n = 0;
  let value = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 44) {
      out[n++] = value;
      value = 0;
    } else value = value * 10 + (c - 48);
  }
  out[n] = value;
  return out;
}
const doclistScratch = fts5Scratch();
const phraseScratch = fts5PhraseScratch();
const stores = new Map();
/** The segments of an FTS5 table, read by this thread's connection. */
function storeOf(fts) {
  let store = stores.get(fts);
  if (store === undefined) {
    const data = db.prepare('SELECT block FROM "' + fts + '_data" WHERE id = ?').pluck();
    const tombstone = db.prepare('SELECT block FROM "' + fts + '_data" WHERE id = ((? + 65536) << 37) | ?').pluck();
    const idx = db.prepare('SELECT pgno FROM "' + fts + '_idx" WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1').pluck();
    const leaves = db.prepare('SELECT pgno FROM "' + fts + '_idx" WHERE segid = ? AND term >= ? AND term < ? ORDER BY term').pluck();
    const bytes = (key) => Buffer.from(key.buffer, key.byteOffset, key.byteLength);
    store = { block: (id) => data.get(id), tombstone: (segid, page) => tombstone.get(segid, page), seek: (segid, key) => idx.get(segid, bytes(key)), leaves: (segid, low, high) => leaves.all(segid, bytes(low), bytes(high)) };
    stores.set(fts, store);
  }
  return store;
}
const doclistReads = new Map();
/** A word's occurrences from the table's segments, in one read transaction; the fallback's if they cannot be decoded. */
function occurrences(fts, word, fallback) {
  let read = doclistReads.get(fts);
  if (read === undefined) {
    const store = storeOf(fts);
    read = db.transaction((w) => fts5Occurrences(store, w, doclistScratch, (count) => (count === 0 ? new Int32Array(0) : int32s(count))));
    doclistReads.set(fts, read);
  }
  try {
    return read(word);
  } catch {
    return parseRowids(statement('rowids', fallback).get(word));
  }
}
const phraseReads = new Map();
/** An AND of phrases (as JSON) from the table's segments, in one read transaction; throws if they cannot be decoded. */
function phrases(fts, json) {
  let read = phraseReads.get(fts);
  if (read === undefined) {
    const store = storeOf(fts);
    read = db.transaction((list) => fts5Phrases(store, list, doclistScratch, phraseScratch, (count) => int32s(count)));
    phraseReads.set(fts, read);
  }
  return read(JSON.parse(json));
}
const fieldReads = new Map();
/** A contentless-delete table's rows matching an AND of phrases (as JSON), in one read transaction; throws if they cannot be decoded. */
function fieldRows(fts, json) {
  let read = fieldReads.get(fts);
  if (read === undefined) {
    const store = storeOf(fts);
    read = db.transaction((list) => fts5FieldRows(store, list, doclistScratch, phraseScratch, (count) => (count === 0 ? new Int32Array(0) : int32s(count))));
    fieldReads.set(fts, read);
  }
  return read(JSON.parse(json));
}
const wordReads = new Map();
/** How many nearest words of a slice (as JSON) the table's leaves give, and those near the word, in one read transaction, joined by spaces; throws if they cannot be read. */
function nearestWords(fts, json) {
  let read = wordReads.get(fts);
  if (read === undefined) {
    const store = storeOf(fts);
    // The slices read lately, for fuzzy words of the same letter and lengths until the next write.
    const kept = fts5KeptSlices();
    read = db.transaction((s) => {
      const nearest = fts5NearestWords(store, s.from, s.to, s.word, s.shortest, s.longest, s.most, doclistScratch, kept);
      return [nearest.length, ...withinBagDistance(nearest, s.word, s.distance)].join(' ');
    });
    wordReads.set(fts, read);
  }
  return read(JSON.parse(json));
}
parentPort.on('message', ({ id, kind, sql, params, buffer }) => {
  if (kind === 'recycle') {
    if (spare.length < 4) spare.push(buffer);
    return;
  }
  if (kind === 'close') {
    if (db !== null) db.close();
    return parentPort.close();
  }
  if (openError !== null) return parentPort.postMessage({ id, error: openError });
  try {
    if (kind === 'rowids' || kind === 'occurrences' || kind === 'phrases' || kind === 'fieldRows') {
      const out =
        kind === 'rowids'
          ? parseRowids(statement(kind, sql).get(...params))
          : kind === 'phrases'
            ? phrases(params[0], params[1])
            : kind === 'fieldRows'
              ? fieldRows(params[0], params[1])
              : occurrences(params[0], params[1], sql);
      return parentPort.postMessage({ id, result: out }, out.length === 0 ? [] : [out.buffer]);
    }
    if (kind === 'pairs') {
      // Row by row into one array: every box of a million documents read at once as rows held a
      // million arrays in this thread's heap.
      let numbers = new Float64Array(1024);
      let n = 0;
      for (const row of statement(kind, sql).iterate(...params)) {
        if (n + row.length > numbers.length) {
          const grown = new Float64Array(Math.max(numbers.length * 2, n + row.length));
          grown.set(numbers);
          numbers = grown;
        }
        for (let j = 0; j < row.length; j++) numbers[n++] = row[j];
      }
      const pairs = numbers.subarray(0, n);
      return parentPort.postMessage({ id, result: pairs }, [pairs.buffer]);
    }
    if (kind === 'words') return parentPort.postMessage({ id, result: nearestWords(params[0], params[1]) });
    if (kind === 'ranges') {
      const c = rangeColumns(statement(kind, sql).iterate(...params));
      return parentPort.postMessage({ id, result: c }, [c.rows.buffer, c.numbers.buffer, c.bytes.buffer, c.ends.buffer]);
    }
    const rows = statement(kind, sql).all(...params);
    if (kind === 'rows') return parentPort.postMessage({ id, result: rows });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

/**
 * Reader threads share the queries (see reader-threads.ts for which takes each): a search that
 * ranks sends its match and its bm25 read at once, and on two threads they run side by side
 * (at 1M documents, 20 and 50 ms one after the other). Each thread holds its own connection and
 * page cache.
 */
export function createThreadReader(filename: string, threads = SEARCH_READER_THREADS): SqliteReader {
  const pending = new Map<number, { ok: (v: Result) => void; fail: (e: Error) => void }>();
  let next = 0;
  let failure: Error | null = null;
  const failAll = (e: Error) => {
    failure = e;
    for (const p of pending.values()) p.fail(e);
    pending.clear();
  };
  /**
   * The thread each array of rowids came from, to go back to once used: a thread given none back
   * fills fresh memory (a word's occurrences in nine of ten documents: 400 KB, 2-3 ms of page
   * faults), which happened to one of the two whenever both answered a query's words.
   */
  const origin = new WeakMap<ArrayBufferLike, Thread>();
  interface Thread extends ThreadLoad {
    worker: Worker;
  }
  const spawnThread = (): Thread => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, module: SQLITE_MODULE_PATH } });
    const thread: Thread = { worker, waiting: 0, busySince: -Infinity };
    // An idle reader never keeps the process alive.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (p === undefined) return;
      pending.delete(reply.id);
      if ('error' in reply) p.fail(new Error(reply.error));
      else {
        if (reply.result instanceof Int32Array) origin.set(reply.result.buffer, thread);
        p.ok(reply.result);
      }
    });
    worker.on('error', (e) => failAll(e));
    worker.on('exit', () => failAll(new Error('the search reader thread has stopped')));
    return thread;
  };
  const pool = Array.from({ length: Math.max(1, threads) }, spawnThread);
  const ask = (kind: Request['kind'], sql: string, params: readonly Param[]) => {
    if (failure !== null) return Promise.reject(failure);
    const thread = leastLoaded(pool);
    return new Promise<Result>((ok, fail) => {
      const id = next++;
      pending.set(id, { ok, fail });
      // Referenced while it has work, so the answer is awaited even at shutdown.
      if (++thread.waiting === 1) {
        thread.worker.ref();
        thread.busySince = performance.now();
      }
      thread.worker.postMessage({ id, kind, sql, params } satisfies Request);
    }).finally(() => {
      // A thread answers in the order it was asked: the next query starts now.
      thread.busySince = --thread.waiting === 0 ? -Infinity : performance.now();
      // Once closed (failure set), the thread stays referenced until it ends (see threadsEnded).
      if (thread.waiting === 0 && failure === null) thread.worker.unref();
    });
  };
  return {
    rowids: (sql, params) => ask('rowids', sql, params) as Promise<Int32Array>,
    rows: (sql, params) => ask('rows', sql, params) as Promise<unknown[][]>,
    pairs: (sql, params) => ask('pairs', sql, params) as Promise<Float64Array>,
    numbers: (sql, params) => ask('pairs', sql, params) as Promise<Float64Array>,
    ranges: (sql, params) => ask('ranges', sql, params) as Promise<RangeColumns>,
    occurrences: (fts, word, fallback) => ask('occurrences', fallback, [fts, word]) as Promise<Int32Array>,
    phrases: (fts, phrases) => ask('phrases', '', [fts, JSON.stringify(phrases)]) as Promise<Int32Array>,
    fieldRows: (fts, phrases) => ask('fieldRows', '', [fts, JSON.stringify(phrases)]) as Promise<Int32Array>,
    nearestWords: async (fts, slice) => {
      const [read, ...near] = ((await ask('words', '', [fts, JSON.stringify(slice)])) as string).split(' ');
      return { read: Number(read), near };
    },
    recycle: (rowids) => {
      // An empty answer has no buffer of its own; a buffer already handed on cannot be sent.
      const { buffer } = rowids;
      if (failure !== null || !(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
      const thread = origin.get(buffer) ?? leastLoaded(pool);
      thread.worker.postMessage({ id: -1, kind: 'recycle', sql: '', params: [], buffer }, [buffer]);
    },
    // Asked, never terminated: a thread stopped inside better-sqlite3's native code (opening the
    // file, say) aborts the whole process.
    close: () => {
      const ended = threadsEnded(pool.map((t) => t.worker));
      if (failure === null) {
        failure = new Error('the search reader is closed');
        for (const { worker } of pool) worker.postMessage({ id: -1, kind: 'close', sql: '', params: [] });
      }
      return ended;
    },
  };
}

/**
 * The segments of the FTS5 table `fts` read through `db`, a connection on the calling thread. The
 * reader threads' source text has its own: functions embedded there must hold no inner named
 * functions (the tsx loader wraps those in a helper the threads do not have).
 */
export function fts5TableStore(db: Database, fts: string): Fts5Store {
  const data = db.prepare(`SELECT block FROM "${fts}_data" WHERE id = ?`).pluck();
  const tombstone = db.prepare(`SELECT block FROM "${fts}_data" WHERE id = ((? + 65536) << 37) | ?`).pluck();
  const idx = db.prepare(`SELECT pgno FROM "${fts}_idx" WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`).pluck();
  const leaves = db.prepare(`SELECT pgno FROM "${fts}_idx" WHERE segid = ? AND term >= ? AND term < ? ORDER BY term`).pluck();
  const bytes = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return {
    block: (id) => data.get(id) as Uint8Array | undefined,
    tombstone: (segid, page) => tombstone.get(segid, page) as Uint8Array | undefined,
    seek: (segid, key) => idx.get(segid, bytes(key)) as number | undefined,
    leaves: (segid, low, high) => leaves.all(segid, bytes(low), bytes(high)) as number[],
  };
}

export function createInlineReader(db: Database): SqliteReader {
  db.function(ROW_SIZE_FUNCTION, { deterministic: true }, (sz) => documentLength(sz as Uint8Array));
  const scratch = fts5Scratch();
  const phraseScratch = fts5PhraseScratch();
  const stores = new Map<string, Fts5Store>();
  const keptSlices = new Map<string, Fts5KeptSlices>();
  const storeOf = (fts: string): Fts5Store => {
    let store = stores.get(fts);
    if (store === undefined) {
      store = fts5TableStore(db, fts);
      stores.set(fts, store);
    }
    return store;
  };
  const occurrences = (fts: string, word: string, fallback: string): Int32Array => {
    const store = storeOf(fts);
    try {
      return db.transaction(() => fts5Occurrences(store, word, scratch, (count) => new Int32Array(count)))();
    } catch {
      return Int32Array.from(db.prepare(fallback).pluck().all(word) as number[]);
    }
  };
  const phrases = (fts: string, list: readonly (readonly string[])[]): Int32Array => {
    const store = storeOf(fts);
    return db.transaction(() => fts5Phrases(store, list, scratch, phraseScratch, (count) => new Int32Array(count)))();
  };
  return {
    rowids: async (sql, params) => Int32Array.from(db.prepare(sql).pluck().all(...params) as number[]),
    rows: async (sql, params) => db.prepare(sql).raw().all(...params) as unknown[][],
    pairs: async (sql, params) => Float64Array.from((db.prepare(sql).raw().all(...params) as [number, number][]).flat()),
    numbers: async (sql, params) => Float64Array.from((db.prepare(sql).raw().all(...params) as number[][]).flat()),
    ranges: async (sql, params) => rangeColumns(db.prepare(sql).raw().iterate(...params) as Iterable<unknown[]>),
    occurrences: async (fts, word, fallback) => occurrences(fts, word, fallback),
    phrases: async (fts, list) => phrases(fts, list),
    fieldRows: async (fts, list) => {
      const store = storeOf(fts);
      return db.transaction(() => fts5FieldRows(store, list, scratch, phraseScratch, (count) => new Int32Array(count)))();
    },
    nearestWords: async (fts, s) => {
      const store = storeOf(fts);
      let kept = keptSlices.get(fts);
      if (kept === undefined) {
        kept = fts5KeptSlices();
        keptSlices.set(fts, kept);
      }
      const slices = kept;
      const nearest = db.transaction(() => fts5NearestWords(store, s.from, s.to, s.word, s.shortest, s.longest, s.most, scratch, slices))();
      return { read: nearest.length, near: withinBagDistance(nearest, s.word, s.distance) };
    },
    recycle: () => undefined,
    close: async () => undefined,
  };
}
