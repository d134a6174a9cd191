/**
 * SearchIndex on SQLite FTS5 with an R*Tree for geometry boxes, in its own database file.
 *
 * SQLite answers what needs an index: which documents hold the words (with their bm25 score),
 * which boxes meet the query box, which rows belong to a parent, an owner or a list of ids.
 * Everything else (kinds, states, version flags, visibility, facets, sort and paging) runs in
 * memory over each document's header in the domain's typed columns (`HeaderTable`), with the rules of the
 * domain's `runSearch`. Joining each FTS match back to its table row cost more than all of that
 * together (measured: 9 ms of a 12 ms ranked query at 100k documents).
 *
 * The headers are a cache of the `doc` table: loaded at open, updated after each of our writes (made
 * on a worker thread, see sqlite-writer.ts), and reloaded whole when another process (`krs reindex`)
 * has written the file.
 */
import { open } from 'node:fs/promises';
import { Sqlite as Database } from '../sql/sqlite-driver.ts';
import {
  firstByColumnSteps,
  firstInOrder,
  fieldValues,
  flatten,
  flattenInTurns,
  fuzzyDistance,
  HeaderTable,
  matchesQuery,
  parseQuery,
  passesFilter,
  NUMERIC_RANGE_FIELDS,
  positiveTerms,
  RANGE_FIELDS,
  rangeValues,
  scoreQuery,
  shapesMeetBox,
  tokenize,
  type FlatDoc,
  type HeaderFields,
  type QueryNode,
  type Ranker,
  type Steps,
} from '@krs/domain/search';
import { isLarge, jsonText, largeValueSlices, timeSlices, turnWhenDue, type BBox, type SearchDocument, type SearchIndex, type SearchRequest, type SearchResult, type Shape } from '@krs/domain';
import { ftsExpression, fuzzyWords, singleTitleWord, matchText, querySql, rankedLeaves, rankText, singlePrefix, singleWordPhrases, textPrefilter, type Param, type QueryContext, type Sql } from './fts-query.ts';
import { PresenceCache } from './presence-cache.ts';
import { BoxBounds, Codes, type Box } from './box-bounds.ts';
import { DocLengths, documentLength, tableTotals } from './doc-lengths.ts';
import { inverseDocumentFrequency, OCCURRENCES_SQL, phrasesRelevanceSteps, relevanceSteps, unpackPhrases, weightedAs, type Relevance } from './term-relevance.ts';
import { textPhrases } from './text-phrases.ts';
import { ScratchPool, type ScratchArrays } from './scratch-arrays.ts';
import { decideLargeText, evaluateLargeApart, LARGE_CANDIDATE_CHARS } from './decide-candidates.ts';
import { expandInSlices } from './expand-in-slices.ts';
import { createInlineReader, createThreadReader, ROW_SIZE_FUNCTION, type SqliteReader } from './sqlite-reader.ts';
import { PATH_TOKEN_PREFIX, pathToken } from './path-token.ts';
import { fieldWordsInTurns } from './field-tokens.ts';
import { pathShape } from './path-shape.ts';
import { fieldExpression, fieldPhrases, namedFields, unfielded, type FieldPaths } from './field-query.ts';
import { createInlineWriter, createThreadWriter, type PreparedDoc, type Written } from './sqlite-writer.ts';
import { nextTurn } from '../next-turn.ts';
import { nextSearchTurn } from './search-turns.ts';
import { RANGE_COLUMNS_SQL, RangeValues, type RangeEntries } from './range-values.ts';
import { hasRange, intersectRows, queryRows, type RowSources } from './query-rows.ts';

/**
 * Bumped when the file's tables change; a file of another layout is refused, and the caller
 * starts it afresh (the index is a projection of the database).
 */
