/**
 * Writes of the SQLite search index, on a worker thread with a connection of its own.
 *
 * FTS5 tokenises a document's whole text in one native call, and deleting the previous version
 * tokenises that again: for the largest legal record the two take over 100 ms, during which a
 * write on the main thread would stop every other request. Here they only delay the write's
 * own answer. The main thread prepares the rows (it holds the domain's flattening rules); the
 * worker runs plain JavaScript over prepared statements.
 *
 * Every write transaction also counts itself in `doc_generation`, and answers the count it
 * committed: the main thread's cache of document headers compares it with the count it has seen,
 * which tells its own writes from another process's (`krs reindex` on the same file).
 *
 * A database in memory cannot be opened twice, so it is written inline, on the calling thread,
 * by the same code.
 */
import type { Database } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { SQLITE_MODULE_PATH } from '../sql/sqlite-driver.ts';
import { LOWER_PRIORITY } from './worker-priority.ts';
import { threadsEnded } from './threads-ended.ts';
import { fieldPrefix, VALUE_GAP, type FieldWords } from './field-tokens.ts';

/** One document as rows: what the main thread computes from a SearchDocument. */
export interface PreparedDoc {
  key: string;
  /** The `doc` table's columns (named parameters of its insert). */
  header: Record<string, string | number | null>;
  /** The document without its shapes, as JSON. */
  body: string;
  title: string;
  text: string;
  paths: string;
  /** Each field path's words, for `doc_field` (field-tokens.ts). */
  fields: FieldWords[];
  ranges: [field: string, value: string | number][];
  /** west, south, east, north */
  boxes: [number, number, number, number][];
  /** JSON of the exact shapes, when a line or polygon needs them. */
  shapes: string | null;
}

export interface Written {
  /** The rowid each document (upsert) or each removed key that existed (remove) has. */
  rowids: number[];
  /** The write's place in the file's sequence of write transactions. */
  generation: number;
}

export interface SqliteWriter {
  upsert(docs: readonly PreparedDoc[]): Promise<Written>;
  remove(keys: readonly string[]): Promise<Written>;
  keysOfParent(parentId: string): Promise<string[]>;
  clear(): Promise<Written>;
  /** Writes already asked for complete first; resolves once the thread has ended. */
  close(): Promise<void>;
}

/**
 * Plain JavaScript, a function of a better-sqlite3 connection: evaluated in the worker, and on the
 * calling thread for a database in memory.
 */
