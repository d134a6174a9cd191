/**
 * SearchIndex in PostgreSQL, in the records' own database, so every node searches the same index
 * and a write can update it in its own transaction (see the unit of work): no projection lag, and
 * nothing to catch up at start-up.
 *
 * PostgreSQL narrows: a GIN-indexed tsvector of each document's words (as the domain tokenizes
 * them) answers the text a query requires, a GiST index of geometry boxes answers `bbox`, and the
 * filter (kinds, states, version flags, owner, ids, visibility, facets) is plain SQL. A query with
 * no text and no box is answered in SQL alone: count, facet counts and the page. Otherwise the
 * documents SQL kept are decided by the domain's evaluator (`matchesQuery`, `scoreQuery`,
 * `runSearch`), which holds every engine to the same answers. Fuzzy terms, `_exists_`, ranges and
 * negations narrow nothing in SQL: such a query reads every document the filter keeps.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { facetLabel, matchesQuery, parseQuery, positiveTerms, runSearch, scoreQuery, sortBuckets, tokenize, type QueryNode } from '@krs/domain/search';
import type { FacetBucket, FacetName, SearchDocument, SearchIndex, SearchRequest, SearchResult } from '@krs/domain';
import { evaluateInSlices } from './evaluate-in-slices.ts';

/** Any Kysely handle: the index's tables are outside the records' typed schema, and written in SQL. */
type Db = Kysely<object>;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_doc (
    key text PRIMARY KEY, id text NOT NULL, kind text NOT NULL, state text NOT NULL, parent_id text NOT NULL, owner_id text NOT NULL,
    version_index integer NOT NULL, is_latest boolean NOT NULL, in_user_listing boolean NOT NULL, is_user_latest boolean NOT NULL,
    is_public boolean NOT NULL, readers text[] NOT NULL, created text NOT NULL, updated text NOT NULL,
    resource_type text, resource_type_label text, access_status text NOT NULL,
    words tsvector, doc text NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_doc_words ON search_doc USING gin (words)',
  'CREATE INDEX IF NOT EXISTS search_doc_parent ON search_doc (parent_id)',
  'CREATE INDEX IF NOT EXISTS search_doc_id ON search_doc (id)',
  'CREATE INDEX IF NOT EXISTS search_doc_owner ON search_doc (owner_id)',
  'CREATE INDEX IF NOT EXISTS search_doc_created ON search_doc (created COLLATE "C", id COLLATE "C")',
  'CREATE TABLE IF NOT EXISTS search_box (key text NOT NULL REFERENCES search_doc (key) ON DELETE CASCADE, b box NOT NULL)',
  'CREATE INDEX IF NOT EXISTS search_box_b ON search_box USING gist (b)',
  'CREATE INDEX IF NOT EXISTS search_box_key ON search_box (key)',
];

/** Creates the index's tables and indexes where they are missing; nodes starting at once take turns. */
export async function createPostgresSearchSchema<T>(handle: Kysely<T>): Promise<void> {
  const db = handle as unknown as Db;
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7153017)`.execute(trx);
    for (const statement of SCHEMA) await sql.raw(statement).execute(trx);
  });
}

/** A tsvector holds at most 1 MiB and lexemes of at most 2047 bytes: past that a document is a candidate of every text query instead. */
const MAX_WORDS_BYTES = 900 * 1024;
const MAX_WORD_BYTES = 2000;

function wordsOf(body: unknown): string[] | null {
  const words = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) walk(x);
    else if (v !== null && v !== undefined) for (const w of tokenize(String(v))) words.add(w);
  };
  walk(body);
  let bytes = 0;
  for (const w of words) {
    const size = Buffer.byteLength(w);
    if (size > MAX_WORD_BYTES) return null;
    bytes += size + 8;
  }
  return bytes > MAX_WORDS_BYTES ? null : [...words];
}

/** A tsquery lexeme: the domain's words are letters and digits only, quoted all the same. */
const lexeme = (w: string, prefix: boolean) => `'${w.replace(/['\\]/g, (c) => `\\${c}`)}'${prefix ? ':*' : ''}`;

/**
 * The words a document must hold for `node` to match it, as tsquery text, or null when a query
 * of this shape can match a document without any particular word. Never narrows too much: the
 * evaluator decides afterwards.
 */
