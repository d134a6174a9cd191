/**
 * SearchIndex on SQLite FTS5 with an R*Tree for geometry boxes, in its own database file.
 * Listings and free-text queries (terms, phrases, prefixes, AND/OR/NOT, `metadata.title:`) run
 * wholly in SQL with exact totals and facet counts. Queries that need the document itself
 * (other fields, `_exists_`, ranges, fuzzy) narrow candidates in SQL and finish with the
 * domain's evaluator, so both engines answer the same contract.
 */
import Database from 'better-sqlite3';
import { facetLabel, flatten, matchesQuery, parseQuery, positiveTerms, runSearch, scoreQuery, sortBuckets, tokenize, type QueryNode } from '@krs/domain/search';
import type { BBox, FacetBucket, FacetName, SearchDocument, SearchFilter, SearchIndex, SearchRequest, SearchResult } from '@krs/domain';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS doc (
  rowid INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, parent_id TEXT NOT NULL, owner_id TEXT NOT NULL,
  version_index INTEGER NOT NULL, is_latest INTEGER NOT NULL, in_user_listing INTEGER NOT NULL, is_user_latest INTEGER NOT NULL,
  is_public INTEGER NOT NULL, readers TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL,
  resource_type TEXT, resource_type_label TEXT, access_status TEXT NOT NULL
);
-- Kept apart so counts, facets and sorts scan small rows.
CREATE TABLE IF NOT EXISTS doc_body (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS doc_parent ON doc(parent_id);
CREATE INDEX IF NOT EXISTS doc_listing ON doc(state, is_latest, created);
-- Covers the grouped total/facet scan of public listings without touching the table.
CREATE INDEX IF NOT EXISTS doc_facets ON doc(state, is_latest, is_public, kind, resource_type, access_status, resource_type_label);
CREATE INDEX IF NOT EXISTS doc_owner ON doc(owner_id, in_user_listing, updated);
CREATE VIRTUAL TABLE IF NOT EXISTS doc_fts USING fts5(title, text, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS doc_box USING rtree(id, min_x, max_x, min_y, max_y, +doc_rowid INTEGER);
`;

type Param = string | number;
interface Sql {
  where: string;
  params: Param[];
}

const quote = (token: string) => `"${token.replace(/"/g, '""')}"`;

/** FTS5 MATCH text for one leaf, or null when the leaf needs the document (handled in JS). */
function matchText(node: QueryNode): string | null {
  if (node.type !== 'term' && node.type !== 'phrase') return null;
  const column = node.field === null ? '' : node.field === 'metadata.title' ? 'title : ' : null;
  if (column === null) return null;
  const words = tokenize(node.value);
  if (words.length === 0) return null;
  if (node.type === 'phrase') return `${column}${quote(words.join(' '))}`;
  if (node.match === 'fuzzy') return null;
  const last = words.length - 1;
  const parts = words.map((w, i) => (node.match === 'prefix' && i === last ? `${quote(w)} *` : quote(w)));
  return parts.length === 1 ? `${column}${parts[0]}` : `${column}(${parts.join(' AND ')})`;
}

/** The query as SQL over `doc`, or null if any leaf needs the evaluator. */
function querySql(node: QueryNode): Sql | null {
  switch (node.type) {
    case 'all':
      return { where: '1', params: [] };
    case 'term':
    case 'phrase': {
      const m = matchText(node);
      return m === null ? null : { where: 'doc.rowid IN (SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?)', params: [m] };
    }
    case 'and':
    case 'or': {
      // Sibling free-text leaves become one MATCH expression: FTS5 intersects or unites them
      // itself, far faster than one subquery per term.
      const op = node.type === 'and' ? ' AND ' : ' OR ';
      const texts = node.children.map(matchText);
      const merged = texts.filter((t): t is string => t !== null);
      const rest = node.children.filter((_, i) => texts[i] === null).map(querySql);
      if (rest.some((p) => p === null)) return null;
      const parts = rest as Sql[];
      if (merged.length > 0) {
        parts.unshift({ where: 'doc.rowid IN (SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?)', params: [merged.map((m) => `(${m})`).join(op)] });
      }
      return { where: `(${parts.map((p) => p.where).join(op)})`, params: parts.flatMap((p) => p.params) };
    }
    case 'not': {
      const inner = querySql(node.child);
      return inner === null ? null : { where: `NOT (${inner.where})`, params: inner.params };
    }
    default:
      return null;
  }
}

/** Positive free-text leaves, OR-ed, for bm25 ranking. */
function rankText(node: QueryNode): string[] {
  switch (node.type) {
    case 'term':
    case 'phrase': {
      const m = matchText(node);
      return m === null ? [] : [m];
    }
    case 'and':
    case 'or':
      return node.children.flatMap(rankText);
    default:
      return [];
  }
}

/**
 * A superset of the matches in SQL, or null when none can be had. Any `field:value` leaf needs
 * the value's words somewhere in the document, so the text column narrows it even where only
 * the evaluator can decide the field.
 */