const WRITER_CORE = `function (db) {
  const rowOf = db.prepare('SELECT rowid FROM doc WHERE key = ?');
  const deleteDoc = db.prepare('DELETE FROM doc WHERE rowid = ?');
  const deleteFts = db.prepare('DELETE FROM doc_fts WHERE rowid = ?');
  // A document's boxes, found through the R*Tree by the bounds its stored body holds (each
  // widened a little: the stored box holds the exact one, rounded outward), then by its rowid.
  // \`WHERE doc_rowid = ?\` alone reads every box (an R*Tree's auxiliary column has no index):
  // 1.5 s of this thread per rewrite or removal at a million documents, 43 ms at 100 000.
  const deleteBoxes = db.prepare("DELETE FROM doc_box WHERE id IN (SELECT b.id FROM json_each((SELECT doc ->> '$.bounds' FROM doc_body WHERE rowid = ?)) AS j CROSS JOIN doc_box AS b " +
    'WHERE b.min_x <= (j.value ->> 2) + 1e-6 AND b.max_x >= (j.value ->> 0) - 1e-6 AND b.min_y <= (j.value ->> 3) + 1e-6 AND b.max_y >= (j.value ->> 1) - 1e-6 AND b.doc_rowid = ?)');
  const deleteBody = db.prepare('DELETE FROM doc_body WHERE rowid = ?');
  const deleteShapes = db.prepare('DELETE FROM doc_shape WHERE rowid = ?');
  const deleteRanges = db.prepare('DELETE FROM doc_range WHERE doc_rowid = ?');
  const insertDoc = db.prepare('INSERT INTO doc (rowid, key, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing, ' +
    'is_user_latest, is_public, readers, created, updated, resource_type, resource_type_label, access_status) ' +
    'VALUES (@rowid, @key, @id, @kind, @state, @parentId, @ownerId, @versionIndex, @isLatest, @inUserListing, @isUserLatest, @isPublic, ' +
    '@readers, @created, @updated, @resourceType, @resourceTypeLabel, @accessStatus)');
  const insertBody = db.prepare('INSERT INTO doc_body (rowid, doc) VALUES (?, ?)');
  const insertFts = db.prepare('INSERT INTO doc_fts (rowid, title, text, paths) VALUES (?, ?, ?, ?)');
  const insertRange = db.prepare('INSERT INTO doc_range (field, value, doc_rowid) VALUES (?, ?, ?)');
  const insertBox = db.prepare('INSERT INTO doc_box (min_x, max_x, min_y, max_y, doc_rowid) VALUES (?, ?, ?, ?, ?)');
  const insertShapes = db.prepare('INSERT INTO doc_shape (rowid, shapes) VALUES (?, ?)');
  const deleteField = db.prepare('DELETE FROM doc_field WHERE rowid = ?');
  const insertField = db.prepare('INSERT INTO doc_field (rowid, words) VALUES (?, ?)');
  const pathNumber = db.prepare('SELECT id FROM doc_field_path WHERE path = ?').pluck();
  const numberPath = db.prepare('INSERT INTO doc_field_path (path) VALUES (?)');
  const fieldPrefix = ${fieldPrefix.toString()};
  // A path's number never changes and is never removed, so it is kept here once read; a write
  // that fails forgets them all, since it may have numbered paths its rollback took back.
  const prefixes = new Map();
  const prefixOf = (path) => {
    let prefix = prefixes.get(path);
    if (prefix === undefined) {
      const id = pathNumber.get(path) ?? Number(numberPath.run(path).lastInsertRowid);
      prefix = fieldPrefix(id);
      prefixes.set(path, prefix);
    }
    return prefix;
  };
  const fieldText = (fields) => {
    const parts = [];
    for (const [path, words, mixed] of fields) {
      const prefix = prefixOf(path);
      if (mixed === 1) parts.push(prefix);
      if (words !== '') parts.push(words.split(' ').map((w) => (w === '${VALUE_GAP}' || w === '' ? w : prefix + w)).join(' '));
    }
    return parts.join(' ');
  };
  const keysOf = db.prepare('SELECT key FROM doc WHERE parent_id = ?').pluck();
  // Not one UPDATE ... RETURNING: SQLite runs RETURNING as a trigger, and a statement with a
  // trigger opens a statement savepoint, at which FTS5 writes the terms it holds as a segment
  // of their own (see WORKER_SOURCE): a segment per write of a batch instead of one per batch.
  const bumpGeneration = db.prepare('UPDATE doc_generation SET value = value + 1 WHERE id = 1');
  const generationNow = db.prepare('SELECT value FROM doc_generation WHERE id = 1').pluck();
  const bump = () => {
    bumpGeneration.run();
    return generationNow.get();
  };
  const removeKey = (key) => {
    const row = rowOf.get(key);
    if (!row) return null;
    deleteFts.run(row.rowid);
    deleteField.run(row.rowid);
    deleteBoxes.run(row.rowid, row.rowid);
    deleteBody.run(row.rowid);
    deleteShapes.run(row.rowid);
    deleteRanges.run(row.rowid);
    deleteDoc.run(row.rowid);
    return row.rowid;
  };
  const upsertRows = (docs) => {
    const rowids = [];
    for (const doc of docs) {
      const previous = removeKey(doc.key);
      const rowid = Number(insertDoc.run({ ...doc.header, rowid: previous, key: doc.key }).lastInsertRowid);
      insertBody.run(rowid, doc.body);
      insertFts.run(rowid, doc.title, doc.text, doc.paths);
      insertField.run(rowid, fieldText(doc.fields));
      for (const [field, value] of doc.ranges) insertRange.run(field, value, rowid);
      for (const [w, s, e, n] of doc.boxes) insertBox.run(w, e, s, n, rowid);
      if (doc.shapes !== null) insertShapes.run(rowid, doc.shapes);
      rowids.push(rowid);
    }
    return { rowids, generation: bump() };
  };
  const removeRows = (keys) => {
    const rowids = keys.map(removeKey).filter((r) => r !== null);
    return { rowids, generation: bump() };
  };
  const clearRows = () => {
    db.exec('DELETE FROM doc; DELETE FROM doc_body; DELETE FROM doc_fts; DELETE FROM doc_field; DELETE FROM doc_box; DELETE FROM doc_shape; DELETE FROM doc_range;');
    return { rowids: [], generation: bump() };
  };
  const keysOfParent = (parentId) => keysOf.all(parentId);
  const upsert = db.transaction(upsertRows);
  const remove = db.transaction(removeRows);
  const clear = db.transaction(clearRows);
  // BEGIN IMMEDIATE: a transaction that reads first and then writes cannot wait for another
  // process's write lock (SQLite answers "database is locked" at once); one that takes the lock
  // first waits for it up to busy_timeout.
  const forgetting = (run) => (arg) => {
    try {
      return run(arg);
    } catch (e) {
      prefixes.clear();
      throw e;
    }
  };
  return {
    upsert: forgetting((docs) => upsert.immediate(docs)),
    remove: (keys) => remove.immediate(keys),
    clear: () => clear.immediate(),
    keysOfParent,
    forgetPaths: () => prefixes.clear(),
    // The same writes without a transaction of their own, for a caller's transaction that holds
    // several (see WORKER_SOURCE).
    within: { upsert: upsertRows, remove: removeRows, clear: clearRows, keysOfParent },
  };
}`;