export function requiredWords(node: QueryNode): string | null {
  switch (node.type) {
    case 'term': {
      if (node.match === 'fuzzy') return null;
      const words = tokenize(node.value);
      if (words.length === 0) return null;
      return words.map((w) => lexeme(w, node.match === 'prefix')).join(' & ');
    }
    case 'phrase': {
      const words = tokenize(node.value);
      return words.length === 0 ? null : words.map((w) => lexeme(w, false)).join(' & ');
    }
    case 'and': {
      const parts = node.children.map(requiredWords).filter((p): p is string => p !== null);
      return parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' & ');
    }
    case 'or': {
      const parts = node.children.map(requiredWords);
      return parts.some((p) => p === null) || parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' | ');
    }
    default:
      return null;
  }
}

/** Candidate documents read per statement when the evaluator decides. */
const CANDIDATE_PAGE = 1000;

const FACET_COLUMN: Record<FacetName, string> = { resource_type: 'resource_type', access_status: 'access_status', record_type: 'kind' };

function filterSql(request: SearchRequest, withFacets: boolean): RawBuilder<boolean> {
  const f = request.filter;
  const parts: RawBuilder<unknown>[] = [sql`kind = any(${[...f.kinds]}::text[])`];
  if (f.published === true) parts.push(sql`state = 'published'`);
  if (f.published === false) parts.push(sql`state = 'draft'`);
  if (f.latestOnly) parts.push(sql`is_latest`);
  if (f.userListing) {
    parts.push(sql`owner_id = ${f.userListing.ownerId} and in_user_listing`);
    if (!f.userListing.allVersions) parts.push(sql`is_user_latest`);
  }
  if (f.parentId !== undefined) parts.push(sql`parent_id = ${f.parentId}`);
  if (f.ids !== undefined) parts.push(sql`id = any(${[...f.ids]}::text[])`);
  parts.push(f.viewerId === null ? sql`is_public` : sql`(is_public or ${f.viewerId} = any(readers))`);
  if (withFacets && f.facets) {
    for (const [facet, values] of Object.entries(f.facets) as [FacetName, readonly string[]][]) {
      // An empty list selects nothing out, as in runSearch.
      if (values.length === 0) continue;
      parts.push(sql`${sql.ref(FACET_COLUMN[facet])} = any(${[...values]}::text[])`);
    }
  }
  return sql<boolean>`${sql.join(parts, sql` and `)}`;
}

const ORDER: Record<Exclude<SearchRequest['sort'], 'bestmatch'>, string> = {
  newest: 'created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  oldest: 'created COLLATE "C" asc, id COLLATE "C" asc, key COLLATE "C" asc',
  version: 'version_index desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  'updated-desc': 'updated COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  'updated-asc': 'updated COLLATE "C" asc, id COLLATE "C" asc, key COLLATE "C" asc',
};

/**
 * `db` is the pool, or a transaction: the unit of work hands one in so a write and its documents
 * commit together (`withTransaction`).
 */