function textPrefilter(node: QueryNode): Sql | null {
  switch (node.type) {
    case 'term':
    case 'phrase': {
      if (node.type === 'term' && node.match === 'fuzzy') return null;
      const m = matchText(node.field === null || node.field === 'metadata.title' ? node : { ...node, field: null });
      return m === null ? null : { where: 'doc.rowid IN (SELECT rowid FROM doc_fts WHERE doc_fts MATCH ?)', params: [m] };
    }
    case 'and': {
      const parts = node.children.map(textPrefilter).filter((p): p is Sql => p !== null);
      return parts.length === 0 ? null : { where: parts.map((p) => p.where).join(' AND '), params: parts.flatMap((p) => p.params) };
    }
    case 'or': {
      const parts = node.children.map(textPrefilter);
      if (parts.length === 0 || parts.some((p) => p === null)) return null;
      return { where: `(${(parts as Sql[]).map((p) => p.where).join(' OR ')})`, params: (parts as Sql[]).flatMap((p) => p.params) };
    }
    default:
      return null;
  }
}

function filterSql(f: SearchFilter, withFacets: boolean): Sql {
  const where: string[] = [`doc.kind IN (${f.kinds.map(() => '?').join(',') || "''"})`];
  const params: Param[] = [...f.kinds];
  if (f.published === true) where.push("doc.state = 'published'");
  if (f.published === false) where.push("doc.state = 'draft'");
  if (f.latestOnly) where.push('doc.is_latest = 1');
  if (f.userListing) {
    where.push('doc.owner_id = ? AND doc.in_user_listing = 1');
    params.push(f.userListing.ownerId);
    if (!f.userListing.allVersions) where.push('doc.is_user_latest = 1');
  }
  if (f.parentId !== undefined) {
    where.push('doc.parent_id = ?');
    params.push(f.parentId);
  }
  if (f.ids !== undefined) {
    where.push('doc.id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(f.ids));
  }
  if (f.viewerId === null) where.push('doc.is_public = 1');
  else {
    where.push('(doc.is_public = 1 OR EXISTS (SELECT 1 FROM json_each(doc.readers) WHERE value = ?))');
    params.push(f.viewerId);
  }
  if (withFacets) {
    for (const [facet, values] of Object.entries(f.facets ?? {}) as [FacetName, readonly string[]][]) {
      if (values.length === 0) continue;
      where.push(`${FACET_COLUMN[facet]} IN (${values.map(() => '?').join(',')})`);
      params.push(...values);
    }
  }
  return { where: where.join(' AND '), params };
}

const FACET_COLUMN: Record<FacetName, string> = { resource_type: 'doc.resource_type', access_status: 'doc.access_status', record_type: 'doc.kind' };

function bboxSql(box: BBox | null): Sql {
  if (box === null) return { where: '1', params: [] };
  const [w, s, e, n] = box;
  const ranges: [number, number][] = w <= e ? [[w, e]] : [[w, 180], [-180, e]];
  const parts = ranges.map(() => 'doc.rowid IN (SELECT doc_rowid FROM doc_box WHERE min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ?)');
  return { where: `(${parts.join(' OR ')})`, params: ranges.flatMap(([a, b]) => [b, a, n, s]) };
}

// Ties break on id (then key, for a draft and a published version of one id), as in the domain.
const ORDER: Record<Exclude<SearchRequest['sort'], 'bestmatch'>, string> = {
  newest: 'doc.created DESC, doc.id ASC, doc.key ASC',
  oldest: 'doc.created ASC, doc.id ASC, doc.key ASC',
  version: 'doc.version_index DESC, doc.created DESC, doc.id ASC, doc.key ASC',
  'updated-desc': 'doc.updated DESC, doc.id ASC, doc.key ASC',
  'updated-asc': 'doc.updated ASC, doc.id ASC, doc.key ASC',
};

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
  const insertDoc = db.prepare(`INSERT INTO doc (key, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing,
    is_user_latest, is_public, readers, created, updated, resource_type, resource_type_label, access_status)
    VALUES (@key, @id, @kind, @state, @parentId, @ownerId, @versionIndex, @isLatest, @inUserListing, @isUserLatest, @isPublic,
    @readers, @created, @updated, @resourceType, @resourceTypeLabel, @accessStatus)`);
  const insertBody = db.prepare('INSERT INTO doc_body (rowid, doc) VALUES (?, ?)');
  const deleteBody = db.prepare('DELETE FROM doc_body WHERE rowid = ?');
  const insertFts = db.prepare('INSERT INTO doc_fts (rowid, title, text) VALUES (?, ?, ?)');
  const insertBox = db.prepare('INSERT INTO doc_box (min_x, max_x, min_y, max_y, doc_rowid) VALUES (?, ?, ?, ?, ?)');

  const removeKey = (key: string) => {
    const row = rowOf.get(key);
    if (!row) return;
    deleteFts.run(row.rowid);
    deleteBoxes.run(row.rowid);
    deleteBody.run(row.rowid);
    deleteDoc.run(row.rowid);
  };

  const upsertMany = db.transaction((docs: readonly SearchDocument[]) => {
    for (const doc of docs) {
      removeKey(doc.key);
      const flat = flatten(doc.body);
      const info = insertDoc.run({
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
    }
  });
  const removeMany = db.transaction((keys: readonly string[]) => keys.forEach(removeKey));

  function sqlSearch(request: SearchRequest, query: Sql, ranked: string[], requiresText: boolean): SearchResult {
    const where = (parts: Sql[]) => ({ where: parts.map((p) => `(${p.where})`).join(' AND '), params: parts.flatMap((p) => p.params) });
    // One grouped scan gives the exact total and every facet: facets count before facet filters
    // are applied, the total after.
    const a = where([filterSql(request.filter, false), query, bboxSql(request.bbox)]);
    const groups = db
      .prepare(`SELECT doc.resource_type AS rt, MAX(doc.resource_type_label) AS rtl, doc.access_status AS st, doc.kind AS kind, COUNT(*) AS n
                FROM doc WHERE ${a.where} GROUP BY doc.resource_type, doc.access_status, doc.kind`)
      .all(...a.params) as { rt: string | null; rtl: string | null; st: string; kind: string; n: number }[];
    const wanted = request.filter.facets ?? {};
    const keep = (values: readonly string[] | undefined, v: string | null) => !values || values.length === 0 || (v !== null && values.includes(v));
    let total = 0;
    const counts: { [f in FacetName]: Map<string, FacetBucket> } = { resource_type: new Map(), access_status: new Map(), record_type: new Map() };
    for (const g of groups) {
      if (keep(wanted.resource_type, g.rt) && keep(wanted.access_status, g.st) && keep(wanted.record_type, g.kind)) total += g.n;
      const add = (facet: FacetName, key: string | null, label: string) => {
        if (key === null) return;
        const b = counts[facet].get(key) ?? { key, label, docCount: 0 };
        b.docCount += g.n;
        counts[facet].set(key, b);
      };
      add('resource_type', g.rt, g.rtl ?? g.rt ?? '');
      add('access_status', g.st, facetLabel('access_status', g.st));
      add('record_type', g.kind, facetLabel('record_type', g.kind));
    }
    const aggregations: SearchResult['aggregations'] = {};
    for (const facet of request.aggregations) {
      aggregations[facet] = sortBuckets([...counts[facet].values()]);
    }
    const w = where([filterSql(request.filter, true), query, bboxSql(request.bbox)]);
    // Ranked: every hit holds one of the positive terms, so joining the FTS match directly is
    // exact and lets SQLite walk the match once instead of probing it per row.
    const rankable = request.sort === 'bestmatch' && ranked.length > 0 && requiresText;
    const offset = (request.page - 1) * request.size;
    const rows = (
      rankable
        ? db
            .prepare(
              `SELECT doc.id, doc.kind, doc.state FROM doc_fts JOIN doc ON doc.rowid = doc_fts.rowid
               WHERE doc_fts MATCH ? AND ${w.where} ORDER BY bm25(doc_fts, 2.0, 1.0), doc.created DESC, doc.id, doc.key LIMIT ? OFFSET ?`,
            )
            .all(ranked.join(' OR '), ...w.params, request.size, offset)
        : db
            .prepare(`SELECT doc.id, doc.kind, doc.state FROM doc WHERE ${w.where} ORDER BY ${ORDER[request.sort === 'bestmatch' ? 'newest' : request.sort]} LIMIT ? OFFSET ?`)
            .all(...w.params, request.size, offset)
    ) as SearchResult['hits'];
    return { total, hits: rows, aggregations };
  }

  function evaluatorSearch(request: SearchRequest, node: QueryNode): SearchResult {
    const parts = [filterSql(request.filter, false), bboxSql(request.bbox)];
    const pre = textPrefilter(node);
    if (pre) parts.push(pre);
    const w = { where: parts.map((p) => `(${p.where})`).join(' AND '), params: parts.flatMap((p) => p.params) };
    const docs = (db.prepare(`SELECT b.doc FROM doc JOIN doc_body b ON b.rowid = doc.rowid WHERE ${w.where}`).all(...w.params) as { doc: string }[]).map((r) => JSON.parse(r.doc) as SearchDocument);
    const scored = positiveTerms(node).length > 0;
    return runSearch(docs, { ...request, bbox: null }, (doc) => matchesQuery(node, doc), scored ? (doc) => scoreQuery(node, doc) : null);
  }

  return {
    async upsert(docs) {
      upsertMany(docs);
    },
    async remove(keys) {
      removeMany(keys);
    },
    async keysOfParent(parentId) {
      return (db.prepare('SELECT key FROM doc WHERE parent_id = ?').all(parentId) as { key: string }[]).map((r) => r.key);
    },
    async search(request) {
      const node = parseQuery(request.q ?? '');
      const sql = querySql(node);
      return sql === null ? evaluatorSearch(request, node) : sqlSearch(request, sql, rankText(node), textPrefilter(node) !== null);
    },
    async clear() {
      db.exec('DELETE FROM doc; DELETE FROM doc_body; DELETE FROM doc_fts; DELETE FROM doc_box;');
    },
    size: () => (db.prepare('SELECT COUNT(*) AS n FROM doc').get() as { n: number }).n,
    close: () => db.close(),
  };
}