type Operation = 'upsert' | 'remove' | 'clear' | 'keysOfParent' | 'close';
type Ask = { id: number; op: Operation; arg: unknown };
type Reply = { id: number; result: unknown } | { id: number; error: string };

/**
 * The worker takes the writes asked for while it was busy as one message and commits them in one
 * transaction. One commit instead of one per write spares FTS5 a segment (and its merging) and
 * the WAL a commit record per write. The writes are not savepoints of their own inside it: FTS5
 * writes the terms it holds as a new segment at every savepoint, so a savepoint per write cost
 * the segment per write the batch was meant to spare (a scratch loop of batches of 16 documents:
 * 142-159 us of CPU per document with savepoints, 84-86 without). If any write of the batch
 * fails, the whole transaction is rolled back and each write runs again in a transaction of its
 * own: a document the index refuses fails alone and leaves nothing behind, the others commit,
 * as when each write was its own transaction.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
// A file that cannot be opened is reported with each write, never thrown from here: a thread
// that dies inside better-sqlite3's native code can abort the whole process.
let db = null;
let core = null;
let openError = null;
let together = null;
try {
  db = new Database(workerData.filename, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // A checkpoint copies each page the WAL holds into the file once, however many commits rewrote
  // it (FTS5's structure, the indexes' inner pages): checkpointed every 10,000 pages (about 40
  // MiB of WAL) rather than SQLite's 1,000, a create's document cost this thread about 8% less
  // CPU and 14% fewer bytes written (in a loop, batches of 16).
  db.pragma('wal_autocheckpoint = 10000');
  core = (${WRITER_CORE})(db);
  together = db.transaction((asks) => asks.map(({ id, op, arg }) => ({ id, result: core.within[op](arg) })));
} catch (e) {
  openError = String((e && e.message) || e);
}
${LOWER_PRIORITY}
parentPort.on('message', (asks) => {
  // A close comes last: the writes asked for before it complete first.
  const close = asks[asks.length - 1].op === 'close' ? asks.pop() : null;
  let replies;
  if (openError !== null) replies = asks.map(({ id }) => ({ id, error: openError }));
  else if (asks.length <= 1) replies = asks.map(runOne);
  else {
    try {
      replies = together.immediate(asks);
    } catch {
      // Nothing of the batch was kept (its paths' numbers neither): each write again, alone.
      core.forgetPaths();
      replies = asks.map(runOne);
    }
  }
  if (close !== null) {
    if (db !== null) db.close();
    replies.push({ id: close.id, result: null });
  }
  parentPort.postMessage(replies);
  if (close !== null) parentPort.close();
});
function runOne({ id, op, arg }) {
  try {
    return { id, result: core[op](arg) };
  } catch (e) {
    return { id, error: String((e && e.message) || e) };
  }
}
`;

interface WriterCore {
  upsert(docs: readonly PreparedDoc[]): Written;
  remove(keys: readonly string[]): Written;
  clear(): Written;
  keysOfParent(parentId: string): string[];
}

/**
 * Writes through a worker; the file must exist with its tables (the main connection creates them).
 * One message is in flight at a time: writes asked for meanwhile wait and go together in the
 * next, in the order they were asked; so do the writes asked for in one turn while it is idle.
 */
