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
 * The headers are a cache of the `doc` table: loaded at open, updated after each of our commits,
 * and reloaded whole when another connection (`krs reindex`) has written the file.
 */
import { open } from 'node:fs/promises';
import Database from 'better-sqlite3';
import {
  firstInOrder,
  flatten,
  HeaderTable,
  matchesQuery,
  parseQuery,
  passesFilter,
  positiveTerms,
  runSearch,
  scoreQuery,
  type HeaderFields,
  type QueryNode,
  type Ranker,
} from '@krs/domain/search';
import type { BBox, SearchDocument, SearchIndex, SearchRequest, SearchResult } from '@krs/domain';
import { ftsExpression, querySql, rankText, textPrefilter, type Param, type Sql } from './fts-query.ts';

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
CREATE VIRTUAL TABLE IF NOT EXISTS doc_fts USING fts5(title, text, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS doc_box USING rtree(id, min_x, max_x, min_y, max_y, +doc_rowid INTEGER);
`;

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

/** The smallest set first, then keep what the others hold too. */
function intersect(sets: Set<number>[]): Set<number> {
  const [first, ...rest] = [...sets].sort((a, b) => a.size - b.size);
  if (first === undefined) return new Set();
  const out = new Set<number>();
  for (const x of first) if (rest.every((s) => s.has(x))) out.add(x);
  return out;
}

export interface SqliteSearchIndex extends SearchIndex {
  size(): number;
  close(): void;
}

/** `filename` may be ':memory:'. The file is a projection: deleting it only costs a rebuild. */
export function createSqliteSearchIndex(filename: string): SqliteSearchIndex {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  // WAL with NORMAL cannot corrupt on a crash, only lose the last writes, which the start-up
  // catch-up from the database restores; waiting for the disk on every write buys nothing.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const rowOf = db.prepare<[string], { rowid: number }>('SELECT rowid FROM doc WHERE key = ?');
  const deleteDoc = db.prepare('DELETE FROM doc WHERE rowid = ?');
  const deleteFts = db.prepare('DELETE FROM doc_fts WHERE rowid = ?');
  const deleteBoxes = db.prepare('DELETE FROM doc_box WHERE doc_rowid = ?');
  const deleteBody = db.prepare('DELETE FROM doc_body WHERE rowid = ?');
  // A document keeps its rowid across updates, so the header cache stays dense.
  const insertDoc = db.prepare(`INSERT INTO doc (rowid, key, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing,
    is_user_latest, is_public, readers, created, updated, resource_type, resource_type_label, access_status)
    VALUES (@rowid, @key, @id, @kind, @state, @parentId, @ownerId, @versionIndex, @isLatest, @inUserListing, @isUserLatest, @isPublic,
    @readers, @created, @updated, @resourceType, @resourceTypeLabel, @accessStatus)`);
  const insertBody = db.prepare('INSERT INTO doc_body (rowid, doc) VALUES (?, ?)');
  const insertFts = db.prepare('INSERT INTO doc_fts (rowid, title, text) VALUES (?, ?, ?)');
  const insertBox = db.prepare('INSERT INTO doc_box (min_x, max_x, min_y, max_y, doc_rowid) VALUES (?, ?, ?, ?, ?)');
  const allRows = db.prepare(`SELECT ${HEADER_COLUMNS} FROM doc`).raw();
  const anyRow = db.prepare('SELECT rowid FROM doc LIMIT 1');
  const dataVersion = () => db.pragma('data_version', { simple: true }) as number;

  let headers = new HeaderTable();
  let seenVersion = -1;
  /** Another connection committed since we last looked: our cache may be stale, so read it again. */
  function freshHeaders(): HeaderTable {
    const version = dataVersion();
    if (version !== seenVersion) {
      const next = new HeaderTable();
      for (const row of allRows.iterate() as IterableIterator<HeaderRow>) next.set(row[0], fieldsOf(row));
      headers = next;
      seenVersion = version;
    }
    return headers;
  }
  freshHeaders();

  const removeKey = (key: string): number | null => {
    const row = rowOf.get(key);
    if (!row) return null;
    deleteFts.run(row.rowid);
    deleteBoxes.run(row.rowid);
    deleteBody.run(row.rowid);
    deleteDoc.run(row.rowid);
    return row.rowid;
  };

  const upsertMany = db.transaction((docs: readonly SearchDocument[]) => {
    const written: [number, SearchDocument][] = [];
    for (const doc of docs) {
      const previous = removeKey(doc.key);
      const flat = flatten(doc.body);
      const info = insertDoc.run({
        rowid: previous,
        key: doc.key,
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
      });
      const rowid = Number(info.lastInsertRowid);
      insertBody.run(rowid, JSON.stringify(doc));
      insertFts.run(rowid, (flat.get('metadata.title') ?? []).join(' '), [...flat.values()].flat().join(' '));
      for (const [w, s, e, n] of doc.bounds) insertBox.run(w, e, s, n, rowid);
      written.push([rowid, doc]);
    }
    return written;
  });
  const removeMany = db.transaction((keys: readonly string[]) => keys.map(removeKey).filter((r): r is number => r !== null));

  /** For SQL built from the query, whose text varies with its shape. */
  const rowids = (sql: string, params: Param[]) => new Set(db.prepare(sql).pluck().all(...params) as number[]);

  const boxSql = 'SELECT doc_rowid FROM doc_box WHERE min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ?';
  const inOneBox = db.prepare(boxSql).pluck();
  const inTwoBoxes = db.prepare(`${boxSql} UNION ${boxSql}`).pluck();
  const keysOf = db.prepare('SELECT key FROM doc WHERE parent_id = ?').pluck();
  const ofParent = db.prepare('SELECT rowid FROM doc WHERE parent_id = ?').pluck();
  const ofOwner = db.prepare('SELECT rowid FROM doc WHERE owner_id = ? AND in_user_listing = 1').pluck();
  const withIds = db.prepare('SELECT rowid FROM doc WHERE id IN (SELECT value FROM json_each(?))').pluck();
  const rowSet = (rows: unknown[]) => new Set(rows as number[]);

  /** Rows the R*Tree says meet the box; a box across the antimeridian is two boxes. */
  function inBox(box: BBox): Set<number> {
    const [w, s, e, n] = box;
    if (w <= e) return rowSet(inOneBox.all(e, w, n, s));
    return rowSet(inTwoBoxes.all(180, w, n, s, e, -180, n, s));
  }

  /** Indexed narrowing by the filter's parent, owner or ids: one set each that it names. */
  function filterRows(request: SearchRequest): Set<number>[] {
    const f = request.filter;
    const sets: Set<number>[] = [];
    if (f.parentId !== undefined) sets.push(rowSet(ofParent.all(f.parentId)));
    if (f.userListing) sets.push(rowSet(ofOwner.all(f.userListing.ownerId)));
    if (f.ids !== undefined) sets.push(rowSet(withIds.all(JSON.stringify(f.ids))));
    return sets;
  }

  const matchRows = db.prepare('SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?').pluck();
  const bestRows = db.prepare('SELECT rowid, bm25(doc_fts, 2.0, 1.0) FROM doc_fts WHERE doc_fts MATCH ? ORDER BY 2 LIMIT ?').raw();

  /**
   * bm25 ranking of the hits, asking SQLite only for the best rows: scoring every match and
   * carrying it into JavaScript cost 15 ms for a term in 10% of 100k documents, the top rows 5.
   * It asks for more rows until the k-th hit's score is strictly better than the last row read,
   * so every row that ties with a hit on the page has been seen. Hits that do not hold any of the
   * ranked terms (an OR with a non-text branch) come after the scored ones, newest first.
   */
  const bm25Ranker =
    (expression: string, matches: number): Ranker =>
    (hits, k, newest) => {
      if (k === 0 || hits.length === 0) return [];
      const isHit = new Set(hits);
      let limit = Math.max(64, Math.ceil((k * 1.25 * Math.max(matches, hits.length)) / hits.length) + 16);
      for (;;) {
        const rows = bestRows.all(expression, limit) as [number, number][];
        const scored = rows.filter(([rowid]) => isHit.has(rowid));
        const last = rows[rows.length - 1];
        const kth = scored[k - 1];
        const exhausted = rows.length < limit;
        if (exhausted || (kth !== undefined && last !== undefined && last[1] > kth[1])) {
          const ordered = scored.sort((a, b) => a[1] - b[1] || newest(a[0], b[0])).map(([rowid]) => rowid);
          if (ordered.length >= k || !exhausted) return ordered.slice(0, k);
          const seen = new Set(ordered);
          const rest = Array.from(hits).filter((rowid) => !seen.has(rowid));
          return [...ordered, ...firstInOrder(rest, k - ordered.length, newest)];
        }
        limit *= 4;
      }
    };

  interface QueryPlan {
    /** Rows the query allows, or null for every row. */
    rows: Set<number> | null;
    /** Orders bestmatch when SQLite can rank. */
    rank: Ranker | null;
    /** Set when only the domain's evaluator can decide the query: it then reads each candidate's body. */
    evaluate: { matches: (doc: SearchDocument) => boolean; score: ((doc: SearchDocument) => number) | null } | null;
  }

  function plan(node: QueryNode): QueryPlan {
    if (node.type === 'all') return { rows: null, rank: null, evaluate: null };
    const expression = ftsExpression(node);
    if (expression !== null) {
      const rows = new Set(matchRows.all(expression) as number[]);
      return { rows, rank: bm25Ranker(expression, rows.size), evaluate: null };
    }
    const sql = querySql(node);
    if (sql !== null) {
      const rows = rowids(`SELECT doc.rowid FROM doc WHERE ${sql.where}`, sql.params);
      const rank = rankText(node);
      const rankable = rank.length > 0 && textPrefilter(node) !== null;
      return { rows, rank: rankable ? bm25Ranker(rank.map((r) => `(${r})`).join(' OR '), rows.size) : null, evaluate: null };
    }
    const pre: Sql | null = textPrefilter(node);
    return {
      rows: pre === null ? null : rowids(`SELECT doc.rowid FROM doc WHERE ${pre.where}`, pre.params),
      rank: null,
      evaluate: { matches: (doc) => matchesQuery(node, doc), score: positiveTerms(node).length > 0 ? (doc) => scoreQuery(node, doc) : null },
    };
  }

  function search(request: SearchRequest): SearchResult {
    const table = freshHeaders();
    const query = plan(parseQuery(request.q ?? ''));
    const sets = filterRows(request);
    if (query.rows !== null) sets.push(query.rows);
    if (request.bbox !== null) sets.push(inBox(request.bbox));
    const rows = sets.length === 0 ? null : intersect(sets);
    // The box was decided by the R*Tree above, so neither path below looks at bounds.
    if (query.evaluate === null) return table.search(rows, request, query.rank);
    const loadBody = db.prepare('SELECT doc FROM doc_body WHERE rowid = ?').pluck();
    const candidates: SearchDocument[] = [];
    for (const rowid of rows ?? table.rowids()) {
      const header = table.document(rowid);
      // Bodies are parsed only for documents the caller may list at all.
      if (header === null || !passesFilter(header, request.filter)) continue;
      const text = loadBody.get(rowid) as string | undefined;
      if (text !== undefined) candidates.push({ ...header, body: (JSON.parse(text) as SearchDocument).body });
    }
    return runSearch(candidates, { ...request, bbox: null }, query.evaluate.matches, query.evaluate.score);
  }

  return {
    async upsert(docs) {
      const written = upsertMany(docs);
      const table = freshHeaders();
      for (const [rowid, doc] of written) table.set(rowid, doc);
    },
    async remove(keys) {
      const removed = removeMany(keys);
      const table = freshHeaders();
      for (const rowid of removed) table.delete(rowid);
    },
    async keysOfParent(parentId) {
      return keysOf.all(parentId) as string[];
    },
    async search(request) {
      return search(request);
    },
    async clear() {
      db.exec('DELETE FROM doc; DELETE FROM doc_body; DELETE FROM doc_fts; DELETE FROM doc_box;');
      headers.clear();
    },
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
    close: () => db.close(),
  };
}