export function createPostgresSearchIndex<T>(handle: Kysely<T>): SearchIndex & { withTransaction<U>(trx: Kysely<U>): SearchIndex } {
  const db = handle as unknown as Db;
  const index = (handle: Db): SearchIndex => ({
    async upsert(docs) {
      for (const doc of docs) {
        const words = wordsOf(doc.body);
        await sql`insert into search_doc (key, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing, is_user_latest,
            is_public, readers, created, updated, resource_type, resource_type_label, access_status, words, doc)
          values (${doc.key}, ${doc.id}, ${doc.kind}, ${doc.state}, ${doc.parentId}, ${doc.ownerId}, ${doc.versionIndex}, ${doc.isLatest},
            ${doc.inUserListing}, ${doc.isUserLatest}, ${doc.isPublic}, ${doc.readers}::text[], ${doc.created}, ${doc.updated},
            ${doc.resourceType?.id ?? null}, ${doc.resourceType?.label ?? null}, ${doc.accessStatus},
            ${words === null ? null : sql`array_to_tsvector(${words}::text[])`}, ${JSON.stringify(doc)})
          on conflict (key) do update set id = excluded.id, kind = excluded.kind, state = excluded.state, parent_id = excluded.parent_id,
            owner_id = excluded.owner_id, version_index = excluded.version_index, is_latest = excluded.is_latest,
            in_user_listing = excluded.in_user_listing, is_user_latest = excluded.is_user_latest, is_public = excluded.is_public,
            readers = excluded.readers, created = excluded.created, updated = excluded.updated, resource_type = excluded.resource_type,
            resource_type_label = excluded.resource_type_label, access_status = excluded.access_status, words = excluded.words, doc = excluded.doc`.execute(handle);
        await sql`delete from search_box where key = ${doc.key}`.execute(handle);
        if (doc.bounds.length > 0) {
          const boxes = doc.bounds.map(([w, s, e, n]) => sql`(${doc.key}, box(point(${w}::float8, ${s}::float8), point(${e}::float8, ${n}::float8)))`);
          await sql`insert into search_box (key, b) values ${sql.join(boxes)}`.execute(handle);
        }
      }
    },
    async remove(keys) {
      if (keys.length > 0) await sql`delete from search_doc where key = any(${[...keys]}::text[])`.execute(handle);
    },
    async keysOfParent(parentId) {
      return (await sql<{ key: string }>`select key from search_doc where parent_id = ${parentId} order by key`.execute(handle)).rows.map((r) => r.key);
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      if (query.type === 'all' && request.bbox === null) return inSql(handle, request);
      const words = requiredWords(query);
      const where: RawBuilder<unknown>[] = [filterSql(request, false)];
      if (words !== null) where.push(sql`(words is null or words @@ ${words}::tsquery)`);
      if (request.bbox !== null) {
        const [w, s, e, n] = request.bbox;
        const parts = w <= e ? [[w, e]] : [[w, 180], [-180, e]];
        const meets = parts.map(([a, b]) => sql`b && box(point(${a}::float8, ${s}::float8), point(${b}::float8, ${n}::float8))`);
        where.push(sql`key in (select key from search_box where ${sql.join(meets, sql` or `)})`);
      }
      // Candidates a page at a time, each decided in short slices of the event loop: a query
      // that narrows nothing costs its own caller time, never the others, and only the matching
      // documents stay in memory.
      const matched: SearchDocument[] = [];
      let after = '';
      for (;;) {
        const page = await sql<{ key: string; doc: string }>`select key, doc from search_doc where ${sql.join(where, sql` and `)} and key collate "C" > ${after}
          order by key collate "C" limit ${CANDIDATE_PAGE}`.execute(handle);
        matched.push(...(await evaluateInSlices(page.rows, (r) => {
          const doc = JSON.parse(r.doc) as SearchDocument;
          return matchesQuery(query, doc) ? doc : null;
        })));
        if (page.rows.length < CANDIDATE_PAGE) break;
        after = (page.rows[page.rows.length - 1] as { key: string }).key;
      }
      const scored = positiveTerms(query).length > 0;
      return runSearch(matched, request, () => true, scored ? (doc) => scoreQuery(query, doc) : null);
    },
    async clear() {
      await sql`delete from search_doc`.execute(handle);
    },
    async check() {
      await sql`select 1 from search_doc limit 1`.execute(handle);
    },
  });
  return { ...index(db), withTransaction: <U>(trx: Kysely<U>) => index(trx as unknown as Db) };
}

/** A request with neither query text nor box: SQL counts, buckets and pages it alone. */
async function inSql(db: Db, request: SearchRequest): Promise<SearchResult> {
  const hitsWhere = filterSql(request, true);
  const start = (request.page - 1) * request.size;
  const order = sql.raw(ORDER[request.sort === 'bestmatch' ? 'newest' : request.sort]);
  const [total, page] = await Promise.all([
    sql<{ n: string }>`select count(*) as n from search_doc where ${hitsWhere}`.execute(db),
    sql<{ id: string; kind: SearchDocument['kind']; state: SearchDocument['state'] }>`select id, kind, state from search_doc where ${hitsWhere}
      order by ${order} limit ${request.size} offset ${start}`.execute(db),
  ]);
  const aggregations: SearchResult['aggregations'] = {};
  for (const facet of request.aggregations) {
    const column = sql.ref(FACET_COLUMN[facet]);
    const rows = await sql<{ key: string; n: string; label: string | null }>`select ${column} as key, count(*) as n, min(resource_type_label) as label
      from search_doc where ${filterSql(request, false)} and ${column} is not null group by ${column}`.execute(db);
    const buckets: FacetBucket[] = rows.rows.map((r) => ({ key: r.key, docCount: Number(r.n), label: facet === 'resource_type' ? (r.label ?? r.key) : facetLabel(facet, r.key) }));
    aggregations[facet] = sortBuckets(buckets);
  }
  return { total: Number(total.rows[0]?.n ?? 0), hits: page.rows.map((r) => ({ id: r.id, kind: r.kind, state: r.state })), aggregations };
}