export function createThreadWriter(filename: string): SqliteWriter {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, module: SQLITE_MODULE_PATH } });
  worker.unref();
  const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  let queued: Ask[] = [];
  let sending = false;
  /** A send is due at the end of this turn (see `ask`). */
  let scheduled = false;
  let closing = false;
  let next = 0;
  let failure: Error | null = null;
  const failAll = (e: Error) => {
    failure = e;
    for (const p of pending.values()) p.fail(e);
    pending.clear();
    queued = [];
  };
  const send = () => {
    sending = queued.length > 0;
    if (!sending) return;
    worker.postMessage(queued);
    queued = [];
  };
  worker.on('message', (replies: Reply[]) => {
    for (const reply of replies) {
      const p = pending.get(reply.id);
      if (p === undefined) continue;
      pending.delete(reply.id);
      if ('error' in reply) p.fail(new Error(reply.error));
      else p.ok(reply.result);
    }
    send();
  });
  worker.on('error', (e) => failAll(e));
  worker.on('exit', () => failAll(new Error('the search writer thread has stopped')));
  const ask = <T>(op: Operation, arg?: unknown) =>
    new Promise<T>((ok, fail) => {
      if (failure !== null) return fail(failure);
      if (closing) return fail(new Error('the search writer is closed'));
      const id = next++;
      if (op === 'close') closing = true;
      pending.set(id, { ok: ok as (v: unknown) => void, fail });
      // Referenced while it has work: a write asked for is finished even at shutdown.
      if (pending.size === 1) worker.ref();
      queued.push({ id, op, arg });
      // With the thread idle, the send waits for the end of this turn: the writes one commit
      // answers together (a batch of creates) are asked for in the same turn, and one message
      // commits them in one transaction. Sent at once, the first went alone and the others
      // waited for it; a transaction of the index costs about as much as four documents in it.
      if (!sending && !scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          if (!sending) send();
        });
      }
    }).finally(() => {
      // Once closing, the thread stays referenced until it ends (see threadsEnded).
      if (pending.size === 0 && !closing) worker.unref();
    });
  return {
    upsert: (docs) => ask<Written>('upsert', docs),
    remove: (keys) => ask<Written>('remove', keys),
    clear: () => ask<Written>('clear'),
    keysOfParent: (parentId) => ask<string[]>('keysOfParent', parentId),
    close: () => {
      const ended = threadsEnded([worker]);
      void ask('close').catch(() => undefined);
      return ended;
    },
  };
}

/** Writes on the calling thread, through the same statements: for a database in memory. */
export function createInlineWriter(db: Database): SqliteWriter {
  const core = (new Function(`return (${WRITER_CORE});`)() as (db: Database) => WriterCore)(db);
  return {
    upsert: async (docs) => core.upsert(docs),
    remove: async (keys) => core.remove(keys),
    clear: async () => core.clear(),
    keysOfParent: async (parentId) => core.keysOfParent(parentId),
    close: async () => undefined,
  };
}