export const LAYOUT = 5;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS doc (
  rowid INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, parent_id TEXT NOT NULL, owner_id TEXT NOT NULL,
  version_index INTEGER NOT NULL, is_latest INTEGER NOT NULL, in_user_listing INTEGER NOT NULL, is_user_latest INTEGER NOT NULL,
  is_public INTEGER NOT NULL, readers TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL,
  resource_type TEXT, resource_type_label TEXT, access_status TEXT NOT NULL
);
-- Kept apart so loading the headers never reads the bodies.
CREATE TABLE IF NOT EXISTS doc_body (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS doc_parent ON doc(parent_id);
CREATE INDEX IF NOT EXISTS doc_id ON doc(id);
CREATE INDEX IF NOT EXISTS doc_owner ON doc(owner_id, in_user_listing);
-- Listing and facet indexes of the first layout: filters now run over the headers in memory.
DROP INDEX IF EXISTS doc_listing;
DROP INDEX IF EXISTS doc_facets;
-- paths: one token per field path holding a value (pathToken), for _exists_.
-- The prefix indexes answer one- and two-letter prefixes from one list each, not by merging every word's.
CREATE VIRTUAL TABLE IF NOT EXISTS doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
-- The indexed words, in order, a row per word and column.
CREATE VIRTUAL TABLE IF NOT EXISTS doc_vocab USING fts5vocab(doc_fts, col);
-- The same, a row per word: fuzzy terms read one letter's slice of it.
CREATE VIRTUAL TABLE IF NOT EXISTS doc_words USING fts5vocab(doc_fts, row);
-- Each occurrence of a word (document, column): single-word queries are scored from it (term-relevance.ts).
CREATE VIRTUAL TABLE IF NOT EXISTS doc_instance USING fts5vocab(doc_fts, instance);
-- Each field path's words, for field:value (field-tokens.ts): contentless, the words being kept in doc_body.
CREATE VIRTUAL TABLE IF NOT EXISTS doc_field USING fts5(words, content = '', contentless_delete = 1, tokenize = 'unicode61');
-- The number of each field path in doc_field's tokens, never changed nor removed.
CREATE TABLE IF NOT EXISTS doc_field_path (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
-- The values of the range fields (RANGE_FIELDS), ordered per field: dates as text, numbers as numbers.
CREATE TABLE IF NOT EXISTS doc_range (field TEXT NOT NULL, value NOT NULL, doc_rowid INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS doc_range_value ON doc_range(field, value);
CREATE INDEX IF NOT EXISTS doc_range_doc ON doc_range(doc_rowid);
CREATE VIRTUAL TABLE IF NOT EXISTS doc_box USING rtree(id, min_x, max_x, min_y, max_y, +doc_rowid INTEGER);
-- Exact shapes of documents with a line or polygon, for candidates whose box only overlaps the query's.
CREATE TABLE IF NOT EXISTS doc_shape (rowid INTEGER PRIMARY KEY, shapes TEXT NOT NULL);
-- Counts write transactions, so a cache of the headers can tell whether a write it did not make happened.
CREATE TABLE IF NOT EXISTS doc_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
INSERT OR IGNORE INTO doc_generation (id, value) VALUES (1, 0);
`;

/**
 * A document's preparation takes the slices of a large record's other steps (domain
 * `largeValueSlices`). A search's passes over the header columns take turns of this: a cheap GET
 * waiting behind a search (a match-everything query reads a hundred thousand rows in a few
 * milliseconds) waits about this long, so hostile queries sent back to back barely move the
 * GETs' p99. A quarter of a millisecond: with 1 ms, and the steps that overran it, the main
 * thread's stretches between two polls for I/O beside the hostile queries reached 2-3 ms several
 * times a second. With 0.25 ms the GETs' p99 beside them in bench/hostile.ts fell from 4.0-4.5
 * to 3.7-3.8 ms, still over twice the quiet 1.4-1.6 ms (docs/search.md, "slices").
 */
const SEARCH_TURN_MS = 0.25;


/**
 * Between two values in the `title` and `text` columns: a token of its own (unicode61 keeps a
 * private-use character as a word) that the domain's `tokenize` never makes, so no query names
 * it and a phrase never runs from the end of one value into the start of the next, as in the
 * evaluator (and in an index that puts a gap between an array's values).
 */
export const VALUE_SEPARATOR = '\u{E000}';
const JOINT = ` ${VALUE_SEPARATOR} `;
const NON_ASCII = /[^\x00-\x7f]/;
/**
 * A value as a text column holds it: on ASCII, unicode61 and the domain's `tokenize` make the
 * same words, so the value as it is; otherwise the words `tokenize` makes, which the query's words
 * are too: unicode61 alone keeps a private-use character inside a word, where `tokenize` splits,
 * and a Hangul syllable whole, which `tokenize` decomposes (so `한국*` found nothing).
 */
const columnValue = (value: string): string => (NON_ASCII.test(value) ? tokenize(value).join(' ') : value);

/** Values joined for a text column, `VALUE_SEPARATOR` between two. */
const joinValues = (values: readonly string[]): string =>
  values.some((v) => NON_ASCII.test(v)) ? values.map(columnValue).join(JOINT) : values.join(JOINT);

/** Values of a flattened body joined per step of `joinInTurns`. */
const VALUES_PER_JOIN = 2_048;
/** Or characters: a few long values take as long to join as many short ones. */
const CHARS_PER_JOIN = 65_536;

/**
 * `Array.from(flat.values(), (v) => v.join(JOINT)).join(JOINT)`, a few thousand values at a time with
 * `takeTurn` between: the largest legal record's text (tens of thousands of coordinates in one
 * field) takes tens of milliseconds to join. Joining the joined parts with the same separator
 * gives the same text.
 */
async function joinInTurns(flat: FlatDoc, takeTurn: () => Promise<void>): Promise<string> {
  const parts: string[] = [];
  // A turn is offered once enough has been joined, not after every path: a create's document
  // has forty paths of a few short values each, and an await per path cost it forty promises.
  let values = 0;
  let chars = 0;
  for (const all of flat.values()) {
    if (all.length === 0) parts.push('');
    for (let i = 0; i < all.length; i += VALUES_PER_JOIN) {
      const part = joinValues(all.length <= VALUES_PER_JOIN ? all : all.slice(i, i + VALUES_PER_JOIN));
      parts.push(part);
      values += Math.min(VALUES_PER_JOIN, all.length - i);
      chars += part.length;
      if (values >= VALUES_PER_JOIN || chars >= CHARS_PER_JOIN) {
        values = 0;
        chars = 0;
        await takeTurn();
      }
    }
  }
  return parts.join(JOINT);
}

/**
 * A document as the rows the writer stores. Flattening the largest legal record, encoding its body
 * and joining its text take tens of milliseconds each: each goes in steps of a few milliseconds,
 * and other requests may get a turn between them.
 */
async function prepareDoc(doc: SearchDocument, takeTurn: () => Promise<void>): Promise<PreparedDoc> {
  // A large record is flattened and encoded in slices (domain turns/large-values.ts), any other
  // at once: walked in turns, a create's document took 21 µs to flatten against 9.
  const large = isLarge(doc.body['metadata']);
  const flat = large ? await flattenInTurns(doc.body, takeTurn) : flatten(doc.body);
  await takeTurn();
  const ranges: PreparedDoc['ranges'] = [];
  for (const [field, value] of rangeValues(flat)) {
    // A number as a number; any other value as text, which sorts after every number and is
    // found by an open range only (`versions.index:[* TO *]`), as in the evaluator.
    ranges.push([field, NUMERIC_RANGE_FIELDS.includes(field) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value]);
  }
  // The shapes have their own table: a body read for the evaluator need not carry them.
  const encode = (value: unknown): string | Promise<string> => jsonText(value, large);
  const body = await encode({ ...doc, shapes: undefined });
  await takeTurn();
  const text = await joinInTurns(flat, takeTurn);
  await takeTurn();
  const shape = pathShape(flat);
  const fields = await fieldWordsInTurns(flat, shape.mixed, takeTurn);
  await takeTurn();
  return {
    key: doc.key,
    header: {
      id: doc.id,
      kind: doc.kind,
      state: doc.state,
      parentId: doc.parentId,
      ownerId: doc.ownerId,
      versionIndex: doc.versionIndex,
      isLatest: doc.isLatest ? 1 : 0,
      inUserListing: doc.inUserListing ? 1 : 0,
      isUserLatest: doc.isUserLatest ? 1 : 0,
      isPublic: doc.isPublic ? 1 : 0,
      readers: JSON.stringify(doc.readers),
      created: doc.created,
      updated: doc.updated,
      resourceType: doc.resourceType?.id ?? null,
      resourceTypeLabel: doc.resourceType?.label ?? null,
      accessStatus: doc.accessStatus,
    },
    body,
    // What `metadata.title:` reads: its own values, else its members' (`{en, fr}`).
    title: joinValues(fieldValues(flat, 'metadata.title')),
    text,
    paths: shape.tokens,
    fields,
    ranges,
    boxes: doc.bounds.map(([w, s, e, n]) => [w, s, e, n]),
    // Points and boxes are exactly their bounds: only lines and polygons need deciding.
    shapes: doc.shapes?.some((shape) => shape.type === 'line' || shape.type === 'polygon') ? await encode(doc.shapes) : null,
  };
}

/** The `doc` columns a header needs, read as arrays: no object per row while loading a million. */
const HEADER_COLUMNS = `rowid, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing, is_user_latest,
  is_public, CASE is_public WHEN 1 THEN NULL ELSE readers END, created, updated, resource_type, resource_type_label, access_status`;
type HeaderRow = [
  rowid: number,
  id: string,
  kind: SearchDocument['kind'],
  state: SearchDocument['state'],
  parentId: string,
  ownerId: string,
  versionIndex: number,
  isLatest: number,
  inUserListing: number,
  isUserLatest: number,
  isPublic: number,
  /** Only read for documents that are not public. */
  readers: string | null,
  created: string,
  updated: string,
  resourceType: string | null,
  resourceTypeLabel: string | null,
  accessStatus: SearchDocument['accessStatus'],
];

function fieldsOf(r: HeaderRow): HeaderFields {
  const [, id, kind, state, parentId, ownerId, versionIndex, isLatest, inUserListing, isUserLatest, isPublic, readers, created, updated, rt, rtLabel, accessStatus] = r;
  return {
    id,
    kind,
    state,
    parentId,
    ownerId,
    versionIndex,
    isLatest: isLatest === 1,
    inUserListing: inUserListing === 1,
    isUserLatest: isUserLatest === 1,
    isPublic: isPublic === 1,
    // Public documents need no readers: neither read nor parsed for the many.
    readers: readers === null ? [] : (JSON.parse(readers) as string[]),
    created,
    updated,
    resourceType: rt === null ? null : { id: rt, label: rtLabel ?? rt },
    accessStatus,
  };
}

/** A membership test for a list of rowids, a byte per rowid. */
function memberOf(list: Int32Array): (rowid: number) => boolean {
  let highest = 0;
  for (const x of list) highest = Math.max(highest, x);
  const bits = new Uint8Array(highest + 1);
  for (const x of list) bits[x] = 1;
  return (rowid) => bits[rowid] === 1;
}

/**
 * Words a prefix may start and still be scored from their occurrences (term-relevance.ts);
 * a prefix starting more is ranked by FTS5's `bm25()`.
 */
const PREFIX_WORDS = 64;

/** The title's weight in the index's bm25 (`bm25(doc_fts, 2.0, 1.0, 0.0)`), as the occurrences carry it. */
const TITLE_WEIGHT: 1 | 2 = 2;

/** Vocabulary words the fuzzy terms of one query may read, all terms together. */
const VOCABULARY_WORDS_PER_QUERY = 20_000;

/** Slices of the vocabulary remembered as holding more than the bound before a word (see `overflowing`). */
const OVERFLOWING_KEPT = 256;

export interface SqliteSearchIndex extends SearchIndex {
  size(): number;
  /**
   * Resolves once what is read in the background has been read (the documents' lengths, and the
   * boxes once a query has asked for one): a benchmark measures queries after it.
   */
  settled(): Promise<void>;
  /** Resolves once the reader and writer threads have ended: the process may then exit. */
  close(): Promise<void>;
}

/** `filename` may be ':memory:'. The file is a projection: deleting it only costs a rebuild. */
export function createSqliteSearchIndex(filename: string): SqliteSearchIndex {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  // WAL with NORMAL cannot corrupt on a crash, only lose the last writes, which the start-up
  // catch-up from the database restores; waiting for the disk on every write buys nothing.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const layout = db.pragma('user_version', { simple: true }) as number;
  const hasTables = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'doc'").get() !== undefined;
  if (layout !== LAYOUT && (layout !== 0 || hasTables)) {
    db.close();
    throw new Error(`search index ${filename} has layout ${layout}, not ${LAYOUT}`);
  }
  db.exec(SCHEMA);
  db.pragma(`user_version = ${LAYOUT}`);
  const allRows = db.prepare(`SELECT ${HEADER_COLUMNS} FROM doc`).raw();
  const anyRow = db.prepare('SELECT rowid FROM doc LIMIT 1');
  const generationNow = db.prepare('SELECT value FROM doc_generation WHERE id = 1').pluck();
  const generation = () => generationNow.get() as number;

  // Writes run off the main thread (see sqlite-writer.ts); memory cannot be shared by two connections.
  const writer = filename === ':memory:' ? createInlineWriter(db) : createThreadWriter(filename);

  let headers = new HeaderTable();
  /**
   * Each document's length in tokens (for term-relevance.ts), read by a reader thread at open
   * and after another process's write (150-350 ms of decoding at 100k documents, kept off the
   * start-up and the loop), and kept up to date by our writes.
   */
  let lengths = new DocLengths();
  let lengthsRead: Promise<void> = Promise.resolve();
  /** Rows our writes changed while the lengths were being read: read again once they are. */
  let writtenWhileReading: Set<number> | null = null;
  /** Set once the reader threads run (after the first read of the headers). */
  let lengthsReader: SqliteReader | null = null;
  function readAllLengths(): void {
    if (lengthsReader === null) return;
    const written = new Set<number>();
    writtenWhileReading = written;
    const read: Promise<void> = lengthsReader.pairs(`SELECT id, ${ROW_SIZE_FUNCTION}(sz) FROM doc_fts_docsize`, []).then((pairs) => {
      // A later read (another process wrote again) supersedes this one.
      if (lengthsRead !== read) return;
      const next = new DocLengths();
      for (let i = 0; i + 1 < pairs.length; i += 2) next.set(pairs[i] ?? 0, pairs[i + 1] ?? 0);
      writtenWhileReading = null;
      readLengths(next, written);
      lengths = next;
    });
    // Awaited by the queries that score words; a failed read fails them, not the process.
    read.catch(() => undefined);
    lengthsRead = read;
  }
  /**
   * Every document's boxes (box-bounds.ts), read whole by a reader thread once a query asks for a
   * box, again after another process's write, and kept up to date by our writes. Reading them is
   * 3 s of a reader thread at a million documents: an index never asked for a box never pays it,
   * and a box asked while they are read is answered by the R*Tree, as before they were kept.
   */
  let bounds = new BoxBounds();
  let boundsWanted = false;
  let boundsReady = false;
  let boundsRead: Promise<void> = Promise.resolve();
  /** Boxes our writes set while the bounds were being read (none for a removal): set again once they are. */
  let boxesWhileReading: Map<number, readonly Box[]> | null = null;
  function readAllBounds(): void {
    if (lengthsReader === null || !boundsWanted) return;
    boundsReady = false;
    const written = new Map<number, readonly Box[]>();
    boxesWhileReading = written;
    const read: Promise<void> = lengthsReader.numbers('SELECT doc_rowid, min_x, max_x, min_y, max_y FROM doc_box', []).then((rows) => {
      // A later read (another process wrote again, or a clear) supersedes this one.
      if (boundsRead !== read) return;
      const next = new BoxBounds();
      for (let i = 0; i + 4 < rows.length; i += 5) next.addStored(rows[i] ?? 0, rows[i + 1] ?? 0, rows[i + 2] ?? 0, rows[i + 3] ?? 0, rows[i + 4] ?? 0);
      for (const [rowid, boxes] of written) next.set(rowid, boxes);
      boxesWhileReading = null;
      bounds = next;
      boundsReady = true;
    });
    // A failed read leaves the boxes to the R*Tree.
    read.catch(() => undefined);
    boundsRead = read;
  }
  const setBoxes = (rowid: number, boxes: readonly Box[]) => {
    if (!boundsWanted) return;
    boxesWhileReading?.set(rowid, boxes);
    bounds.set(rowid, boxes);
  };
  /**
   * The range fields' values (range-values.ts), read by a reader thread once a query first asks
   * for a range (a second at a million documents), again after another process's write (until
   * then ranges are SQL over `doc_range`), and again, still answering meanwhile, once the
   * documents our writes changed since grow many (each query tests those one by one).
   */
  let ranges = new RangeValues();
  let rangesWanted = false;
  let rangesReady = false;
  let rangesRead: Promise<void> = Promise.resolve();
  /** Values our writes set while the ranges were being read: set again once they are. */
  let rangesWhileReading: Map<number, RangeEntries> | null = null;
  function readAllRanges(stillRight: boolean): void {
    if (lengthsReader === null || !rangesWanted) return;
    if (!stillRight) rangesReady = false;
    const written = new Map<number, RangeEntries>();
    rangesWhileReading = written;
    const reading = lengthsReader;
    const read: Promise<void> = Promise.all(RANGE_FIELDS.map(async (field) => [field, await reading.ranges(RANGE_COLUMNS_SQL, [field])] as const)).then(
      (columns) => {
        // A later read (another process wrote again, or a clear) supersedes this one.
        if (rangesRead !== read) return;
        const next = RangeValues.fromColumns(new Map(columns));
        for (const [rowid, entries] of written) next.set(rowid, entries);
        rangesWhileReading = null;
        ranges = next;
        rangesReady = true;
      },
      () => {
        // The ranges stay with SQL, or with what was kept; a later write or query reads again.
        if (rangesRead === read) rangesWhileReading = null;
      },
    );
    rangesRead = read;
  }
  /** Our writes kept beside the values read that make the index read them again. */
  const rereadAfter = () => Math.max(16_384, ranges.readCount / 8);
  const setRanges = (rowid: number, entries: RangeEntries) => {
    if (!rangesWanted) return;
    rangesWhileReading?.set(rowid, entries);
    ranges.set(rowid, entries);
    if (rangesReady && rangesWhileReading === null && ranges.writtenCount > rereadAfter()) readAllRanges(true);
  };
  /** The documents with a value at the paths `_exists_` asked about lately. */
  const presence = new PresenceCache();
  const lengthOf = db.prepare('SELECT sz FROM doc_fts_docsize WHERE id = ?').pluck();
  const readLengths = (table: DocLengths, rowids: Iterable<number>) => {
    for (const rowid of rowids) {
      writtenWhileReading?.add(rowid);
      const sz = lengthOf.get(rowid) as Uint8Array | undefined;
      if (sz === undefined) table.delete(rowid);
      else table.set(rowid, documentLength(sz));
    }
  };
  /** The write count the headers reflect; -1 when a write of another process may be missing from them. */
  let seen = -1;
  /** Our writes asked for and not yet answered: the count may already include them. */
  let inFlight = 0;
  /** Reads the headers again when a write we did not make has committed since we last looked. */
  function freshHeaders(): HeaderTable {
    const now = generation();
    const onlyOurs = seen >= 0 && now > seen && now <= seen + inFlight;
    if (now !== seen && !onlyOurs) {
      const next = new HeaderTable();
      for (const row of allRows.iterate() as IterableIterator<HeaderRow>) next.set(row[0], fieldsOf(row));
      headers = next;
      presence.clear();
      seen = now;
      readAllLengths();
      readAllBounds();
      readAllRanges(false);
    }
    return headers;
  }
  freshHeaders();

  /** Runs one of our writes and applies it to the headers, in the order the writes commit. */
  async function write(run: () => Promise<Written>, apply: (table: HeaderTable, rowids: number[]) => void): Promise<void> {
    inFlight++;
    let written: Written;
    try {
      written = await run();
    } finally {
      inFlight--;
    }
    // Already read from the file by a reload that followed the commit.
    if (written.generation <= seen) return;
    apply(headers, written.rowids);
    // A gap means another process wrote in between: reload at the next read.
    seen = written.generation === seen + 1 ? written.generation : -1;
  }

  // Queries whose cost grows with the corpus run off the main thread (see sqlite-reader.ts).
  const reader = filename === ':memory:' ? createInlineReader(db) : createThreadReader(filename);
  lengthsReader = reader;
  readAllLengths();
  const rowids = (sql: string, params: Param[]) => reader.rowids(sql, params);

  /** The same codes from one walk of the R*Tree (a second walk, for the boxes inside, cost as much again). */
  const boxSql = 'SELECT doc_rowid * 2 + (min_x >= ? AND max_x <= ? AND min_y >= ? AND max_y <= ?) FROM doc_box WHERE min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ?';
  function boxesInTree([w, s, e, n]: BBox): Promise<Int32Array> {
    if (w <= e) return rowids(boxSql, [w, e, s, n, e, w, n, s]);
    return rowids(`${boxSql} UNION ALL ${boxSql}`, [w, 180, s, n, 180, w, n, s, -180, e, s, n, e, -180, n, s]);
  }
  const shapesOf = db.prepare('SELECT shapes FROM doc_shape WHERE rowid = ?').pluck();
  const ofParent = db.prepare('SELECT rowid FROM doc WHERE parent_id = ?').pluck();
  const ofOwner = db.prepare('SELECT rowid FROM doc WHERE owner_id = ? AND in_user_listing = 1').pluck();
  const withIds = db.prepare('SELECT rowid FROM doc WHERE id IN (SELECT value FROM json_each(?))').pluck();
  const rowSet = (rows: unknown[]) => Int32Array.from(rows as number[]);

  /**
   * Each box meeting the query box, as its document's rowid times two, plus one when the box
   * lies inside the query box: such a document meets it whatever its shapes. Boxes are stored
   * rounded outward, so a stored box inside the query box means the real one is too. A box
   * across the antimeridian is two boxes. From the bounds in memory once they are read (after
   * any write of another process has been read in), from the R*Tree until then.
   */
  async function boxesMeeting(box: BBox): Promise<Int32Array> {
    freshHeaders();
    if (!boundsWanted) {
      boundsWanted = true;
      readAllBounds();
    }
    if (!boundsReady) return boxesInTree(box);
    const [w, s, e, n] = box;
    const parts: Box[] = w <= e ? [box] : [[w, s, 180, n], [-180, s, e, n]];
    const codes = new Codes();
    const pause = turnWhenDue(timeSlices(nextSearchTurn, SEARCH_TURN_MS));
    for (const part of parts) {
      const steps = bounds.meetingSteps(part, codes);
      while (steps.next().done !== true) await pause();
    }
    return codes.array();
  }

  /** Whether a row's exact shapes meet the box; rows without stored shapes are exactly their boxes. */
  function shapesMeet(rowid: number, box: BBox): boolean {
    const text = shapesOf.get(rowid) as string | undefined;
    if (text === undefined) return true;
    return shapesMeetBox(JSON.parse(text) as Shape[], box);
  }

  /**
   * Rows whose geometry meets the box: the R*Tree's candidates, those with a part inside the box
   * at once, the others (overlapping the box's edge) decided on their exact shapes.
   */
  async function inBox(box: BBox): Promise<Int32Array> {
    // A document with several boxes is listed once per box: ordered, its codes are side by side.
    const codes = (await boxesMeeting(box)).sort();
    const out: number[] = [];
    for (let i = 0; i < codes.length; ) {
      const rowid = (codes[i] as number) >> 1;
      let sure = false;
      for (; i < codes.length && (codes[i] as number) >> 1 === rowid; i++) if (((codes[i] as number) & 1) === 1) sure = true;
      if (sure || shapesMeet(rowid, box)) out.push(rowid);
    }
    return Int32Array.from(out);
  }

  /** Indexed narrowing by the filter's parent, owner or ids: one set each that it names. */
  function filterRows(request: SearchRequest): Int32Array[] {
    const f = request.filter;
    const sets: Int32Array[] = [];
    if (f.parentId !== undefined) sets.push(rowSet(ofParent.all(f.parentId)));
    if (f.userListing) sets.push(rowSet(ofOwner.all(f.userListing.ownerId)));
    if (f.ids !== undefined) sets.push(rowSet(withIds.all(JSON.stringify(f.ids))));
    return sets;
  }

  const matchSql = 'SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?';
  const fieldMatchSql = 'SELECT rowid FROM doc_field WHERE doc_field MATCH ?';
  const bestSql = 'SELECT rowid, bm25(doc_fts, 2.0, 1.0, 0.0) FROM doc_fts WHERE doc_fts MATCH ? ORDER BY 2 LIMIT ?';
  /** Every row scored at least as well as the bound (bm25 is better when lower), best first. */
  const tiesSql = 'SELECT rowid, score FROM (SELECT rowid, bm25(doc_fts, 2.0, 1.0, 0.0) AS score FROM doc_fts WHERE doc_fts MATCH ?) WHERE score <= ? ORDER BY 2';
  // A letter's words, joined in one text (words never hold a space): a row each cost more to hand
  // over than to read, and the vocabulary of a row per word and column holds most words twice
  // (`glacer~`'s slice at 100k documents, 12 358 words: 14.3 ms of a reader thread as rows of
  // that vocabulary, 3.9 joined from this one). Path tokens (`0z...`, in `paths` alone) are in
  // this vocabulary too: the slice of `0` is read from the other, which tells them apart.
  const wordsSql = "SELECT group_concat(term, ' ') FROM (SELECT term FROM doc_words WHERE term >= ? AND term < ? LIMIT ?)";
  // Only words whose length may lie within the fuzzy word's distance of its own (`editDistance`
  // measures UTF-16 units, never fewer than the word's characters nor more than its bytes).
  const fuzzySliceSql = (vocabulary: 'words' | 'text words', order: 'ASC' | 'DESC') =>
    vocabulary === 'words'
      ? `SELECT group_concat(term, ' ') FROM (SELECT term FROM doc_words WHERE term >= ? AND term < ? AND length(term) <= ? AND length(CAST(term AS BLOB)) >= ? ORDER BY term ${order} LIMIT ?)`
      : `SELECT group_concat(term, ' ') FROM (SELECT DISTINCT term FROM doc_vocab WHERE term >= ? AND term < ? AND length(term) <= ? AND length(CAST(term AS BLOB)) >= ? AND col IN ('title', 'text') ORDER BY term ${order} LIMIT ?)`;
  const fuzzySlices = {
    words: [fuzzySliceSql('words', 'DESC'), fuzzySliceSql('words', 'ASC')],
    'text words': [fuzzySliceSql('text words', 'DESC'), fuzzySliceSql('text words', 'ASC')],
  } as const;

  /**
   * By letter, lengths and bound, the lowest word found to come after more than the bound of
   * words: a word after it does too, and its words before are read downwards at once. At a million
   * documents `glacer~` read the 20 001 words of `g` before it upwards (9 ms of a reader thread)
   * only to learn there were more, then downwards (17 ms, SQLite sorting them); at 100k documents,
   * where no slice is over the bound, the upward read is the cheaper one (1 ms against 2).
   */
  const overflowing = new Map<string, string>();
  /**
   * The `most` words of the vocabulary starting with the fuzzy word's letter nearest it in
   * order (one before it, one after, in turn), of those whose length in characters is at most
   * `longest` and in bytes at least `shortest`. Near words share the most letters with it: at a
   * million documents the letter `g` holds 30 677 words, most of them parts of record ids of
   * five characters, and the first 20 000 of them in order stopped before `glacier`, so `glacer~`
   * found 6 documents where 92 411 hold `glacier`. Walking a slice costs SQLite about as much as
   * the documents of its words (`g` at 100k documents: 12 358 words, 3.9 ms of a thread, most of
   * it in `grace` and `glacier`): the words before and after are read on the two reader threads
   * at once, both in the vocabulary's order; only when more than `most` come before the word
   * are they read again from it downwards (which SQLite sorts: at 100k documents, where every
   * slice is under the bound, reading them so each time cost 2-3 ms more of the threads), or
   * downwards at once when `overflowing` knows there are more.
   */
  async function nearestWordsOfVocabulary([downwards, upwards]: readonly [string, string], word: string, [shortest, longest]: [number, number], most: number): Promise<string[]> {
    const letter = String.fromCodePoint(word.codePointAt(0) ?? 0);
    const next = String.fromCodePoint((letter.codePointAt(0) ?? 0) + 1);
    const words = (rows: unknown[][]) => {
      const joined = rows[0]?.[0];
      return typeof joined === 'string' && joined !== '' ? joined.split(' ') : [];
    };
    const slice = `${letter} ${shortest} ${longest} ${most}`;
    const known = overflowing.get(slice);
    // Known to come after more than `most` words: read downwards at once (right whatever the
    // words are now, so the hint is never wrong, at worst slower).
    const down = known !== undefined && word >= known;
    const [before, above] = (
      await Promise.all([
        down ? reader.rows(downwards, [letter, word, longest, shortest, most]) : reader.rows(upwards, [letter, word, longest, shortest, most + 1]),
        reader.rows(upwards, [word, next, longest, shortest, most]),
      ])
    ).map(words) as [string[], string[]];
    let below: string[];
    if (down) below = before;
    else if (before.length <= most) below = before.reverse();
    else {
      if (overflowing.size >= OVERFLOWING_KEPT) overflowing.clear();
      if (known === undefined || word < known) overflowing.set(slice, word);
      below = words(await reader.rows(downwards, [letter, word, longest, shortest, most]));
    }
    const nearest: string[] = [];
    for (let i = 0; nearest.length < most && (i < below.length || i < above.length); i++) {
      if (i < above.length) nearest.push(above[i] as string);
      if (i < below.length && nearest.length < most) nearest.push(below[i] as string);
    }
    return nearest;
  }

  /**
   * `nearestWordsOfVocabulary`'s words, read from the segments' leaves (`fts5NearestWords` in
   * fts5-doclist.ts): the vocabulary counts the documents of every word of the slice, the leaves
   * hold the words alone (`glacer~` at a million documents: about 30 ms of the reader threads for
   * the vocabulary's two reads). How many were read counts against the query's bound; only those
   * that may lie within the word's distance are handed over to be measured (bag-distance.ts). The
   * slice of path tokens keeps the vocabulary of a row per column, which tells them apart from
   * the text's words; leaves that cannot be read (see there) keep it too.
   */
  async function nearestWords(slices: readonly [string, string], word: string, lengths: [number, number], most: number, pathTokens: boolean): Promise<{ read: number; near: string[] }> {
    if (!pathTokens) {
      const letter = String.fromCodePoint(word.codePointAt(0) ?? 0);
      const to = String.fromCodePoint((letter.codePointAt(0) ?? 0) + 1);
      try {
        return await reader.nearestWords('doc_fts', { from: letter, to, word, shortest: lengths[0], longest: lengths[1], most, distance: fuzzyDistance(word) });
      } catch {
        // Read from the vocabulary below.
      }
    }
    const words = await nearestWordsOfVocabulary(slices, word, lengths, most);
    return { read: words.length, near: words };
  }

  /**
   * Each fuzzy word's expansion, from the words of the vocabulary that start with its letter and
   * whose lengths are within its distance of its own (as the PostgreSQL engine reads its
   * vocabulary), those nearest it in order when there are more than the bound. The vocabulary
   * words read are bounded per query; once the bound is spent a word expands to itself.
   */
  async function contextFor(node: QueryNode): Promise<QueryContext> {
    const fuzzy = new Map<string, string[]>();
    let budget = VOCABULARY_WORDS_PER_QUERY;
    for (const word of fuzzyWords(node)) {
      if (fuzzy.has(word)) continue;
      const code = word.codePointAt(0) ?? 0;
      const pathTokens = String.fromCodePoint(code) === PATH_TOKEN_PREFIX[0];
      const slices = fuzzySlices[pathTokens ? 'text words' : 'words'];
      const distance = fuzzyDistance(word);
      const lengths: [number, number] = [word.length - distance, word.length + distance];
      const { read, near } = budget > 0 ? await nearestWords(slices, word, lengths, budget, pathTokens) : { read: 0, near: [] };
      budget -= read;
      fuzzy.set(word, read > 0 ? await expandInSlices(word, near) : [word]);
    }
    const fields = new Map<string, FieldPaths>();
    for (const field of namedFields(node)) {
      if (fields.has(field)) continue;
      let own: number | null = null;
      const below: number[] = [];
      for (const [id, path] of fieldPathsOf.all(field, `${field}.`, `${field}/`) as [number, string][]) {
        if (path === field) own = id;
        else below.push(id);
      }
      fields.set(field, { own, below });
    }
    return { fuzzy, fields };
  }
  /** A field's own path and those below it (`a.b.` up to `a.b/`, the character after the dot). */
  const fieldPathsOf = db.prepare('SELECT id, path FROM doc_field_path WHERE path = ? OR (path >= ? AND path < ?)').raw();

  /**
   * bm25 ranking of the hits, asking SQLite only for the best rows: scoring every match and
   * carrying it into JavaScript cost 15 ms for a term in 10% of 100k documents, the top rows 5.
   * It asks for more rows until the k-th hit's score is strictly better than the last row read,
   * or for every row tying with the last one read, so every row that ties with a hit on the page
   * has been seen. Hits that do not hold any of the
   * ranked terms (an OR with a non-text branch) come after the scored ones, newest first.
   */
  type AsyncRanker = (...args: Parameters<Ranker>) => Promise<ReturnType<Ranker>>;
  /** A first read of the best rows, sent beside the match before the hits are known. */
  interface EarlyRead {
    limit: number;
    pairs: Promise<Float64Array>;
  }
  const earlyLimit = (k: number) => Math.max(64, Math.ceil(k * 1.25) + 16);
  const bm25Ranker =
    (expression: string, matches: number, early: EarlyRead | null): AsyncRanker =>
    async (hits, k, newest) => {
      if (k === 0 || hits.length === 0) return [];
      const isHit = memberOf(hits);
      const wanted = Math.max(64, Math.ceil((k * 1.25 * Math.max(matches, hits.length)) / hits.length) + 16);
      let limit = wanted;
      let first = early;
      // Set once the last row read ties with the k-th hit: the next read takes every row scored
      // at least as well, which holds every tie, and ends the search.
      let tiedAt: number | null = null;
      for (;;) {
        if (first !== null) limit = first.limit;
        const pairs: Float64Array = await (tiedAt !== null ? reader.pairs(tiesSql, [expression, tiedAt]) : (first?.pairs ?? reader.pairs(bestSql, [expression, limit])));
        first = null;
        const read = pairs.length / 2;
        const scored: [number, number][] = [];
        for (let i = 0; i < read; i++) if (isHit(pairs[2 * i] ?? -1)) scored.push([pairs[2 * i] ?? -1, pairs[2 * i + 1] ?? 0]);
        const lastScore: number | undefined = read > 0 ? (pairs[2 * read - 1] ?? 0) : undefined;
        const kth = scored[k - 1];
        const exhausted = read < limit && tiedAt === null;
        if (exhausted || tiedAt !== null || (kth !== undefined && lastScore !== undefined && lastScore > kth[1])) {
          const ordered = scored.sort((a, b) => a[1] - b[1] || newest(a[0], b[0])).map(([rowid]) => rowid);
          if (ordered.length >= k || !exhausted) return ordered.slice(0, k);
          const seen = new Set(ordered);
          const rest = Array.from(hits).filter((rowid) => !seen.has(rowid));
          return [...ordered, ...firstInOrder(rest, k - ordered.length, newest)];
        }
        // A word in most documents scores nearly alike in all of them (its weight is about nil):
        // reading every row to find the ties cost 1.6 s at a million documents, the ties alone
        // a few dozen rows.
        if (kth !== undefined && lastScore !== undefined) tiedAt = lastScore;
        // Too few hits among the rows read (the filter left few): an early read too short is
        // followed by the right one, then every row is read, so no query pays more than twice.
        else limit = limit < wanted ? wanted : limit <= matches ? matches + 1 : limit * 4;
      }
    };

  interface QueryPlan {
    /** Rows the query allows, or null for every row. */
    rows: Int32Array | null;
    /** bm25 of every row, computed here (term-relevance.ts), by rowid; higher is better. */
    scoreOf?: Float64Array;
    /** Orders bestmatch when SQLite can rank. */
    rank: AsyncRanker | null;
    /** Set when only the domain's evaluator can decide the query: it then reads each candidate's body. */
    evaluate: { node: QueryNode; matches: (doc: SearchDocument) => boolean; score: ((doc: SearchDocument) => number) | null } | null;
  }

  /** `ranked`: the hits a bestmatch page needs (page x size), or 0 when the sort is another. */
  async function plan(node: QueryNode, ranked: number, scratch: ScratchArrays): Promise<QueryPlan> {
    if (node.type === 'all') return { rows: null, rank: null, evaluate: null };
    if (node.type === 'exists') return { rows: await present(node, scratch), rank: null, evaluate: null };
    const ctx = await contextFor(node);
    const words = ranked > 0 ? singleWordPhrases(node, ctx) : null;
    if (words !== null) {
      const scored = await scoreWords(words.map((word) => [word]), scratch);
      return { rows: scored.rowids, scoreOf: scored.scoreOf, rank: null, evaluate: null };
    }
    const titled = ranked > 0 ? singleTitleWord(node) : null;
    if (titled !== null) {
      const scored = await scoreWords([[titled]], scratch, TITLE_WEIGHT);
      return { rows: scored.rowids, scoreOf: scored.scoreOf, rank: null, evaluate: null };
    }
    const prefix = ranked > 0 ? singlePrefix(node) : null;
    const started = prefix === null ? null : await wordsStartingWith(prefix);
    if (started !== null && started.length > 0) {
      const scored = await scoreWords([started], scratch);
      return { rows: scored.rowids, scoreOf: scored.scoreOf, rank: null, evaluate: null };
    }
    const phrases = ranked > 0 ? textPhrases(node) : null;
    const matched = phrases === null ? null : await scorePhrases(phrases, scratch);
    if (matched !== null) return { rows: matched.rowids, scoreOf: matched.scoreOf, rank: null, evaluate: null };
    const expression = ftsExpression(node, ctx);
    if (expression !== null) {
      // Without words to score (only `_exists_`), every score ties: sorted as newest instead.
      const scored = rankText(node, ctx).length > 0;
      const early = scored && ranked > 0 ? { limit: earlyLimit(ranked), pairs: reader.pairs(bestSql, [expression, earlyLimit(ranked)]) } : null;
      // Awaited by the ranker, or never when the match fails or no hit is left to rank.
      early?.pairs.catch(() => undefined);
      const rows = await rowids(matchSql, [expression]);
      return { rows, rank: scored ? bm25Ranker(expression, rows.length, early) : null, evaluate: null };
    }
    // Field queries alone: one match in `doc_field`, ranked by bm25 of their words in the text,
    // computed from the word's occurrences as for the word alone when it is one word or prefix
    // (`metadata.description:the`, in every document: 102 ms a call ranked by FTS5's bm25()).
    const fielded = fieldExpression(node, ctx);
    if (fielded !== null) {
      // An AND of words and phrases, each on one path, is decoded from `doc_field`'s segments
      // (`metadata.description:the`: its million rowids handed from SQL to JavaScript were most of
      // 207 ms at 1M); FTS5 matches anything else, and anything those cannot be decoded from.
      const tokens = fieldPhrases(node, ctx);
      const matched = tokens === null ? rowids(fieldMatchSql, [fielded]) : reader.fieldRows('doc_field', tokens).catch(() => rowids(fieldMatchSql, [fielded]));
      // Awaited below, or never when the scoring fails first.
      matched.catch(() => undefined);
      const text = unfielded(node);
      const words = ranked > 0 ? singleWordPhrases(text, ctx) : null;
      const prefix = ranked > 0 && words === null ? singlePrefix(text) : null;
      const started = prefix === null ? null : await wordsStartingWith(prefix);
      const phrases = words !== null ? words.map((word) => [word]) : started !== null && started.length > 0 ? [started] : null;
      if (phrases !== null) {
        // A hit without the words in the text columns (none, unless FTS5 splits a word otherwise than `tokenize`) scores 0.
        const scored = await scoreWords(phrases, scratch);
        return { rows: await matched, scoreOf: scored.scoreOf, rank: null, evaluate: null };
      }
      // Phrases and several words are scored from their occurrences too, as when asked alone
      // (`metadata.description:"sea ice"`: FTS5's `bm25()` read every row holding the phrase).
      const textual = ranked > 0 ? textPhrases(text) : null;
      const scoredPhrases = textual === null ? null : await scorePhrases(textual, scratch);
      if (scoredPhrases !== null) return { rows: await matched, scoreOf: scoredPhrases.scoreOf, rank: null, evaluate: null };
      const rows = await matched;
      const rank = rankText(text, ctx);
      return { rows, rank: rank.length > 0 ? bm25Ranker(rank.map((r) => `(${r})`).join(' OR '), rows.length, null) : null, evaluate: null };
    }
    const sql = querySql(node, ctx);
    if (sql !== null) {
      const leaves = rankedLeaves(unfielded(node), ctx);
      const rank = rankText(unfielded(node), ctx);
      const rankable = ranked > 0 && rank.length > 0 && textPrefilter(node, ctx) !== null;
      // One plain word ranks the hits from its occurrences, as when it is asked alone.
      const [leaf] = leaves;
      const words = rankable && leaf !== undefined && leaves.length === 1 ? singleWordPhrases(leaf, ctx) : null;
      const scored = words === null ? null : scoreWords(words.map((word) => [word]), scratch);
      // Awaited below, or never when the match fails first.
      scored?.catch(() => undefined);
      // The word's documents are those of its occurrences: FTS5 need not be asked for them again.
      const known = scored === null || leaf === undefined ? null : { text: matchText(leaf, ctx), rows: scored.then((s) => s.rowids) };
      const rows = (await rowsFromMemory(node, ctx, known)) ?? (await rowids(`SELECT doc.rowid FROM doc WHERE ${sql.where}`, sql.params));
      if (scored !== null) return { rows, scoreOf: (await scored).scoreOf, rank: null, evaluate: null };
      return { rows, rank: rankable ? bm25Ranker(rank.map((r) => `(${r})`).join(' OR '), rows.length, null) : null, evaluate: null };
    }
    const pre: Sql | null = textPrefilter(node, ctx);
    return {
      rows: pre === null ? null : await rowids(`SELECT doc.rowid FROM doc WHERE ${pre.where}`, pre.params),
      rank: null,
      evaluate: { node, matches: (doc) => matchesQuery(node, doc), score: positiveTerms(node).length > 0 ? (doc) => scoreQuery(node, doc) : null },
    };
  }

  const highestRow = db.prepare('SELECT max(rowid) FROM doc').pluck();
  /** `known`: the rows of one text leaf, read already. */
  const rowSources = (known: { text: string | null; rows: Promise<Int32Array> } | null): RowSources => {
    const pause = turnWhenDue(timeSlices(nextSearchTurn, SEARCH_TURN_MS));
    return {
      // A leaf alone in its group is the group's expression, in parentheses.
      text: (expression) => (known !== null && known.text !== null && (expression === known.text || expression === `(${known.text})`) ? known.rows : rowids(matchSql, [expression])),
      fields: (expression) => rowids(fieldMatchSql, [expression]),
      range: (node, outsideUpTo) => ranges.rows(node, outsideUpTo ?? null, pause),
      rangeMarks: (node) => ranges.marks(node, pause),
      highest: () => (highestRow.get() as number | null) ?? 0,
      pause,
    };
  };
  /**
   * The rows of a query with ranges, from the range values in memory (query-rows.ts), or null:
   * no range, or the values not read yet (the first range asked starts reading them).
   */
  async function rowsFromMemory(node: QueryNode, ctx: QueryContext, known: { text: string | null; rows: Promise<Int32Array> } | null): Promise<Int32Array | null> {
    if (!hasRange(node)) return null;
    // A write of another process makes them read again (and is read here, not after the match).
    freshHeaders();
    if (!rangesWanted) {
      rangesWanted = true;
      readAllRanges(false);
    }
    return rangesReady ? queryRows(node, ctx, rowSources(known)) : null;
  }

  /** The rows with a value at the path, kept for the next query about the same path. */
  async function present(node: Extract<QueryNode, { type: 'exists' }>, scratch: ScratchArrays): Promise<Int32Array> {
    // A write of another process drops what is kept (and is read here, not after the match).
    freshHeaders();
    const token = pathToken(node.field);
    const kept = presence.rows(token, (length) => scratch.rows(length));
    if (kept !== null) return kept;
    const mark = presence.mark();
    const rows = await rowids(matchSql, [matchText(node, { fuzzy: new Map() }) ?? '']);
    presence.keep(token, rows, mark);
    return rows;
  }

  const averages = db.prepare('SELECT block FROM doc_fts_data WHERE id = 1').pluck();
  const ln = db.prepare('SELECT ln(?)').pluck();

  /**
   * The indexed words starting with `prefix` (in the vocabulary of a row per word), or null when
   * there are more than `PREFIX_WORDS`: FTS5's `bm25()` then ranks the prefix.
   */
  async function wordsStartingWith(prefix: string): Promise<string[] | null> {
    const after = `${prefix.slice(0, -1)}${String.fromCodePoint((prefix.codePointAt(prefix.length - 1) ?? 0) + 1)}`;
    const joined = (await reader.rows(wordsSql, [prefix, after, PREFIX_WORDS + 1]))[0]?.[0];
    const words = typeof joined === 'string' && joined !== '' ? joined.split(' ') : [];
    return words.length > PREFIX_WORDS ? null : words;
  }

  /**
   * The match of the phrases' OR and bm25 of each of its rows, from the phrases' occurrences:
   * what FTS5 gives for `{title text} : ("w1" OR "w2" ...)`, without its bm25 reading every row;
   * with `onlyWeight`, the same for the occurrences of that column's weight alone (the title's,
   * 2: `title : "w"`).
   * A phrase is one word, or the words a prefix starts (FTS5 counts each of their occurrences
   * as one of the prefix's), whose occurrences are taken together.
   */
  async function scoreWords(phrases: readonly (readonly string[])[], scratch: ScratchArrays, onlyWeight: 1 | 2 | null = null) {
    const read = await Promise.all(phrases.flat().map((word) => reader.occurrences('doc_fts', word, OCCURRENCES_SQL)));
    // The title's occurrences are those weighted as the title (`title : "w"` counts no others).
    const kept = onlyWeight === null ? read : read.map((list) => weightedAs(list, onlyWeight));
    let at = 0;
    const occurrences = phrases.map((phrase) => {
      const lists = kept.slice(at, (at += phrase.length));
      if (lists.length === 1) return lists[0] as Int32Array;
      const joined = new Int32Array(lists.reduce((sum, list) => sum + list.length, 0));
      let n = 0;
      for (const list of lists) {
        joined.set(list, n);
        n += list.length;
      }
      return joined;
    });
    const scored = await scoreInTurns((idf, lengthOf, avgdl) => relevanceSteps(occurrences, idf, lengthOf, avgdl, scratch));
    // The scores hold all that is needed of the occurrences from here on.
    for (const list of read) reader.recycle(list);
    return scored;
  }

  /**
   * The match of an AND of phrases in the text columns and bm25 of each of its rows, from the
   * phrases' occurrences decoded by a reader thread (`fts5Phrases`); null when they cannot be
   * decoded, and FTS5's `bm25()` ranks the query instead.
   */
  async function scorePhrases(phrases: readonly (readonly string[])[], scratch: ScratchArrays): Promise<Relevance | null> {
    let packed: Int32Array;
    try {
      packed = await reader.phrases('doc_fts', phrases);
    } catch {
      return null;
    }
    const of = unpackPhrases(packed);
    const scored = await scoreInTurns((idf, lengthOf, avgdl) => phrasesRelevanceSteps(of, idf, lengthOf, avgdl, scratch));
    reader.recycle(packed);
    return scored;
  }

  /**
   * Runs a scoring over the table's totals and the documents' lengths, giving the loop back
   * between its steps.
   */
  async function scoreInTurns(steps: (idf: (hits: number) => number, lengthOf: Int32Array, avgdl: number) => Steps<Relevance>): Promise<Relevance> {
    // A write of another process is seen here, so its lengths are read before they are used.
    freshHeaders();
    await lengthsRead;
    const block = averages.get() as Uint8Array | undefined;
    const totals = block === undefined ? { rows: 0, tokens: 0 } : tableTotals(block);
    const idf = (hits: number) => inverseDocumentFrequency(totals.rows, hits, (x) => ln.get(x) as number);
    const scoring = steps(idf, lengths.array(), totals.tokens / totals.rows);
    const pause = turnWhenDue(timeSlices(nextSearchTurn, SEARCH_TURN_MS));
    for (;;) {
      const next = scoring.next();
      if (next.done === true) return next.value;
      await pause();
    }
  }

  const loadBodies = db.prepare('SELECT rowid, doc FROM doc_body WHERE rowid IN (SELECT value FROM json_each(?))').raw();
  /** Bodies read by one statement when only the evaluator can decide a query. */
  const BODY_BATCH = 32;

  const scratchPool = new ScratchPool();
  async function search(request: SearchRequest): Promise<SearchResult> {
    const scratch = scratchPool.take();
    try {
      return await searchWith(request, scratch);
    } finally {
      scratchPool.give(scratch);
    }
  }

  async function searchWith(request: SearchRequest, scratch: ScratchArrays): Promise<SearchResult> {
    const query = await plan(parseQuery(request.q ?? ''), request.sort === 'bestmatch' ? request.page * request.size : 0, scratch);
    const sets = filterRows(request);
    if (query.rows !== null) sets.push(query.rows);
    if (request.bbox !== null) sets.push(await inBox(request.bbox));
    const pause = turnWhenDue(timeSlices(nextSearchTurn, SEARCH_TURN_MS));
    // Counted in a byte per rowid: typed arrays all the way, since a list may hold every document.
    const rows = sets.length === 0 ? null : await intersectRows(sets, pause);
    // Read after the waits above: what was committed meanwhile is in the headers too.
    const table = freshHeaders();
    // The box was decided by the R*Tree above, so neither path below looks at bounds.
    if (query.evaluate === null) {
      const selection = await table.inTurns(() => table.selectSteps(rows, request, scratch.hits(rows?.length ?? table.size)), pause);
      const k = request.page * request.size;
      const { scoreOf } = query;
      const newest = table.newest();
      const ranked =
        request.sort !== 'bestmatch'
          ? null
          : scoreOf !== undefined
            ? await table.inTurns(() => firstByColumnSteps(selection.hits, k, scoreOf, true, (a, b) => (scoreOf[b] ?? 0) - (scoreOf[a] ?? 0) || newest(a, b)), pause)
            : query.rank !== null
              ? await query.rank(selection.hits, k, newest)
              : null;
      return endOfSearch(await table.inTurns(() => table.pageSteps(selection, request, ranked), pause));
    }
    const { node, matches, score } = query.evaluate;
    // Bodies are read only for documents the caller may list at all, a small batch per statement
    // (one statement per body cost 25 us each in its read transaction alone; 256 per statement
    // made each step of the slices below 15-20 ms), and decided one document at a time, so the
    // slice ends after its time whatever a document costs: decided a batch of 32 at a time, a
    // field query over 100k documents held the loop for up to 84 ms (p99 16 ms), one at a time
    // 30 ms (p99 4 ms; the longest were garbage collections).
    const candidates = rows ?? Int32Array.from(table.rowids());
    /** The listable documents with their bodies' text; null after a batch with none, so a slice may end there too. */
    const documents = function* (): Generator<[SearchDocument, number, string] | null> {
      for (let i = 0; i < candidates.length; i += BODY_BATCH) {
        const listable = new Map<number, SearchDocument>();
        for (const rowid of candidates.subarray(i, i + BODY_BATCH)) {
          const header = table.document(rowid);
          if (header !== null && passesFilter(header, request.filter)) listable.set(rowid, header);
        }
        if (listable.size === 0) {
          yield null;
          continue;
        }
        for (const [rowid, text] of loadBodies.all(JSON.stringify([...listable.keys()])) as [number, string][]) {
          const header = listable.get(rowid);
          if (header !== undefined) yield [header, rowid, text];
        }
      }
    };
    const decided = await evaluateLargeApart(
      documents(),
      (item) => item !== null && item[2].length > LARGE_CANDIDATE_CHARS,
      (item): [number, number] | null => {
        if (item === null) return null;
        const [header, rowid, text] = item;
        const full = { ...header, body: (JSON.parse(text) as SearchDocument).body };
        return matches(full) ? [rowid, score === null ? 0 : score(full)] : null;
      },
      async (item): Promise<[number, number] | null> => {
        if (item === null) return null;
        const { decision } = await decideLargeText(node, item[2]);
        return decision.matches ? [item[1], score === null ? 0 : decision.score] : null;
      },
    );
    // The rest runs over the header columns, as for queries SQLite decides alone, in typed
    // arrays: a hundred thousand matches through a Map and the generic ranking held the loop
    // for over 100 ms.
    const hits = new Int32Array(decided.length);
    const scoreOf = new Float64Array(candidates.reduce((max, rowid) => Math.max(max, rowid), 0) + 1);
    decided.forEach(([rowid, s], i) => {
      hits[i] = rowid;
      scoreOf[rowid] = s;
    });
    await nextSearchTurn();
    const selection = await table.inTurns(() => table.selectSteps(hits, request), pause);
    const newest = table.newest();
    const ranked =
      request.sort === 'bestmatch' && score !== null
        ? await table.inTurns(
            () => firstByColumnSteps(selection.hits, request.page * request.size, scoreOf, true, (a, b) => (scoreOf[b] ?? 0) - (scoreOf[a] ?? 0) || newest(a, b)),
            pause,
          )
        : null;
    return endOfSearch(await table.inTurns(() => table.pageSteps(selection, request, ranked), pause));
  }

  /**
   * The answer, after a turn of the loop: the page's records are then read and encoded (by the
   * caller, on the main thread) in a slice of their own, not at the end of the search's last one.
   */
  async function endOfSearch(result: SearchResult): Promise<SearchResult> {
    await nextSearchTurn();
    return result;
  }

  /**
   * Each operation reaches the writer in the order it was asked: an upsert still preparing its
   * documents (in turns) holds back a remove or an upsert of the same key asked after it, which
   * would otherwise overtake it and leave the older version in the index. Preparing goes on
   * meanwhile; only the hand-over waits.
   */
  let handedOver: Promise<unknown> = Promise.resolve();
  function inOrder<P, T>(prepared: Promise<P>, send: (p: P) => Promise<T>): Promise<T> {
    // Rejected before its turn, a preparation is still answered to its caller, through `handed`.
    prepared.catch(() => undefined);
    const handed = handedOver.then(() => prepared).then((p) => ({ sent: send(p) }));
    handedOver = handed.catch(() => undefined);
    return handed.then(({ sent }) => sent);
  }
  const already = <P>(p: P) => Promise.resolve(p);

  async function prepareAll(docs: readonly SearchDocument[]): Promise<PreparedDoc[]> {
    // The caller's work so far (reading and building the documents) ends its turn here.
    await nextTurn();
    // Only a large document takes turns here, in the queue of long work (domain nextIteration).
    const takeTurn = turnWhenDue(largeValueSlices());
    const prepared: PreparedDoc[] = [];
    for (const doc of docs) {
      prepared.push(await prepareDoc(doc, takeTurn));
      await takeTurn();
    }
    return prepared;
  }

  return {
    upsert: (docs) =>
      inOrder(prepareAll(docs), (prepared) =>
        write(
          () => writer.upsert(prepared),
          (table, rowids) => {
            rowids.forEach((rowid, i) => {
              table.set(rowid, docs[i] as SearchDocument);
              presence.set(rowid, prepared[i]?.paths ?? '');
              setBoxes(rowid, prepared[i]?.boxes ?? []);
              setRanges(rowid, prepared[i]?.ranges ?? []);
            });
            readLengths(lengths, rowids);
          },
        ),
      ),
    remove: (keys) =>
      inOrder(already(keys), (ready) =>
        write(
          () => writer.remove(ready),
          (table, rowids) => {
            rowids.forEach((rowid) => table.delete(rowid));
            rowids.forEach((rowid) => presence.delete(rowid));
            rowids.forEach((rowid) => setBoxes(rowid, []));
            rowids.forEach((rowid) => setRanges(rowid, []));
            readLengths(lengths, rowids);
          },
        ),
      ),
    // Asked after a write, it sees that write.
    keysOfParent: (parentId) => inOrder(already(parentId), (ready) => writer.keysOfParent(ready)),
    search,
    clear: () =>
      inOrder(already(null), () =>
        write(
          () => writer.clear(),
          (table) => {
            table.clear();
            lengths.clear();
            presence.clear();
            bounds.clear();
            ranges = new RangeValues();
            // A read of every length, box or range value under way may have begun before the clear.
            readAllLengths();
            readAllBounds();
            readAllRanges(true);
          },
        ),
      ),
    async check() {
      // A query may be answered from SQLite's page cache, so the file itself is looked at too:
      // an index file replaced or overwritten under the running process shows in its header.
      if (filename !== ':memory:' && filename !== '') {
        const handle = await open(filename, 'r');
        try {
          const header = new Uint8Array(16);
          await handle.read(header, 0, 16, 0);
          if (new TextDecoder().decode(header) !== 'SQLite format 3\0') throw new Error(`${filename} is not an SQLite database`);
        } finally {
          await handle.close();
        }
      }
      anyRow.get();
    },
    size: () => freshHeaders().size,
    settled: async () => {
      await Promise.allSettled([lengthsRead, boundsRead, rangesRead]);
    },
    stamp() {
      // Another process's write is read in first, as a search would; while one of ours is on its
      // way the headers may not hold it yet, though the count in the file already does.
      freshHeaders();
      return inFlight > 0 || seen < 0 ? null : String(seen);
    },
    close: async () => {
      const ended = Promise.all([reader.close(), writer.close()]);
      db.close();
      await ended;
    },
  };
}
