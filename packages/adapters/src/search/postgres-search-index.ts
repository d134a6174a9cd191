/**
 * SearchIndex in PostgreSQL, in the records' own database, so every node searches the same index
 * and a write can update it in its own transaction (see the unit of work): no projection lag, and
 * nothing to catch up at start-up.
 *
 * A query of terms, prefixes, title fields, phrases, `_exists_`, fuzzy terms and AND/OR/NOT
 * without a box is decided by the GIN-indexed vector alone (postgres-text.ts says how it means
 * what the domain's evaluator means); total, facets and the ranked page are SQL. So is a box
 * without query text, but for the documents with a part across the box's edge, whose shapes the
 * evaluator decides. So are ranges, beside those leaves, from their own ordered index
 * (postgres-ranges.ts), and fields other than the title, from a vector of their own
 * (postgres-fields.ts). Boxes with text, and field terms of no words, are narrowed in SQL (the words the
 * query requires, the GiST index of the boxes) and decided by the domain's evaluator
 * (`matchesQuery`, `scoreQuery`, `runSearch`), which holds every engine to the same answers.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { facetLabel, meetsBox, parseQuery, positiveTerms, runSearch, scoreQuery, shapeBounds, sortBuckets, splitAtAntimeridian, tokenize, type QueryNode } from '@krs/domain/search';
import { isLarge, jsonText, largeValueSlices, type BBox, type FacetBucket, type FacetName, type SearchDocument, type SearchIndex, type SearchIndexRebuild, type SearchRequest, type SearchResult, type Shape } from '@krs/domain';
import { decideCandidates } from './decide-candidates.ts';
import { evaluateInSlices } from './evaluate-in-slices.ts';
import { expandFuzzy, type KeptExpansions } from './postgres-fuzzy-words.ts';
import { fieldPathsOf, fieldTsquery, fieldVector, singleFieldLexeme } from './postgres-fields.ts';
import type { FieldPaths } from './field-query.ts';
import { keptWords, keptWordsAnswer, MAX_KEPT_WORDS } from './postgres-kept-words.ts';
import { LISTING_AGGREGATES, listingColumns } from './postgres-listing-columns.ts';
import { bucketedRange, RANGE_BUCKET_SCHEMA, type BucketedRange } from './postgres-range-buckets.ts';
import { composedQuery, foldableRanges, foldedRanges, listedRangeDocuments, RANGE_SCHEMA, requiredRanges, writeRanges, type FoldedRanges } from './postgres-ranges.ts';
import { YEAR_COUNT_SCHEMA, YEAR_TOUCHED, yearCountFold, yearCounted, yearCountsSql, yearCountStatements, type YearCounted } from './postgres-year-counts.ts';
import { documentWords, documentWordsInTurns, exactQuery, type DocumentWords, rankOperands, rankText, requiredWords, singleLexeme, type FuzzyExpansions, type RankOperand, type SingleLexeme } from './postgres-text.ts';

/** Any Kysely handle: the index's tables are outside the records' typed schema, and written in SQL. */
type Db = Kysely<object>;

/**
 * The number of words and path lexemes of `words` (not its word pairs), which ranking damps by:
 * kept in the row, because most vectors are stored out of line (TOAST) and each function reading
 * one fetches it again, so `length(words)` beside `ts_rank(words, ...)` read every ranked match's
 * vector twice. Written with the vector (`DocumentWords.lexemes`): `length(words)` counts the pairs.
 */
const WORD_COUNT = 'word_count integer';

/**
 * What the write path keeps for the documents anyone may find in a public listing (published,
 * latest, public: `COUNTED`), so that a query of one word asked with that visibility is counted,
 * and its best matches found, without visiting each of its matches:
 * - `search_count`: how many such documents hold each lexeme (words, `$path`s, the field words of
 *   `field_words` but not its marks, and EVERY_LISTED, which all hold), by the facet
 *   columns (with the label, whose least over the matches a facet reports) and by whether the
 *   word is in the title. The rows are deltas summed when read: a write only inserts, so two
 *   writers of documents sharing a word (all share their paths' lexemes) never wait for each
 *   other. A write then folds a group of a lexeme it touched that holds FOLD_AT rows into one
 *   (the rows no other transaction is folding: `skip locked`), so a lexeme keeps a few rows per
 *   group however often it is written.
 * - `search_title`: for each word of such a document's title, the document's score for that word
 *   alone, exact (the title's words hold every position of their lexemes, see `title_words`), in
 *   the page's order: a word's best-scored title matches are the first entries of its index.
 * - `search_repeat`: the same for each word (or pair) such a document holds at several positions
 *   outside its title (`repeats`; from the vector when `repeats` was too long to keep): with
 *   `search_title`, every document whose score for a word is not the one of a single untitled
 *   position, which only the document's length then sets.
 * - `search_count_year`: how many hold each word by publication month (postgres-year-counts.ts).
 * Kept by statement triggers on search_doc, from the rows the statement changed, in its
 * transaction: every write (upsert, remove, clear, `krs reindex`) keeps them as the documents are.
 */
const COUNTED = `state = 'published' and is_latest and is_public and words is not null`;

const KEPT_COLUMNS = 'key, kind, resource_type, resource_type_label, access_status, word_count, created, id, words, title_words, repeats, field_words';

/**
 * The lexeme of `search_count` every counted document holds, which no word, path or field word
 * can be (each is at least one character): the counts of a listing without query text.
 */
const EVERY_LISTED = '';

/** The statements keeping both for the changed rows `changed` (a select of KEPT_COLUMNS and `sign`, -1 for a row gone, 1 for a row come). */
const keptStatements = (changed: string) => `
    DELETE FROM search_title WHERE key IN (SELECT key FROM (${changed}) d WHERE sign < 0);
    INSERT INTO search_title (lexeme, score, created, id, key, kind, resource_type, access_status)
      SELECT l, ts_rank(d.title_words, ('''' || replace(replace(l, '\\', '\\\\'), '''', '\\''') || '''')::tsquery, 0) / sqrt(1 + d.word_count / 50.0::float8),
        d.created, d.id, d.key, d.kind, d.resource_type, d.access_status
      FROM (${changed}) d, unnest(tsvector_to_array(d.title_words)) l WHERE d.sign > 0;
    DELETE FROM search_repeat WHERE key IN (SELECT key FROM (${changed}) d WHERE sign < 0);
    INSERT INTO search_repeat (lexeme, score, created, id, key, kind, resource_type, access_status)
      SELECT r.l, ts_rank(coalesce(d.repeats, d.words), ('''' || replace(replace(r.l, '\\', '\\\\'), '''', '\\''') || '''')::tsquery, 0) / sqrt(1 + d.word_count / 50.0::float8),
        d.created, d.id, d.key, d.kind, d.resource_type, d.access_status
      FROM (${changed}) d CROSS JOIN LATERAL (SELECT unnest(tsvector_to_array(d.repeats)) WHERE d.repeats IS NOT NULL
          UNION ALL SELECT u.lexeme FROM unnest(d.words) u WHERE d.repeats IS NULL AND cardinality(u.positions) > 1
            AND u.lexeme <> ALL (tsvector_to_array(d.title_words))) r(l)
      WHERE d.sign > 0;
    WITH delta AS (
      SELECT w.l AS lexeme, t.l IS NOT NULL AS in_title, d.kind, d.resource_type, d.resource_type_label, d.access_status, sum(d.sign)::integer AS n
      FROM (${changed}) d CROSS JOIN LATERAL (SELECT unnest(tsvector_to_array(d.words))
          UNION ALL SELECT f FROM unnest(tsvector_to_array(d.field_words)) f WHERE strpos(f, ' ') > 0
          UNION ALL SELECT '${EVERY_LISTED}') w(l)
        LEFT JOIN LATERAL unnest(tsvector_to_array(d.title_words)) t(l) ON t.l = w.l
      GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(d.sign) <> 0
    ), added AS (
      INSERT INTO search_count (lexeme, in_title, kind, resource_type, resource_type_label, access_status, n) SELECT * FROM delta RETURNING lexeme
    )
    SELECT array_agg(DISTINCT lexeme) INTO touched FROM added;
    ${yearCountStatements(changed)}`;

/**
 * Rows of one lexeme and group past which a write folds them into one: folding each time cost
 * about as much as the deltas themselves (every row written twice more); a read sums a few.
 */
const FOLD_AT = 8;

const gone = `SELECT ${KEPT_COLUMNS}, -1 AS sign FROM old_rows WHERE ${COUNTED}`;
const come = `SELECT ${KEPT_COLUMNS}, 1 AS sign FROM new_rows WHERE ${COUNTED}`;

/**
 * The setting under which a transaction's writes to search_doc leave `search_count`,
 * `search_count_year`, `search_title` and `search_repeat` as they are: a rebuild's, which makes
 * them once at its end (`keepAll`).
 */
const KEPT_LATER = 'krs.kept_later';

/**
 * The transition tables a statement trigger sees depend on its event, and PL/pgSQL plans a
 * statement when it first runs it: each event's branch names only its own.
 */
const KEPT_FUNCTION = `CREATE OR REPLACE FUNCTION search_doc_kept() RETURNS trigger LANGUAGE plpgsql AS $kept$
  DECLARE touched text[]; ${YEAR_TOUCHED}
  BEGIN
    IF current_setting('${KEPT_LATER}', true) = 'on' THEN RETURN NULL; END IF;
    IF TG_OP = 'INSERT' THEN ${keptStatements(come)}
    ELSIF TG_OP = 'UPDATE' THEN ${keptStatements(`${gone} UNION ALL ${come}`)}
    ELSE ${keptStatements(gone)}
    END IF;
    IF touched IS NOT NULL THEN
      WITH crowded AS (
        SELECT lexeme, in_title, kind, resource_type, resource_type_label, access_status FROM search_count WHERE lexeme = ANY(touched)
        GROUP BY 1, 2, 3, 4, 5, 6 HAVING count(*) >= ${FOLD_AT}
      ), mine AS (
        SELECT c.ctid FROM search_count c JOIN crowded g ON c.lexeme = g.lexeme AND c.in_title = g.in_title AND c.kind = g.kind
          AND c.resource_type IS NOT DISTINCT FROM g.resource_type AND c.resource_type_label IS NOT DISTINCT FROM g.resource_type_label
          AND c.access_status = g.access_status
        FOR UPDATE OF c SKIP LOCKED
      ), folded AS (
        DELETE FROM search_count c USING mine WHERE c.ctid = mine.ctid RETURNING c.*
      )
      INSERT INTO search_count (lexeme, in_title, kind, resource_type, resource_type_label, access_status, n)
        SELECT lexeme, in_title, kind, resource_type, resource_type_label, access_status, sum(n)::integer FROM folded
        GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0;
    END IF;
    ${yearCountFold(FOLD_AT)}
    RETURN NULL;
  END $kept$`;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_doc (
    key text PRIMARY KEY, id text NOT NULL, kind text NOT NULL, state text NOT NULL, parent_id text NOT NULL, owner_id text NOT NULL,
    version_index integer NOT NULL, is_latest boolean NOT NULL, in_user_listing boolean NOT NULL, is_user_latest boolean NOT NULL,
    is_public boolean NOT NULL, readers text[] NOT NULL, created text NOT NULL, updated text NOT NULL,
    resource_type text, resource_type_label text, access_status text NOT NULL,
    words tsvector, positions_exact boolean NOT NULL DEFAULT false, ${WORD_COUNT}, path_bits bit varying,
    title_words tsvector, repeats tsvector, field_words tsvector, doc text NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_doc_words ON search_doc USING gin (words)',
  'CREATE INDEX IF NOT EXISTS search_doc_fields ON search_doc USING gin (field_words)',
  // The few documents SQL cannot decide every query on, found at once.
  'CREATE INDEX IF NOT EXISTS search_doc_inexact ON search_doc (key) WHERE words IS NULL OR NOT positions_exact OR field_words IS NULL',
  'CREATE INDEX IF NOT EXISTS search_doc_parent ON search_doc (parent_id)',
  'CREATE INDEX IF NOT EXISTS search_doc_id ON search_doc (id)',
  'CREATE INDEX IF NOT EXISTS search_doc_owner ON search_doc (owner_id)',
  // The documents a signed-in reader may read beyond the public ones (their restricted records,
  // drafts, what is shared with them): few, found without visiting a query's public matches, which
  // the kept counts and title scores answer (see `ownSql`). Made on a table in use when a node
  // starts on an index without it: writes wait for the build (a pass over the table), reads do not.
  // Without a pending list: every search would read all of it, and drafts, written often, are here.
  'CREATE INDEX IF NOT EXISTS search_doc_readers ON search_doc USING gin (readers) WITH (fastupdate = off) WHERE NOT is_public',
  'CREATE INDEX IF NOT EXISTS search_doc_created ON search_doc (created COLLATE "C", id COLLATE "C")',
  // Sorted by update, a page walks this index (ties sorted on the way) instead of sorting every match.
  'CREATE INDEX IF NOT EXISTS search_doc_updated ON search_doc (updated COLLATE "C", id COLLATE "C")',
  // The filter's and the facets' columns, and the paths: the total and facets of a query without
  // text, or of one `_exists_`, are counted from this index alone (an index-only scan of a few MB)
  // rather than the whole heap.
  'CREATE INDEX IF NOT EXISTS search_doc_facets ON search_doc (kind, state, is_latest, is_public, resource_type, access_status) INCLUDE (resource_type_label, path_bits)',
  // Each field path's number: bit n of a document's `path_bits` says whether it holds the path
  // numbered n (never pruned, as the vocabulary). One test per row, whatever the number of paths.
  'CREATE TABLE IF NOT EXISTS search_path (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, path text NOT NULL UNIQUE)',
  // Each part's bounds, with what a public listing's box needs of its document (see `listedInBox`),
  // all in the GiST index: such a box is counted and paged from the index alone, whose leaves hold
  // neighbouring parts together, rather than from each match's row of search_doc.
  `CREATE TABLE IF NOT EXISTS search_box (key text NOT NULL REFERENCES search_doc (key) ON DELETE CASCADE, b box NOT NULL,
    whole boolean NOT NULL, listed boolean NOT NULL, kind text NOT NULL, resource_type text, resource_type_label text, access_status text NOT NULL,
    created text NOT NULL, updated text NOT NULL, version_index integer NOT NULL, id text NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS search_box_b ON search_box USING gist (b)
    INCLUDE (key, whole, listed, kind, resource_type, resource_type_label, access_status, created, updated, version_index, id)`,
  'CREATE INDEX IF NOT EXISTS search_box_key ON search_box (key)',
  ...RANGE_SCHEMA,
  ...RANGE_BUCKET_SCHEMA,
  ...YEAR_COUNT_SCHEMA,
  // Every word ever indexed (never pruned: a word no document holds any more expands a fuzzy term to nothing).
  'CREATE TABLE IF NOT EXISTS search_vocab (word text COLLATE "C" PRIMARY KEY)',
  // See `KEPT_FUNCTION`.
  `CREATE TABLE IF NOT EXISTS search_count (lexeme text NOT NULL, in_title boolean NOT NULL, kind text NOT NULL, resource_type text,
    resource_type_label text, access_status text NOT NULL, n integer NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_count_lexeme ON search_count (lexeme)',
  `CREATE TABLE IF NOT EXISTS search_title (lexeme text NOT NULL, score float8 NOT NULL, created text NOT NULL, id text NOT NULL,
    key text NOT NULL, kind text NOT NULL, resource_type text, access_status text NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_title_rank ON search_title (lexeme, score desc, created COLLATE "C" desc, id COLLATE "C", key COLLATE "C")',
  'CREATE INDEX IF NOT EXISTS search_title_key ON search_title (key)',
  `CREATE TABLE IF NOT EXISTS search_repeat (lexeme text NOT NULL, score float8 NOT NULL, created text NOT NULL, id text NOT NULL,
    key text NOT NULL, kind text NOT NULL, resource_type text, access_status text NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_repeat_rank ON search_repeat (lexeme, score desc, created COLLATE "C" desc, id COLLATE "C", key COLLATE "C")',
  'CREATE INDEX IF NOT EXISTS search_repeat_key ON search_repeat (key)',
  // The shortest counted document, which bounds the score of every match holding a word once (see `keptScoresPage`).
  `CREATE INDEX IF NOT EXISTS search_doc_shortest ON search_doc (word_count) WHERE ${COUNTED}`,
  KEPT_FUNCTION,
  // A row while a rebuild has written documents it has not yet counted (see `keepAll`).
  'CREATE TABLE IF NOT EXISTS search_rebuild (started text NOT NULL)',
  ...['INSERT', 'UPDATE', 'DELETE'].map(
    (op) =>
      `CREATE OR REPLACE TRIGGER search_doc_kept_${op.toLowerCase()} AFTER ${op} ON search_doc REFERENCING ${op === 'INSERT' ? '' : 'OLD TABLE AS old_rows'} ${op === 'DELETE' ? '' : 'NEW TABLE AS new_rows'} FOR EACH STATEMENT EXECUTE FUNCTION search_doc_kept()`,
  ),
];

/**
 * How search_doc's rows are stored, set when the table is made. The total, facets and score
 * bounds read every match's row: the narrow columns, never the document (`doc`, for the evaluator)
 * nor the vectors (`words`, `field_words`, which the GIN indexes answer a plain word from without reading them). All
 * leave the row for the TOAST table, so a row is a few hundred bytes rather than the 2 kB a
 * typical vector made it, inline, with the document in a table of its own.
 *
 * PostgreSQL moves values out of a row only when the row passes about 2 kB (a constant of its
 * build; `toast_tuple_target` does not lower it, only how far a row is then shrunk): the document
 * and the vector together pass it, either of them alone often does not. Once past it, the row is
 * shrunk to `toast_tuple_target`, largest value first: the document (compressed), then the vector
 * (not compressed: pglz does not shrink a tsvector, and each read would pay for trying). 512 bytes
 * is above what the other columns take, so they stay in the row; `title_words`, which bounds
 * every match's score, stays in it whatever the row's size (MAIN), as does `repeats`, which makes one word's score exact.
 */
const STORAGE = [
  'ALTER TABLE search_doc SET (toast_tuple_target = 512)',
  'ALTER TABLE search_doc ALTER COLUMN words SET STORAGE EXTERNAL',
  'ALTER TABLE search_doc ALTER COLUMN field_words SET STORAGE EXTERNAL',
  'ALTER TABLE search_doc ALTER COLUMN title_words SET STORAGE MAIN',
  'ALTER TABLE search_doc ALTER COLUMN repeats SET STORAGE MAIN',
];

/**
 * The layout of `words`. An index written with an older one is emptied when a node starts: the
 * node then finds it empty and projects every record again (see the server's search engine).
 * 5 and 6 numbered layouts that were tried and not kept: an index either wrote is projected again.
 * 8 added `title_words`; 9 moved the document into search_doc (from `search_body`), out of the row;
 * 10 added `search_count` and `search_title`, kept by triggers; 11 the document's listing columns
 * and whether a part is its bounds to `search_box`; 12 word pairs (two-word phrases) as lexemes of
 * the vector, and `word_count` written with it rather than generated; 13 `search_range`, the values
 * of the range fields (postgres-ranges.ts); 14 the title's weight on the words `metadata.title:`
 * reads (its members' only where it holds no value of its own), a range field's own values only,
 * and `field_words`, the words of each field path (postgres-fields.ts); 15 the listing columns on
 * `search_range`'s rows, and a row without a value for each range field a listed document lacks;
 * 16 the field words' and every listed document's counts in `search_count`, two-word pairs in
 * `field_words`, and `repeats`; 17 the range rows' counts per bucket (`search_range_count`) and
 * their page index (postgres-range-buckets.ts); 18 the buckets of the date range values as
 * lexemes of `words` (postgres-range-lexemes.ts); 19 `search_repeat`, the kept scores of the
 * words a document holds at several positions outside its title; 20 `search_count_year`, the
 * words' kept counts by publication month (postgres-year-counts.ts).
 */
const LAYOUT = 20;

/** Creates the index's tables and indexes where they are missing; nodes starting at once take turns. */
export async function createPostgresSearchSchema<T>(handle: Kysely<T>): Promise<void> {
  const db = handle as unknown as Db;
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7153017)`.execute(trx);
    const existed = (await sql<{ t: string | null }>`select to_regclass('search_doc')::text as t`.execute(trx)).rows[0]?.t != null;
    await sql`create table if not exists search_meta (layout integer not null)`.execute(trx);
    const layout = (await sql<{ layout: number }>`select layout from search_meta`.execute(trx)).rows[0]?.layout ?? (existed ? 1 : LAYOUT);
    if (layout !== LAYOUT) {
      await sql`drop table if exists search_box`.execute(trx);
      await sql`drop table if exists search_range_count`.execute(trx);
      await sql`drop table if exists search_range`.execute(trx);
      await sql`drop table if exists search_body`.execute(trx);
      await sql`drop table if exists search_doc`.execute(trx);
      await sql`drop table if exists search_vocab`.execute(trx);
      await sql`drop table if exists search_path`.execute(trx);
      await sql`drop table if exists search_count`.execute(trx);
      await sql`drop table if exists search_title`.execute(trx);
      await sql`drop table if exists search_repeat`.execute(trx);
      await sql`drop table if exists search_count_year`.execute(trx);
    }
    const made = (await sql<{ t: string | null }>`select to_regclass('search_doc')::text as t`.execute(trx)).rows[0]?.t == null;
    for (const statement of SCHEMA) await sql.raw(statement).execute(trx);
    // Only on a table just made: on a table in use, ALTER TABLE would wait for every search in
    // progress and hold back the ones after it.
    if (made) for (const statement of STORAGE) await sql.raw(statement).execute(trx);
    await sql`delete from search_meta`.execute(trx);
    await sql`insert into search_meta (layout) values (${LAYOUT})`.execute(trx);
  });
  await countUncountedRebuild(db);
}

/**
 * A rebuild ended before counting what it wrote (its process stopped): counted now, before the
 * node answers. Not while another transaction counts (a rebuild's own last step, or another node
 * starting), which will leave every document counted. Any other failure fails the opening: a node
 * answering from short counts would give wrong totals and facets until someone ran `krs reindex`.
 * (The server counts on its unbounded pool, so a large index is not cut short by the statement
 * bound.) A node starting while a rebuild is still writing counts what is written so far, in vain
 * but without harm: the rebuild counts again at its end.
 */
async function countUncountedRebuild(db: Db): Promise<void> {
  if ((await sql`select 1 from search_rebuild limit 1`.execute(db)).rows.length === 0) return;
  await db
    .transaction()
    .execute((trx) => keepAll(trx, true))
    .catch((e: unknown) => {
      if ((e as { code?: unknown } | null)?.code !== LOCK_NOT_AVAILABLE) throw e;
    });
}

/** PostgreSQL's error code for a lock taken with `nowait` that another transaction holds. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Candidate documents read per statement when the evaluator decides. */
const CANDIDATE_PAGE = 1000;

const FACET_COLUMN: Record<FacetName, string> = { resource_type: 'resource_type', access_status: 'access_status', record_type: 'kind' };

function filterSql(request: SearchRequest): RawBuilder<boolean> {
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
  return sql<boolean>`${sql.join(parts, sql` and `)}`;
}

/** The facet filters: OR within a facet, AND across facets; an empty list selects nothing out, as in runSearch. */
function facetSql(request: SearchRequest): RawBuilder<boolean> {
  const parts: RawBuilder<unknown>[] = [];
  for (const [facet, values] of Object.entries(request.filter.facets ?? {}) as [FacetName, readonly string[]][]) {
    if (values.length === 0) continue;
    parts.push(sql`${sql.ref(FACET_COLUMN[facet])} = any(${[...values]}::text[])`);
  }
  return parts.length === 0 ? sql<boolean>`true` : sql<boolean>`${sql.join(parts, sql` and `)}`;
}

const ORDER: Record<Exclude<SearchRequest['sort'], 'bestmatch'>, string> = {
  newest: 'created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  oldest: 'created COLLATE "C" asc, id COLLATE "C" asc, key COLLATE "C" asc',
  version: 'version_index desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  'updated-desc': 'updated COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc',
  'updated-asc': 'updated COLLATE "C" asc, id COLLATE "C" asc, key COLLATE "C" asc',
};
/** Relevance, then as `newest`, as the domain's `compareFor` breaks ties. */
const BY_SCORE = `score desc, ${ORDER.newest}`;
/** The index's stamp: a constant, since the store's change stamp already covers its writes. */
const IN_STORE = 'in-store';

/**
 * `db` is the pool, or a transaction: the unit of work hands one in so a write and its documents
 * commit together (`withTransaction`).
 */
export function createPostgresSearchIndex<T>(
  handle: Kysely<T>,
): SearchIndex & { withTransaction<U>(trx: Kysely<U>): SearchIndex; analyze(): Promise<void>; rebuild(): Promise<SearchIndexRebuild> } {
  const db = handle as unknown as Db;
  const fuzzyKept: KeptExpansions = new Map();
  const index = (handle: Db): SearchIndex => ({
    async upsert(docs) {
      // The last document of a key wins, as one upsert after another would have it.
      const latest = [...new Map(docs.map((d) => [d.key, d])).values()];
      for (let i = 0; i < latest.length; i += UPSERT_BATCH) await upsertBatch(handle, latest.slice(i, i + UPSERT_BATCH));
    },
    async remove(keys) {
      if (keys.length > 0) await sql`delete from search_doc where key = any(${[...keys]}::text[])`.execute(handle);
    },
    async keysOfParent(parentId) {
      return (await sql<{ key: string }>`select key from search_doc where parent_id = ${parentId} order by key`.execute(handle)).rows.map((r) => r.key);
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      if (query.type === 'all' && request.bbox === null) return inSql(handle, request, null, null);
      const bit = query.type === 'exists' && request.bbox === null ? await holdsPath(handle, query.field) : null;
      // Some candidate undecided without phrases is undecided with them too: not asked twice.
      const undecided = bit !== null && (await someUndecided(handle, request, query, false));
      if (bit !== null && !undecided) return inSql(handle, request, bit, null, singleLexeme(query));
      if (query.type === 'all' && request.bbox !== null) {
        return keptFilter(request) ? listedInBox(handle, request, request.bbox) : inSql(handle, request, await inBox(handle, request, request.bbox), null);
      }
      // A listing's date range, or NOT range, from the kept counts of its buckets and their first rows.
      const bucketed = request.bbox === null && keptFilter(request) ? bucketedRange(query, request.filter.kinds, ownKeys(request)) : null;
      if (bucketed !== null) return bucketedAnswer(handle, request, bucketed);
      // Any other listing's range, or NOT range, from the range rows' listing columns alone.
      const listedRange = request.bbox === null && keptFilter(request) ? listedRangeDocuments(query, request.filter.kinds, ownKeys(request)) : null;
      if (listedRange !== null) return listedAnswer(handle, request, listedRange);
      const fuzzy = await expandFuzzy(handle, query, fuzzyKept);
      const exact = query.type === 'all' ? null : exactQuery(query, fuzzy);
      if (exact !== null && request.bbox === null && !undecided && !(await someUndecided(handle, request, query, exact.phrases))) {
        const rank = request.sort === 'bestmatch' ? await rankOf(handle, rankOperands(query, fuzzy)) : null;
        // A title query read from the title's words, a few dozen bytes in the row, rather than from
        // every candidate's vector (a weight needs the positions: the GIN index cannot say alone),
        // the words it requires narrowed by the index.
        const required = exact.titleOnly ? requiredWords(query) : null;
        const match =
          required !== null
            ? sql<boolean>`words @@ ${required}::tsquery and title_words @@ ${exact.match}::tsquery`
            : exact.positional
              ? phraseMatch(query, exact.match)
              : sql<boolean>`words @@ ${exact.match}::tsquery`;
        const words = singleLexeme(query) ?? (keptFilter(request) ? await wordsOf(handle, query, fuzzy) : null);
        return Array.isArray(words)
          ? inSql(handle, request, match, rank, null, true, { words, operands: rankOperands(query, fuzzy).length })
          : inSql(handle, request, match, rank, words);
      }
      // Ranges and fields with parts the vector decides: in SQL too, the ranges from their ordered
      // index, the fields from their vector.
      const paths = exact === null && request.bbox === null ? await fieldPathsOf(handle, query) : new Map();
      // A listing's field prefix or fuzzy word standing for one word is that word's field term.
      const fielded = exact === null && request.bbox === null && keptFilter(request) ? await asOneFieldWord(handle, query, fuzzy) : query;
      // Date ranges beside words, as the years and months the words' tsquery is ANDed with.
      const folded = exact === null && request.bbox === null ? await foldedRanges(handle, foldableRanges(fielded)) : new Map();
      const composed = exact === null && request.bbox === null ? composedQuery(fielded, fuzzy, (n) => fieldTsquery(n, paths, fuzzy), folded) : null;
      if (
        composed !== null &&
        !undecided &&
        !((composed.text || composed.fields) && (await someUndecided(handle, request, query, composed.phrases, composed.fields)))
      ) {
        const rank = request.sort === 'bestmatch' ? await rankOf(handle, rankOperands(fielded, fuzzy)) : null;
        const ranked = keptFilter(request) && request.sort === 'bestmatch' ? await rankedBesideRanges(handle, fielded, fuzzy, folded, request.filter.kinds) : null;
        return inSql(handle, request, composed.match, rank, keptField(fielded, paths, fuzzy, composed.match), composed.text || composed.fields, null,
          ranked === null ? null : { lexeme: ranked, titleOnly: false, ranked: { lexeme: ranked, within: composed.match } }, composed.counted,
          keptFilter(request) ? yearCounted(fielded, folded) : null);
      }
      const words = requiredWords(query);
      const where: RawBuilder<unknown>[] = [filterSql(request)];
      if (words !== null) where.push(sql`(words is null or words @@ ${words}::tsquery)`);
      const ranges = requiredRanges(query);
      if (ranges !== null) where.push(ranges);
      // With a box, the vector still settles the text of every document it holds whole.
      if (exact !== null) where.push(sql`(words is null or not positions_exact or words @@ ${exact.match}::tsquery)`);
      if (request.bbox !== null) where.push(sql`key in (select key from search_box where ${boxTest(request.bbox, '&&')})`);
      // Candidates a page at a time, each decided in short slices of the event loop: a query
      // that narrows nothing costs its own caller time, never the others, and only the matching
      // documents stay in memory.
      const matched: SearchDocument[] = [];
      const largeScores = new Map<SearchDocument, number>();
      let after = '';
      for (;;) {
        const page = await sql<{ key: string; doc: string }>`select key, doc from search_doc where ${sql.join(where, sql` and `)} and key collate "C" > ${after}
          order by key collate "C" limit ${CANDIDATE_PAGE}`.execute(handle);
        matched.push(...(await decideCandidates(page.rows, query, largeScores)));
        if (page.rows.length < CANDIDATE_PAGE) break;
        after = (page.rows[page.rows.length - 1] as { key: string }).key;
      }
      const scored = positiveTerms(query).length > 0;
      return runSearch(matched, request, () => true, scored ? (doc) => largeScores.get(doc) ?? scoreQuery(query, doc) : null);
    },
    async clear() {
      await sql`delete from search_doc`.execute(handle);
    },
    async check() {
      await sql`select 1 from search_doc limit 1`.execute(handle);
    },
    // Written in the store's own transactions, in the same database: the store's change stamp
    // (its current snapshot) moves with every write to the index, on any node, and a search never
    // sees part of one. Nothing of its own to add.
    stamp: () => IN_STORE,
  });
  return {
    ...index(db),
    withTransaction: <U>(trx: Kysely<U>) => index(trx as unknown as Db),
    /**
     * Empties every table of documents at once (TRUNCATE, rather than a delete row by row, each
     * row's counts taken away by the triggers), then writes the documents without keeping counts
     * and scores, and makes them once from every document at the end: kept per statement,
     * they took four fifths of PostgreSQL's time in a rebuild (folding most of it).
     */
    async rebuild() {
      await db.transaction().execute(async (trx) => {
        await sql`truncate search_doc, search_box, search_range, search_range_count, search_count, search_count_year, search_title, search_repeat`.execute(trx);
        await sql`insert into search_rebuild (started) values (${new Date().toISOString()})`.execute(trx);
      });
      const later = <R>(write: (trx: Db) => Promise<R>) =>
        db.transaction().execute(async (trx) => {
          await sql`select set_config(${KEPT_LATER}, 'on', true)`.execute(trx);
          return write(trx);
        });
      return {
        upsert: (docs) => later((trx) => index(trx).upsert(docs)),
        remove: (keys) => later((trx) => index(trx).remove(keys)),
        finish: () => db.transaction().execute((trx) => keepAll(trx)),
      };
    },
    /**
     * Gathers the planner's statistics on the index's tables. Called after every record was
     * projected at once (`krs reindex`, a node's first start on an empty index): until autovacuum
     * gets to the new rows, the planner takes the tables for nearly empty and, at 2,000 records,
     * answered an OR of three ranges in 1.4-1.8 s (a nested loop sorting the ranges' keys again
     * for each document) and `glacier OR` a range in 12-17 s, against 20-50 ms once analyzed.
     */
    async analyze() {
      await sql`analyze search_doc, search_range, search_range_count, search_box, search_path, search_vocab, search_count, search_count_year, search_title, search_repeat`.execute(db);
    },
  };
}

/**
 * A query holding a phrase of more than two words, decided on the vector (a two-word phrase is a
 * lexeme of its own, see `pairLexeme`, decided by the GIN index). Such a phrase needs each
 * candidate's positions, in its vector out of the row (a TOAST read each). The words and word
 * pairs the query requires narrow the candidates in the GIN index alone (a plain word needs no
 * recheck there), and a candidate whose title's words hold the query holds it (they are a part
 * of its vector, with every position of their lexemes): only the others read their vector. Not
 * under a NOT, where what the title's words hold says nothing of the vector.
 */
function phraseMatch(query: QueryNode, match: string): RawBuilder<boolean> {
  // Only asked when no candidate's positions were cut (`someUndecided`): every candidate holds its pairs.
  const required = requiredWords(query, true);
  if (required === null || hasNot(query)) return sql<boolean>`words @@ ${match}::tsquery`;
  return sql<boolean>`words @@ ${required}::tsquery and (title_words @@ ${match}::tsquery or words @@ ${match}::tsquery)`;
}

const hasNot = (node: QueryNode): boolean =>
  node.type === 'not' || ((node.type === 'and' || node.type === 'or') && node.children.some(hasNot));

/**
 * Whether a part's bounds (`search_box.b`) meet the query box (`&&`) or lie wholly inside it
 * (`<@`), both inclusive as the domain's `bboxIntersects` and `boxWithin` are; a box crossing
 * the antimeridian is its two sides.
 */
function boxTest([w, s, e, n]: BBox, operator: '&&' | '<@'): RawBuilder<boolean> {
  const parts = w <= e ? [[w, e]] : [[w, 180], [-180, e]];
  const tests = parts.map(([a, b]) => sql`b ${sql.raw(operator)} box(point(${a}::float8, ${s}::float8), point(${b}::float8, ${n}::float8))`);
  return sql<boolean>`(${sql.join(tests, sql` or `)})`;
}

/**
 * The documents the filter keeps whose geometry meets `box`, as SQL `runSearch`'s `meetsBox`
 * would choose them. A part whose bounds lie inside the box meets it whatever its shape (a
 * document's bounds are its shapes' bounds, part for part), so those documents are decided by the
 * GiST index alone; only the documents with a part across the box's edge and none inside it are
 * read and decided on their shapes, in slices as every evaluated candidate is.
 */
async function inBox(db: Db, request: SearchRequest, box: BBox): Promise<RawBuilder<boolean>> {
  // From the boxes alone, in one pass over what the GiST index finds: the keys with a part across
  // the edge and none inside (each candidate page looked them up again, with the search, per key).
  const across = (
    await sql<{ key: string }>`select key from search_box where ${boxTest(box, '&&')} group by key having not bool_or(${boxTest(box, '<@')})`.execute(db)
  ).rows.map((r) => r.key);
  const edge: string[] = [];
  for (let i = 0; i < across.length; i += CANDIDATE_PAGE) {
    const page = await sql<{ key: string; doc: string }>`select key, doc from search_doc
      where ${filterSql(request)} and key = any(${across.slice(i, i + CANDIDATE_PAGE)}::text[])`.execute(db);
    edge.push(...(await evaluateInSlices(page.rows, (r) => (meetsBox(JSON.parse(r.doc) as SearchDocument, box) ? r.key : null))));
  }
  return sql<boolean>`key in (select key from search_box where ${boxTest(box, '<@')} union all select unnest(${edge}::text[]))`;
}

/**
 * Whether a part's bounds, in search_box's columns, meet the query box or lie inside it, in plain
 * float8 comparisons: the domain's `bboxIntersects` and `boxWithin` exactly. (The box operators
 * compare with a tolerance of 1e-10; they narrow in the GiST index, these decide.)
 */
function exactBoxTest(box: BBox, test: 'meets' | 'inside'): RawBuilder<boolean> {
  const [bw, bs, be, bn] = [sql`(b[1])[0]`, sql`(b[1])[1]`, sql`(b[0])[0]`, sql`(b[0])[1]`];
  const tests = splitAtAntimeridian(box).map(([w, s, e, n]) =>
    test === 'meets'
      ? sql`(${bs} <= ${n}::float8 and ${bn} >= ${s}::float8 and ${bw} <= ${e}::float8 and ${be} >= ${w}::float8)`
      : sql`(${bw} >= ${w}::float8 and ${be} <= ${e}::float8 and ${bs} >= ${s}::float8 and ${bn} <= ${n}::float8)`,
  );
  return sql<boolean>`(${sql.join(tests, sql` or `)})`;
}

/**
 * A listing's box without query text, from search_box's GiST index alone (its leaves hold every
 * column read here: an index-only scan of the parts near the box), not from each match's row of
 * search_doc: the listed parts, and a signed-in reader's own documents' (`ownKeys`, found first). A document meets the box when a part's bounds lie inside it, or meet it and
 * are the part itself (`whole`: a point, a rectangle); only the documents with neither, a part of
 * another shape across the box's edge, are read and decided on their shapes.
 */
async function listedInBox(db: Db, request: SearchRequest, box: BBox): Promise<SearchResult> {
  const own = ownKeys(request);
  const parts = sql`select ${listingColumns()}, whole or ${exactBoxTest(box, 'inside')} as decided from search_box
    where ${boxTest(box, '&&')} and ${exactBoxTest(box, 'meets')} and ${own === null ? sql`listed` : sql`(listed or key in (${own}))`}
    and kind = any(${[...request.filter.kinds]}::text[])`;
  const documents = sql`select key collate "C" as key, ${LISTING_AGGREGATES}, bool_or(decided) as decided from (${parts}) p group by key collate "C"`;
  return listedAnswer(db, request, documents, async (handle, across) => {
    const edge: string[] = [];
    for (let i = 0; i < across.length; i += CANDIDATE_PAGE) {
      const page = await sql<{ key: string; doc: string }>`select key, doc from search_doc where key = any(${across.slice(i, i + CANDIDATE_PAGE)}::text[])`.execute(handle);
      edge.push(...(await evaluateInSlices(page.rows, (r) => (meetsBox(JSON.parse(r.doc) as SearchDocument, box) ? r.key : null))));
    }
    return edge;
  });
}

/**
 * A public listing's answer from its candidates' listing columns (`listingColumns`, one row per
 * document, saying whether it is `decided` a match), read from beside their index entries
 * (search_box's parts, search_range's values) so that no match's row of search_doc is read.
 * Counts and page come from one statement over the documents, read once; the undecided come back
 * with it, left out, and only when there are some is `decide` asked which of them match, and the
 * answer asked again with those.
 */
async function listedAnswer(
  db: Db,
  request: SearchRequest,
  documents: RawBuilder<unknown>,
  decide: (handle: Db, undecided: string[]) => Promise<string[]> = async () => [],
): Promise<SearchResult> {
  const { grouped, labelled, facets, start, order } = listingShape(request);
  const answerWith = async (handle: Db, edge: readonly string[]) =>
    (
      await sql<{ counts: FacetGroup[]; page: PageRow[]; across: string[] }>`with g as materialized (
          select *, decided or key = any(${[...edge]}::text[]) as matched from (${documents}) d
        ), counts as (
          select ${sql.join([...facets, labelled ? sql`min(resource_type_label) as label` : sql`null as label`, sql`count(*) as n`])} from g where matched
          ${grouped.length === 0 ? sql`` : sql`group by ${sql.join(grouped.map((facet) => sql.ref(FACET_COLUMN[facet])))}`}
        ), page as (
          select key, id, kind, created, updated, version_index from g where matched and ${facetSql(request)} order by ${order} limit ${request.size} offset ${start}
        )
        select (select coalesce(json_agg(c order by c.label), '[]') from counts c) as counts,
          (select coalesce(json_agg(json_build_object('id', id, 'kind', kind, 'state', 'published') order by ${order}), '[]') from page) as page,
          (select coalesce(json_agg(key), '[]') from g where not decided) as across`.execute(handle)
    ).rows[0] ?? { counts: [], page: [], across: [] };
  const run = async (handle: Db) => {
    const first = await answerWith(handle, []);
    if (first.across.length === 0) return first;
    const edge = await decide(handle, first.across);
    return edge.length === 0 ? first : answerWith(handle, edge);
  };
  const answer = await inListingTransaction(db, run);
  return resultOf(request, answer.counts, answer.page);
}

/**
 * Runs a listing's statements in a transaction of its own (or the caller's) without parallel
 * workers, whose start cost more than the few ms they would share, and in 16 MB of working memory
 * (the documents of a range's 38,000 matches at 100k spilled to a temporary file at 4).
 */
async function inListingTransaction<R>(db: Db, run: (handle: Db) => Promise<R>): Promise<R> {
  if (db.isTransaction) return run(db);
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('max_parallel_workers_per_gather', '0', true), set_config('work_mem', '16MB', true)`.execute(trx);
    return run(trx);
  });
}

/** What a listing's counting and paging statement groups by, and its page's place and order. */
function listingShape(request: SearchRequest) {
  const filtered = (Object.entries(request.filter.facets ?? {}) as [FacetName, readonly string[]][]).filter(([, values]) => values.length > 0).map(([facet]) => facet);
  const grouped = [...new Set<FacetName>([...request.aggregations, ...filtered])];
  return {
    grouped,
    labelled: request.aggregations.includes('resource_type'),
    facets: grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`),
    start: (request.page - 1) * request.size,
    order: sql.raw(ORDER[request.sort === 'bestmatch' ? 'newest' : request.sort]),
  };
}

/**
 * A listing's range from its buckets (postgres-range-buckets.ts): the whole buckets' kept counts
 * plus the documents read from their rows, grouped as the counting statement groups; the page the
 * first of each whole bucket's first `end` rows and of those documents. No match is undecided.
 */
async function bucketedAnswer(db: Db, request: SearchRequest, range: BucketedRange): Promise<SearchResult> {
  const { grouped, labelled, facets, start, order } = listingShape(request);
  const statement = sql<{ counts: FacetGroup[]; page: PageRow[] }>`with g as materialized (${range.documents}),
    counts as (
      select ${sql.join([...facets, labelled ? sql`min(resource_type_label) as label` : sql`null as label`, sql`sum(n) as n`])} from (
        ${range.counted}
        union all select kind, resource_type, resource_type_label, access_status, count(*) from g group by kind, resource_type, resource_type_label, access_status) c
      ${grouped.length === 0 ? sql`` : sql`group by ${sql.join(grouped.map((facet) => sql.ref(FACET_COLUMN[facet])))}`}
    ), page as (
      select key, id, kind, created, updated, version_index from (
        ${range.pages(order, facetSql(request), start + request.size)}
        union all select key, id, kind, created, updated, version_index, resource_type, access_status from g where ${facetSql(request)}) m
      order by ${order} limit ${request.size} offset ${start}
    )
    select (select coalesce(json_agg(c order by c.label), '[]') from counts c) as counts,
      (select coalesce(json_agg(json_build_object('id', id, 'kind', kind, 'state', 'published') order by ${order}), '[]') from page) as page`;
  const answer = await inListingTransaction(db, async (handle) => (await statement.execute(handle)).rows[0] ?? { counts: [], page: [] });
  return resultOf(request, answer.counts, answer.page);
}

/**
 * Whether part `i` of a document meets a box exactly when its bounds do: a point, a part kept as
 * its box, a polygon of one ring running along its bounds' four sides (a box its bounds meet
 * either touches that ring or lies inside it, and either way meets it, as `shapeIntersects` has
 * it), or any part of a document without shapes (whose bounds are taken as exact).
 */
function partIsBounds(doc: SearchDocument, i: number): boolean {
  if (doc.shapes === undefined) return true;
  const shape = doc.shapes[i];
  const bounds = doc.bounds[i];
  if (shape === undefined || bounds === undefined || doc.shapes.length !== doc.bounds.length) return false;
  const own = shapeBounds(shape);
  if (own.some((v, k) => v !== bounds[k])) return false;
  if (shape.type === 'point' || shape.type === 'box') return true;
  return shape.type === 'polygon' && shape.rings.length === 1 && isRectangle(shape, own);
}

/** Whether a polygon's one ring is its bounds' four corners, each side along an axis (closed or not). */
function isRectangle(shape: Extract<Shape, { type: 'polygon' }>, [w, s, e, n]: BBox): boolean {
  const ring = shape.rings[0] ?? [];
  let count = ring.length / 2;
  if (count === 5 && ring[0] === ring[8] && ring[1] === ring[9]) count = 4;
  if (count !== 4 || !(w < e && s < n)) return false;
  const corners = new Set<string>();
  for (let i = 0; i < 4; i++) {
    const [x, y] = [ring[2 * i] as number, ring[2 * i + 1] as number];
    const [nx, ny] = [ring[(2 * i + 2) % 8] as number, ring[(2 * i + 3) % 8] as number];
    if ((x !== w && x !== e) || (y !== s && y !== n) || (x === nx) === (y === ny)) return false;
    corners.add(`${x},${y}`);
  }
  return corners.size === 4;
}

/**
 * Makes `search_count`, `search_count_year`, `search_title` and `search_repeat` again from every document, as the
 * triggers would have from writing them one by one (the same statements, each group's count in
 * one row), and ends any rebuild's wait for them. Writers of documents wait until it commits; searches do not.
 */
async function keepAll(trx: Db, unlessCounting = false): Promise<void> {
  // SHARE ROW EXCLUSIVE: writers of documents wait, as does another count; searches do not.
  await sql.raw(`lock table search_doc in share row exclusive mode${unlessCounting ? ' nowait' : ''}`).execute(trx);
  await sql`delete from search_count`.execute(trx);
  await sql`delete from search_title`.execute(trx);
  await sql`delete from search_repeat`.execute(trx);
  await sql`delete from search_count_year`.execute(trx);
  await sql.raw(`DO $keep$ DECLARE touched text[]; ${YEAR_TOUCHED} BEGIN ${keptStatements(`SELECT ${KEPT_COLUMNS}, 1 AS sign FROM search_doc WHERE ${COUNTED}`)} END $keep$`).execute(trx);
  await sql`delete from search_rebuild`.execute(trx);
}

/** Documents written per statement: a rebuild writes thousands, a unit of work a few. */
const UPSERT_BATCH = 200;

async function upsertBatch(db: Db, docs: readonly SearchDocument[]): Promise<void> {
  const vocabulary = new Set<string>();
  // A large record's words are made in slices (domain turns/large-values.ts); the others at once.
  const vectors: (DocumentWords | null)[] = [];
  const texts: string[] = [];
  for (const doc of docs) {
    const large = isLarge(doc.body['metadata']);
    vectors.push(large ? await documentWordsInTurns(doc.body, largeValueSlices()) : documentWords(doc.body));
    texts.push(await jsonText(doc, large));
  }
  for (const words of vectors) for (const w of words?.words ?? []) vocabulary.add(w);
  const pathIds = await pathIdsOf(db, new Set(vectors.flatMap((words) => words?.paths ?? [])));
  const rows = docs.map((doc, i) => {
    const words = vectors[i] ?? null;
    const fieldWords = words === null ? null : fieldVector(words.fields, pathIds);
    return sql`(${doc.key}, ${doc.id}, ${doc.kind}, ${doc.state}, ${doc.parentId}, ${doc.ownerId}, ${doc.versionIndex}, ${doc.isLatest},
      ${doc.inUserListing}, ${doc.isUserLatest}, ${doc.isPublic}, ${doc.readers}::text[], ${doc.created}, ${doc.updated},
      ${doc.resourceType?.id ?? null}, ${doc.resourceType?.label ?? null}, ${doc.accessStatus},
      ${words === null ? null : sql`${words.vector}::tsvector`}, ${words?.positionsExact ?? false}, ${words?.lexemes ?? null}::integer,
      ${words === null ? null : sql`${pathBits(words.paths, pathIds)}::bit varying`}, ${words === null ? null : sql`${words.titleWords}::tsvector`},
      ${words?.repeats == null ? null : sql`${words.repeats}::tsvector`}, ${fieldWords === null ? null : sql`${fieldWords}::tsvector`}, ${texts[i]})`;
  });
  await sql`insert into search_doc (key, id, kind, state, parent_id, owner_id, version_index, is_latest, in_user_listing, is_user_latest,
      is_public, readers, created, updated, resource_type, resource_type_label, access_status, words, positions_exact, word_count, path_bits, title_words, repeats, field_words, doc)
    values ${sql.join(rows)}
    on conflict (key) do update set id = excluded.id, kind = excluded.kind, state = excluded.state, parent_id = excluded.parent_id,
      owner_id = excluded.owner_id, version_index = excluded.version_index, is_latest = excluded.is_latest,
      in_user_listing = excluded.in_user_listing, is_user_latest = excluded.is_user_latest, is_public = excluded.is_public,
      readers = excluded.readers, created = excluded.created, updated = excluded.updated, resource_type = excluded.resource_type,
      resource_type_label = excluded.resource_type_label, access_status = excluded.access_status, words = excluded.words,
      positions_exact = excluded.positions_exact, word_count = excluded.word_count, path_bits = excluded.path_bits, title_words = excluded.title_words, repeats = excluded.repeats, field_words = excluded.field_words, doc = excluded.doc`.execute(db);
  // Sorted, so two transactions adding the same words take their locks in the same order.
  if (vocabulary.size > 0) await sql`insert into search_vocab (word) select unnest(${[...vocabulary].sort(byCodeUnits)}::text[]) on conflict do nothing`.execute(db);
  await sql`delete from search_box where key = any(${docs.map((d) => d.key)}::text[])`.execute(db);
  const boxes = docs.flatMap((doc) => {
    const listed = doc.state === 'published' && doc.isLatest && doc.isPublic;
    return doc.bounds.map(
      (bounds, i) => sql`(${doc.key}, box(point(${bounds[0]}::float8, ${bounds[1]}::float8), point(${bounds[2]}::float8, ${bounds[3]}::float8)),
        ${partIsBounds(doc, i)}, ${listed}, ${doc.kind}, ${doc.resourceType?.id ?? null}, ${doc.resourceType?.label ?? null}, ${doc.accessStatus},
        ${doc.created}, ${doc.updated}, ${doc.versionIndex}, ${doc.id})`,
    );
  });
  for (let i = 0; i < boxes.length; i += 1000) {
    await sql`insert into search_box (key, b, whole, listed, kind, resource_type, resource_type_label, access_status, created, updated, version_index, id)
      values ${sql.join(boxes.slice(i, i + 1000))}`.execute(db);
  }
  await writeRanges(db, docs);
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The numbers of field paths, adding those the dictionary lacks. Added sorted, so two
 * transactions adding the same paths take their locks in the same order; read again in a
 * statement of its own, which sees the numbers another transaction added while this one waited.
 */
async function pathIdsOf(db: Db, paths: ReadonlySet<string>): Promise<Map<string, number>> {
  if (paths.size === 0) return new Map();
  const list = [...paths].sort(byCodeUnits);
  const read = async () => (await sql<{ id: number; path: string }>`select id, path from search_path where path = any(${list}::text[])`.execute(db)).rows;
  let rows = await read();
  if (rows.length < list.length) {
    await sql`insert into search_path (path) select unnest(${list}::text[]) on conflict do nothing`.execute(db);
    rows = await read();
  }
  return new Map(rows.map((r) => [r.path, r.id]));
}

/**
 * Paths numbered past this have no bit: `_exists_` on them is decided by the path's lexeme in the
 * vector, as every `_exists_` was before. Drafts keep keys the metadata does not know (with an
 * issue), so anyone signed in can number new paths, and without a bound one document's bits
 * could outgrow the covering index's largest entry (about 2.7 kB) and fail its every write.
 */
const MAX_PATH_BIT = 4096;

/** A document's paths as bits: bit n (from 0, left to right) set when it holds the path numbered n (up to MAX_PATH_BIT). */
function pathBits(paths: readonly string[], ids: ReadonlyMap<string, number>): string {
  const numbers = paths.flatMap((path) => {
    const id = ids.get(path);
    if (id === undefined) throw new Error(`search index: no number for the field path ${JSON.stringify(path)}`);
    return id <= MAX_PATH_BIT ? [id] : [];
  });
  const bits = new Array<string>(Math.max(0, ...numbers) + 1).fill('0');
  for (const n of numbers) bits[n] = '1';
  return bits.join('');
}

/**
 * `_exists_:path` as a test of one bit, exact: the number is read first, so the planner sees a
 * constant; a path never indexed holds in no document. A document written before the path had a
 * number has a shorter bit string, whose missing bits are unset (`substring` past the end is empty).
 * Null for a path numbered past MAX_PATH_BIT, which has no bit.
 */
async function holdsPath(db: Db, path: string): Promise<RawBuilder<boolean> | null> {
  const id = (await sql<{ id: number }>`select id from search_path where path = ${path}`.execute(db)).rows[0]?.id;
  if (id === undefined) return sql<boolean>`false`;
  return id <= MAX_PATH_BIT ? sql<boolean>`substring(path_bits from ${id + 1}::integer for 1) = B'1'` : null;
}

/**
 * The words of the vocabulary a query of one unfielded prefix or fuzzy word stands for: the one
 * lexeme when there is one (`defor*`, when `deforestation` is the only word ever indexed starting
 * so), else the words (up to MAX_KEPT_WORDS), else null. The query then matches what those words
 * match, as every word of a document with a vector is in the vocabulary (asked only when every
 * candidate has one) and the vector decides a fuzzy word by its expansions: the counts and title
 * scores the writes keep per word answer it (one word: scored as the word, one lexeme matched
 * either way; several: see postgres-kept-words.ts) without visiting each of its matches.
 */
async function wordsOf(db: Db, query: QueryNode, fuzzy: FuzzyExpansions): Promise<SingleLexeme | string[] | null> {
  if (query.type !== 'term' || query.field !== null) return null;
  const words = await standsFor(db, query, fuzzy);
  const [only] = words ?? [];
  if (words?.length === 1 && only !== undefined) return singleLexeme({ type: 'term', field: null, value: only, match: 'exact' });
  return words !== null && words.length > 1 && words.length <= MAX_KEPT_WORDS ? words : null;
}

/**
 * The words of the vocabulary a prefix or fuzzy term of one word stands for (up to
 * MAX_KEPT_WORDS + 1 of a prefix's), or null for another query. Every word any document holds is
 * in the vocabulary: a term standing for one word matches what that word does.
 */
async function standsFor(db: Db, query: QueryNode, fuzzy: FuzzyExpansions): Promise<string[] | null> {
  if (query.type !== 'term' || query.match === 'exact') return null;
  const [word, ...more] = tokenize(query.value);
  if (word === undefined || more.length > 0) return null;
  return query.match === 'fuzzy'
    ? [...(fuzzy.get(word) ?? [])]
    : (await sql<{ word: string }>`select word from search_vocab where word >= ${word} and word < ${word} || chr(1114111) limit ${MAX_KEPT_WORDS + 1}`.execute(db)).rows.map((r) => r.word);
}

/**
 * A field's prefix or fuzzy term standing for one word (`standsFor`) as that word's term, which
 * the kept counts answer (`keptField`); else the query as it is.
 */
async function asOneFieldWord(db: Db, query: QueryNode, fuzzy: FuzzyExpansions): Promise<QueryNode> {
  if (query.type !== 'term' || query.field === null || query.match === 'exact') return query;
  const words = await standsFor(db, query, fuzzy);
  const [only] = words ?? [];
  return words?.length === 1 && only !== undefined ? { ...query, value: only, match: 'exact' } : query;
}

/**
 * Whether a document the filter keeps and the query may match is one SQL cannot decide: one with
 * no vector (its words past a tsvector's size), or, for a phrase or a field other than the title,
 * one whose positions were cut (it has no field vector). Such documents are rare (records of tens
 * of thousands of words); when one is a candidate, the whole query goes to the evaluator.
 */
async function someUndecided(db: Db, request: SearchRequest, query: QueryNode, phrases: boolean, fields = false): Promise<boolean> {
  const required = requiredWords(query);
  const holds = required === null ? sql`true` : sql`words @@ ${required}::tsquery`;
  const cut = phrases ? holds : sql`false`;
  const found = fields
    ? await sql`select 1 from search_doc where (words is null or not positions_exact or field_words is null) and ${filterSql(request)}
        and (words is null or ${holds}) limit 1`.execute(db)
    : await sql`select 1 from search_doc where (words is null or not positions_exact) and ${filterSql(request)}
        and (words is null or ${cut}) limit 1`.execute(db);
  return found.rows.length > 0;
}

/**
 * What `bestmatch` ranks by: the operands as tsquery text, and, when scores can be bounded without
 * each match's vector, each operand with the most lexemes it may stand for in one document.
 */
interface Rank {
  query: string;
  /** Null when scores are not bounded: every match is scored. */
  bound: { operands: readonly { text: string; lexemes: number }[]; size: number } | null;
}

/**
 * The most lexemes the rank operands may stand for in one document for scores to be bounded: past
 * it, the words outside a title may add more than one title word does (0.61 at least), and the
 * bound would leave nearly every match to be ranked (a fuzzy word's 50 expansions).
 */
const MAX_BOUNDED_WORDS = 5;

/**
 * The rank query of `operands`, and what bounds a score: `ts_rank` adds for each matching lexeme
 * the weights of its positions over the squares of their ranks (1, 1/4, 1/9, ...; title positions
 * come first, weight 1, the others 0.1) over pi^2/6, and divides by the operands' number; a lexeme
 * with no title position so adds less than 0.1. A plain operand is one lexeme; a prefix one at
 * most the vocabulary's words with that prefix (counted up to MAX_BOUNDED_WORDS + 1). No bound
 * when a word is both a plain and a prefix operand (PostgreSQL counts them as one).
 */
async function rankOf(db: Db, operands: readonly RankOperand[]): Promise<Rank | null> {
  if (operands.length === 0) return null;
  const query = rankText(operands);
  if (new Set(operands.map((o) => o.word)).size < operands.length) return { query, bound: null };
  let total = 0;
  const bounded: { text: string; lexemes: number }[] = [];
  for (const operand of operands) {
    const lexemes = operand.prefix
      ? Number(
          (
            await sql<{ n: string }>`select count(*) as n from (select 1 from search_vocab where word >= ${operand.word}
              and word < ${operand.word} || chr(1114111) limit ${MAX_BOUNDED_WORDS + 1}) v`.execute(db)
          ).rows[0]?.n ?? MAX_BOUNDED_WORDS + 1,
        )
      : 1;
    total += lexemes;
    if (total > MAX_BOUNDED_WORDS) return { query, bound: null };
    bounded.push({ text: rankText([operand]), lexemes });
  }
  return { query, bound: { operands: bounded, size: operands.length } };
}

/** A group of the matches by the facet columns a request needs, as the counting statement returns it. */
type FacetGroup = Partial<Record<FacetName, string | null>> & { label: string | null; n: string | number };

/** Whether a group's documents pass the facet filters, as `facetSql` decides for each row. */
function passesFacets(group: FacetGroup, request: SearchRequest): boolean {
  for (const [facet, values] of Object.entries(request.filter.facets ?? {}) as [FacetName, readonly string[]][]) {
    if (values.length === 0) continue;
    const key = group[facet];
    if (key === null || key === undefined || !values.includes(key)) return false;
  }
  return true;
}

type PageRow = { id: string; kind: SearchDocument['kind']; state: SearchDocument['state'] };

/**
 * Whether a rank is of one lexeme (a word, or a pair; not a prefix, which may stand for several),
 * which every match holds when the query is that lexeme: its score is then exact from the row
 * (`rowScoreSql`).
 */
const oneWordRank = (rank: Rank): boolean => {
  const [operand, ...more] = rank.bound?.operands ?? [];
  return operand !== undefined && more.length === 0 && operand.lexemes === 1 && !operand.text.endsWith(':*');
};

/**
 * `scoreSql` of a one-lexeme rank on a match holding the lexeme, from its row rather than its
 * vector (out of the row, a read of a few pages each): the lexeme's part of the rank is
 * `title_words`' when it is a title word, `repeats`' when it is held at several positions, and
 * otherwise the part of one position without weight, the same for every lexeme. The same float4
 * `ts_rank` computes, divided the same way: the same scores and ties. A document whose `repeats`
 * was too long to keep is scored from its vector.
 */
const rowScoreSql = (query: string) => sql`(case when repeats is null then ts_rank(words, ${query}::tsquery, 0)
  when title_words @@ ${query}::tsquery then ts_rank(title_words, ${query}::tsquery, 0)
  when repeats @@ ${query}::tsquery then ts_rank(repeats, ${query}::tsquery, 0)
  else ts_rank('x:1'::tsvector, 'x'::tsquery, 0) end) / sqrt(1 + word_count / 50.0::float8)`;

/**
 * The relevance of a match: its words' weights (title A, others D), damped by its length as the
 * domain's score is. The damping in float8, as JavaScript computes it (`1 + n / 50` rounded, then
 * its root), wherever the engine scores (the kept title scores too): in numeric, the root alone
 * cost about 0.5 us a row, 8 of the 34 ms of CPU ranking a creator's 14 738 matches at 100k.
 */
const scoreSql = (query: string) => sql`ts_rank(words, ${query}::tsquery, 0) / sqrt(1 + word_count / 50.0::float8)`;

/** The page of the matches `where` keeps, in the request's order, every match scored (a bounded rank: `boundedSql`). */
function pageSql(request: SearchRequest, where: RawBuilder<unknown>, rank: Rank | null): RawBuilder<PageRow> {
  const start = (request.page - 1) * request.size;
  if (request.sort !== 'bestmatch' || rank === null) {
    return sql<PageRow>`select id, kind, state from search_doc where ${where} and ${facetSql(request)}
      order by ${sql.raw(ORDER[request.sort === 'bestmatch' ? 'newest' : request.sort])} limit ${request.size} offset ${start}`;
  }
  return sql<PageRow>`select id, kind, state, ${scoreSql(rank.query)} as score from search_doc where ${where} and ${facetSql(request)}
    order by ${sql.raw(BY_SCORE)} limit ${request.size} offset ${start}`;
}

/**
 * The counts and the page of a ranked request whose scores are bounded (`Rank.bound`), in one
 * statement over the matches, each read once: the groups as `inSql`'s counting statement makes them, and the page.
 *
 * Most vectors are stored out of line, and scoring a match reads its vector: three pages or so.
 * So each match is first bounded from its row alone. Its title's words (`title_words`, with all
 * their positions) give the exact part of its score their lexemes make (`t`, at least the score
 * before damping); the lexemes outside the title each add less than 0.1 over the operands'
 * number (see `rankOf`), and there are at most the operands' lexemes less one per operand found
 * in the title. A match whose most is below the least of the page's last place (the page-end-th
 * largest least) can neither reach the page nor tie with it. The others (the matches a title
 * holds the words of, and their ties) are scored exactly from their vectors (fetched by row
 * address) and ordered as before: the same scores, ties and order. The margins (1e-4) are far
 * wider than float4's rounding of sums of at most 256 terms, and than the float8 square root the
 * bounds damp by.
 */
function boundedSql(request: SearchRequest, where: RawBuilder<unknown>, rank: Rank & { bound: NonNullable<Rank['bound']> }, grouped: readonly FacetName[], labelled: boolean) {
  const { operands, size } = rank.bound;
  const lexemes = operands.reduce((sum, o) => sum + o.lexemes, 0);
  const inTitle = sql.join(operands.map((o) => sql`(title_words @@ ${o.text}::tsquery)::int`), sql` + `);
  const start = (request.page - 1) * request.size;
  const end = request.page * request.size;
  const facets = grouped.map((facet) => sql.ref(facet));
  return sql<{ counts: FacetGroup[]; page: PageRow[] }>`with m as materialized (
      select tid, ${sql.join([...facets, sql`label`, sql`kept`])}, t / s as lo, (t * 1.0001 + rest + 1e-6) / s as hi from (
        select ${sql.join([sql`ctid as tid`, ...grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`)])},
          ${labelled ? sql`resource_type_label` : sql`null::text`} as label, ${facetSql(request)} as kept,
          ts_rank(title_words, ${rank.query}::tsquery, 0) as t, 0.1 * (${lexemes}::int - (${inTitle})) / ${size}::float8 as rest,
          sqrt(1 + word_count / 50.0::float8) as s
        from search_doc where ${where} offset 0) bounded
    ), counts as (
      select ${sql.join([...facets, sql`min(label) as label`, sql`count(*) as n`])} from m
      ${grouped.length === 0 ? sql`` : sql`group by ${sql.join(facets)}`}
    ), least_kept as (
      select coalesce((select lo from m where kept order by lo desc limit 1 offset ${end - 1}), 0) * 0.9999 as theta
    ), page as (
      select d.* from m, lateral (select key, id, kind, state, created, ${scoreSql(rank.query)} as score from search_doc d where d.ctid = m.tid) d
      where m.kept and m.hi >= (select theta from least_kept)
      order by ${sql.raw(BY_SCORE)} limit ${request.size} offset ${start}
    )
    select (select coalesce(json_agg(c order by c.label), '[]') from counts c) as counts,
      (select coalesce(json_agg(json_build_object('id', id, 'kind', kind, 'state', state) order by ${sql.raw(BY_SCORE)}), '[]') from page) as page`;
}

/**
 * Whether the filter keeps the kept documents (`COUNTED`) of some kinds, what anyone may list
 * publicly, and for a signed-in reader also the published latest ones they may read that are not
 * public (`ownSql`), which the kept counts and title scores leave out.
 */
const keptFilter = (request: SearchRequest): boolean => {
  const f = request.filter;
  return f.published === true && f.latestOnly === true && f.userListing === undefined && f.parentId === undefined && f.ids === undefined;
};


/**
 * The matches of a kept filter (`keptFilter`) that the kept counts and title scores leave out:
 * for a signed-in reader, the published latest documents of the request's kinds that are not
 * public and that they may read (their restricted records, those shared with them), found in
 * `search_doc_readers`; null for an anonymous one. The public ones are never among them, so
 * adding the two counts none twice.
 */
function ownSql(request: SearchRequest, match: RawBuilder<boolean>): RawBuilder<boolean> | null {
  const f = request.filter;
  if (f.viewerId === null) return null;
  return sql<boolean>`not is_public and readers @> array[${f.viewerId}]::text[] and state = 'published' and is_latest
    and kind = any(${[...f.kinds]}::text[]) and ${match}`;
}

/**
 * The keys of a kept filter's documents that search_box and search_range do not mark `listed`: a
 * signed-in reader's own (`ownSql`); null for an anonymous reader, whose documents are the listed.
 */
function ownKeys(request: SearchRequest): RawBuilder<unknown> | null {
  const own = ownSql(request, sql<boolean>`true`);
  return own === null ? null : sql`select key from search_doc where ${own}`;
}

/**
 * The documents a kept filter (`keptFilter`) keeps that the kept counts leave out (not `COUNTED`):
 * a signed-in reader's own (`ownSql`), and public ones without a vector (past its size), which
 * `search_doc_inexact` finds. Neither is the other.
 */
function uncountedSql(request: SearchRequest): RawBuilder<boolean> {
  const vectorless = sql<boolean>`(words is null or not positions_exact or field_words is null) and words is null and is_public and ${filterSql(request)}`;
  const own = ownSql(request, sql<boolean>`true`);
  return own === null ? vectorless : sql<boolean>`((${own}) or (${vectorless}))`;
}

/**
 * The groups of a one-lexeme query's matches, as the counting statement makes them, from the
 * counts the writes keep (`search_count`): a few rows per facet group whatever the matches. A
 * signed-in reader's own matches (`own`) are grouped from their rows and added to them, group by
 * group: the sums and least labels every match's grouping would give.
 */
function keptCountsSql(request: SearchRequest, single: SingleLexeme, grouped: readonly FacetName[], labelled: boolean, own: RawBuilder<boolean> | null): RawBuilder<FacetGroup> {
  const facets = grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`);
  return sql<FacetGroup>`select ${sql.join([...facets, labelled ? sql`min(resource_type_label) as label` : sql`null as label`, sql`sum(n) as n`])}
    from (select kind, resource_type, resource_type_label, access_status, sum(n) as n from search_count
      where lexeme = ${single.lexeme} ${single.titleOnly ? sql`and in_title` : sql``} and kind = any(${[...request.filter.kinds]}::text[])
      group by kind, resource_type, resource_type_label, access_status having sum(n) > 0
      ${own === null ? sql`` : sql`union all select kind, resource_type, resource_type_label, access_status, count(*) as n from search_doc where ${own}
        group by kind, resource_type, resource_type_label, access_status`}) g
    ${grouped.length === 0 ? sql`` : sql`group by ${sql.join(grouped.map((facet) => sql.ref(FACET_COLUMN[facet])))}`}
    ${labelled ? sql`order by label` : sql``}`;
}

/**
 * A query of one lexeme, counted from `search_count`. `ranked`, for a field query: the lexeme of
 * the main vector its page ranks by (a word, or a pair for a two-word phrase), whose kept title
 * scores give the page among the documents `within` keeps.
 */
type KeptLexeme = SingleLexeme & { ranked?: { lexeme: string; within: RawBuilder<boolean> } };

/**
 * The least share of the listed documents a listing's folded date ranges keep, by their
 * buckets' kept counts, for the word's best kept scores to be walked for its page: about one
 * entry in four then matches, and the walk's KEPT_SCORES_READ entries a page's end fill it.
 * Below it, every match is scored as before (a walk that fails costs about 20 us an entry).
 */
const WALKED_SHARE = 0.25;

/**
 * The one lexeme of `word AND range...` (an unfielded word or two-word phrase, every other part
 * a date range folded into the vector: `glacier AND metadata.publication_date:[2022-06 TO *]`),
 * which every match holds and the page ranks by, when the ranges keep at least WALKED_SHARE of
 * the listed documents (their buckets' kept counts, over every listed document's); else null.
 * Its page is then the word's best kept scores that match (`keptScoresPage`), though its counts
 * are not the word's.
 */
async function rankedBesideRanges(db: Db, query: QueryNode, fuzzy: FuzzyExpansions, folded: FoldedRanges, kinds: readonly string[]): Promise<string | null> {
  if (query.type !== 'and') return null;
  const [operand, ...more] = rankOperands(query, fuzzy);
  if (operand === undefined || operand.prefix || more.length > 0) return null;
  const ranges = query.children.filter((child) => folded.has(child));
  const words = query.children.filter((child) => !folded.has(child));
  const [word, ...others] = words;
  const one = word === undefined ? null : singleLexeme(word);
  if (others.length > 0 || ranges.length === 0 || one === null || one.titleOnly || one.lexeme !== operand.word) return null;
  const lexemes = [EVERY_LISTED, ...ranges.flatMap((range) => folded.get(range) ?? [])];
  const counted = new Map(
    (
      await sql<{ lexeme: string; n: string }>`select lexeme, sum(n) as n from search_count where lexeme = any(${lexemes}::text[])
        and kind = any(${[...kinds]}::text[]) group by lexeme`.execute(db)
    ).rows.map((r) => [r.lexeme, Number(r.n)]),
  );
  const every = counted.get(EVERY_LISTED) ?? 0;
  let share = 1;
  for (const range of ranges) share *= (folded.get(range) ?? []).reduce((sum, l) => sum + (counted.get(l) ?? 0), 0) / Math.max(every, 1);
  return share >= WALKED_SHARE ? operand.word : null;
}

/** A field query of one lexeme of `field_words` (`singleFieldLexeme`) as the counts and title scores the writes keep answer it, or null. */
function keptField(query: QueryNode, paths: ReadonlyMap<string, FieldPaths>, fuzzy: FuzzyExpansions, within: RawBuilder<boolean>): KeptLexeme | null {
  const lexeme = singleFieldLexeme(query, paths);
  const [operand, ...more] = rankOperands(query, fuzzy);
  if (lexeme === null || operand === undefined || operand.prefix || more.length > 0) return null;
  return { lexeme, titleOnly: false, ranked: { lexeme: operand.word, within } };
}

/**
 * The least score a title match must have for no match outside the title to reach it: a match
 * whose title lacks the word scores under 0.1 (`rankOf`), damped further by its length.
 */
const TITLE_FIRST = 0.1001;

/**
 * The page of a one-word `bestmatch` request from the kept title scores (`search_title`), in the
 * page's order: the first entries of the word's index the filter keeps, merged in that order with
 * a signed-in reader's own best title matches (`own`: the documents it keeps), scored as the
 * writes score them, from `title_words` rather than the vector. Null when a match outside the
 * title might reach the page (fewer title matches than the page's end, or the last one scored
 * under TITLE_FIRST), unless only the title is asked.
 */
async function titleFirstPage(db: Db, request: SearchRequest, single: KeptLexeme, rank: Rank, own: RawBuilder<boolean> | null): Promise<PageRow[] | null> {
  const start = (request.page - 1) * request.size;
  const end = request.page * request.size;
  const order = sql.raw('score desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc');
  // A field query's: each entry in order, kept if its document matches (its field vector read), until the page is full.
  const within = single.ranked === undefined ? sql`` : sql`and exists (select 1 from search_doc d where d.key = t.key and ${single.ranked.within})`;
  const titled = sql`select id, kind, score, created, key from search_title t
    where lexeme = ${single.ranked?.lexeme ?? single.lexeme} and kind = any(${[...request.filter.kinds]}::text[]) and ${facetSql(request)} ${within}
    order by ${order} limit ${end}`;
  const rows = (
    await (own === null
      ? titled
      : sql`select id, kind, score from ((${titled}) union all (select id, kind, ts_rank(title_words, ${rank.query}::tsquery, 0) / sqrt(1 + word_count / 50.0::float8) as score,
          created, key from search_doc where ${own} and title_words @@ ${rank.query}::tsquery and ${facetSql(request)} order by ${order} limit ${end})) m
          order by ${order} limit ${end}`
    ).execute(db)
  ).rows as { id: string; kind: SearchDocument['kind']; score: number }[];
  const last = rows[end - 1];
  if (!single.titleOnly && (last === undefined || last.score < TITLE_FIRST)) return null;
  return rows.slice(start).map((r) => ({ id: r.id, kind: r.kind, state: 'published' }));
}

/**
 * The page of a one-lexeme `bestmatch` request (`oneWordRank`) from the kept scores, when the
 * title's alone do not decide it: a listed match holding the lexeme in its title is in
 * `search_title`, one holding it at several positions outside its title in `search_repeat`, each
 * with its exact score, in the page's order; every other listed match holds it at one untitled
 * position, and scores that position's part damped by its length: at most the part damped by the
 * shortest counted document's (`search_doc_shortest`). The candidates are the first `end` entries
 * of each table the filter (and `within`: a field query's field, an AND's other parts) keeps, among its first KEPT_SCORES_READ,
 * and a signed-in reader's own matches (`own`, scored from their rows). The page is theirs when
 * its last place scores above every other match's bound: the single untitled position's, and
 * for a table that gave fewer than `end`, its last entry read. Null otherwise (every match is
 * then scored from its row).
 */
async function keptScoresPage(db: Db, request: SearchRequest, single: KeptLexeme, rank: Rank, own: RawBuilder<boolean> | null): Promise<PageRow[] | null> {
  const start = (request.page - 1) * request.size;
  const end = request.page * request.size;
  // Entries are each looked up for `within` (about 20 us each at 100k): a lexeme held mostly
  // outside it (a narrow range beside a common word) reads only so many before every match is
  // scored instead.
  const read = KEPT_SCORES_READ * end;
  const order = sql.raw('score desc, created COLLATE "C" desc, id COLLATE "C" asc, key COLLATE "C" asc');
  const lexeme = single.ranked?.lexeme ?? single.lexeme;
  const entries = (table: string) => sql`select id, kind, score, created, key from ${sql.table(table)}
    where lexeme = ${lexeme} and kind = any(${[...request.filter.kinds]}::text[]) and ${facetSql(request)} order by ${order}`;
  // Within the first `read` entries, the first `end` that match, each looked up in their order
  // until there are `end`: a scalar subquery, which the planner keeps a per-row filter (an EXISTS
  // became a join, which read every entry, and without the ORDER BY kept the wrong ones).
  const kept = (table: string) =>
    single.ranked === undefined
      ? sql`${entries(table)} limit ${end}`
      : sql`select * from (${entries(table)} limit ${read}) t
          where (select true from search_doc where search_doc.key = t.key and ${single.ranked.within}) order by ${order} limit ${end}`;
  // A table that gave `end` candidates leaves none of its other entries before the page's last
  // place (they follow its candidates in the page's order); one that gave fewer, none past its
  // last entry read (null when it has no more).
  const bound = (name: string, table: string) =>
    sql`case when (select count(*) from ${sql.table(name)}) < ${end} then (select score from (${entries(table)} offset ${read - 1} limit 1) e) end`;
  const row = (
    await sql<{ page: PageRow[] | null; decided: boolean | null }>`with titled as materialized (${kept('search_title')}),
      repeated as materialized (${kept('search_repeat')}),
      candidates as materialized (
        select * from titled union all select * from repeated
        ${own === null ? sql`` : sql`union all (select id, kind, ${rowScoreSql(rank.query)} as score, created, key from search_doc where ${own} and ${facetSql(request)} order by ${order} limit ${end})`}
      ),
      page as (select * from candidates order by ${order} limit ${end}),
      bounds as (
        select ${bound('titled', 'search_title')} as titled, ${bound('repeated', 'search_repeat')} as repeated,
          (select ts_rank('x:1'::tsvector, 'x'::tsquery, 0) / sqrt(1 + min(word_count) / 50.0::float8) from search_doc where ${sql.raw(COUNTED)}) as once
      )
      select (select count(*) from page) >= ${end} and (select min(score) from page) > (select greatest(titled, repeated, once) from bounds) as decided,
        (select json_agg(json_build_object('id', id, 'kind', kind, 'state', 'published') order by ${order}) from page) as page`.execute(db)
  ).rows[0];
  if (row?.decided !== true || row.page === null) return null;
  return row.page.slice(start);
}

/** Kept scores read at most per table for a page whose matches they hold only some of (`keptScoresPage`), as a multiple of the page's end. */
const KEPT_SCORES_READ = 8;

/**
 * A request SQL decides alone (no box; query text the vector answers, or none), in two
 * statements over the matches: one grouping them by the facet columns the request aggregates or
 * filters on (a handful of groups, from which the exact total after the facet filters and each
 * facet's buckets before them are sums), and the page in order.
 *
 * `single`: the query's one lexeme, if it is one. With a public listing's filter, the groups are
 * then read from the counts the writes keep, and a ranked page from the kept title scores when
 * they decide it, rather than from every match; a signed-in reader's own matches that are not
 * public (`ownSql`) are counted and scored from their rows and added. `several`: the words of the
 * vocabulary a prefix or fuzzy word stands for, and the rank query's number of operands: a public
 * listing is then answered from the words' kept counts and title scores (postgres-kept-words.ts)
 * when the documents holding several of them are few enough. `rankedWithin`: the one lexeme
 * every match holds and the page ranks by, whose kept scores may give a
 * listing's page (`keptScoresPage`), its counts then from the matches' rows, unscored
 * (`rankedBesideRanges`). `counted`: the same matches as `match`, as the statement counting
 * them scans them best (postgres-ranges.ts, `splitFold`). `yearly`: a listing's word and
 * publication range, counted from the words' kept counts by year (postgres-year-counts.ts).
 */
async function inSql(
  db: Db,
  request: SearchRequest,
  match: RawBuilder<boolean> | null,
  rank: Rank | null,
  single: KeptLexeme | null = null,
  vector = match !== null,
  several: { words: readonly string[]; operands: number } | null = null,
  rankedWithin: KeptLexeme | null = null,
  counted: RawBuilder<boolean> | null = null,
  yearly: YearCounted | null = null,
): Promise<SearchResult> {
  const where = sql`${filterSql(request)} ${match === null ? sql`` : sql`and ${match}`}`;
  const filtered = (Object.entries(request.filter.facets ?? {}) as [FacetName, readonly string[]][]).filter(([, values]) => values.length > 0).map(([facet]) => facet);
  const grouped = [...new Set<FacetName>([...request.aggregations, ...filtered])];
  const labelled = request.aggregations.includes('resource_type');
  // One aggregate over the matches: grouping sets made PostgreSQL hash every match once per facet,
  // about 3x the work. A resource type's label is the least over all its matches, in the
  // database's collation, as min() over them gave it: the groups come in the order of their least
  // labels (a sort of a handful of rows), and the first of a type's groups has its label. (A
  // window over the groups made the planner sort every match for it when it expected few.)
  const counts = sql<FacetGroup>`select ${sql.join([
    ...grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`),
    labelled ? sql`min(resource_type_label) as label` : sql`null as label`,
    sql`count(*) as n`,
  ])}
    from search_doc where ${counted === null ? where : sql`${filterSql(request)} and ${counted}`}
    ${grouped.length === 0 ? sql`` : sql`group by ${sql.join(grouped.map((facet) => sql.ref(FACET_COLUMN[facet])))}`}
    ${labelled ? sql`order by label` : sql``}`;
  const page = pageSql(request, where, rank);
  const countRows = async (handle: Db): Promise<FacetGroup[]> => {
    if (yearly !== null) {
      const statement = yearCountsSql(yearly, {
        kinds: request.filter.kinds,
        own: (match) => ownSql(request, match),
        groupSelect: grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`),
        groupBy: grouped.map((facet) => sql.ref(FACET_COLUMN[facet])),
        labelled,
      });
      const row = (await statement.execute(handle)).rows[0];
      if (row !== undefined && !row.several) return row.counts as FacetGroup[];
    }
    return (await counts.execute(handle)).rows;
  };
  const kept = single !== null && match !== null && keptFilter(request) ? single : null;
  // A signed-in reader's own matches; and their own documents, whose title matches (a subset of
  // those matches) the page finds without their vectors.
  const own = kept !== null && match !== null ? ownSql(request, match) : null;
  // (A field query's title matches are not all matches: its own matches are.)
  const ownDocuments = kept !== null && match !== null ? ownSql(request, kept.ranked === undefined ? sql<boolean>`true` : match) : null;
  const bounded = async (handle: Db) => {
    const one = rank !== null && rank.bound !== null ? (await boundedSql(request, where, { ...rank, bound: rank.bound }, grouped, labelled).execute(handle)).rows[0] : null;
    return { counts: one?.counts ?? [], page: one?.page ?? [] };
  };
  const run = async (handle: Db): Promise<{ counts: FacetGroup[]; page: PageRow[] }> => {
    const words = several !== null && match !== null && keptFilter(request) ? await keptWords(handle, several.words, request.filter.kinds) : null;
    if (words !== null && several !== null && match !== null) {
      const ranked = request.sort === 'bestmatch' && rank !== null;
      const answer = await keptWordsAnswer<FacetGroup, PageRow>(handle, words, {
        listed: sql<boolean>`${sql.raw(COUNTED)} and kind = any(${[...request.filter.kinds]}::text[])`,
        kinds: request.filter.kinds,
        facets: facetSql(request),
        own: ownSql(request, match),
        groupSelect: grouped.map((facet) => sql`${sql.ref(FACET_COLUMN[facet])} as ${sql.ref(facet)}`),
        groupBy: grouped.map((facet) => sql.ref(FACET_COLUMN[facet])),
        labelled,
        page: ranked ? { query: rank.query, operands: several.operands, start: (request.page - 1) * request.size, size: request.size } : null,
      });
      if (answer.page !== null) return { counts: answer.counts, page: answer.page };
      // The title scores did not decide the page: ranked from every match, as without them.
      return { counts: answer.counts, page: ranked && rank.bound !== null ? (await bounded(handle)).page : (await page.execute(handle)).rows };
    }
    if (match === null && keptFilter(request)) {
      const counts = keptCountsSql(request, { lexeme: EVERY_LISTED, titleOnly: false }, grouped, labelled, uncountedSql(request));
      return { counts: (await counts.execute(handle)).rows, page: (await page.execute(handle)).rows };
    }
    if (kept !== null) {
      const titled = request.sort === 'bestmatch' && rank !== null ? await titleFirstPage(handle, request, kept, rank, ownDocuments) : null;
      if (request.sort !== 'bestmatch' || rank === null || titled !== null) {
        return { counts: (await keptCountsSql(request, kept, grouped, labelled, own).execute(handle)).rows, page: titled ?? (await page.execute(handle)).rows };
      }
    }
    // The title scores did not decide the page of one lexeme: the kept scores of its repeated
    // words, else each match scored from its row.
    if (request.sort === 'bestmatch' && rank !== null && kept !== null && oneWordRank(rank)) {
      const keptPage = await keptScoresPage(handle, request, kept, rank, own);
      if (keptPage !== null) return { counts: (await keptCountsSql(request, kept, grouped, labelled, own).execute(handle)).rows, page: keptPage };
      const ranked = sql<PageRow>`select id, kind, state, ${rowScoreSql(rank.query)} as score from search_doc where ${where} and ${facetSql(request)}
        order by ${sql.raw(BY_SCORE)} limit ${request.size} offset ${(request.page - 1) * request.size}`;
      return { counts: (await keptCountsSql(request, kept, grouped, labelled, own).execute(handle)).rows, page: (await ranked.execute(handle)).rows };
    }
    // A word's best kept scores that match, the matches counted without being scored.
    if (rankedWithin !== null && match !== null && keptFilter(request) && request.sort === 'bestmatch' && rank !== null && oneWordRank(rank)) {
      const keptPage = await keptScoresPage(handle, request, rankedWithin, rank, ownSql(request, match));
      if (keptPage !== null) return { counts: await countRows(handle), page: keptPage };
    }
    if (request.sort === 'bestmatch' && rank !== null && rank.bound !== null) return bounded(handle);
    return { counts: await countRows(handle), page: (await page.execute(handle)).rows };
  };
  const answer = db.isTransaction
    ? await run(db)
    : await db.transaction().execute(async (trx) => {
        // No parallel workers: each is a process started for the statement, with cold caches, and
        // their CPU outweighed what they saved (a one-pass group-by of the 95,000 matches of the
        // empty query at 100k cost twice the single-process grouping sets in CPU once parallel).
        // With text, no sequential scan: the planner prices one without what reading each row's
        // vector costs (compressed, often out of line) and prefers it to the GIN index for any
        // common word (60 ms against 15 for a word in 9% of 20,000 documents).
        // Ranges without words keep it: no vector is read, nothing is mispriced.
        // With text, 16 MB of working memory: the bounds of a word's 55,000 matches (see `boundedSql`)
        // spilled to a temporary file at the default 4 MB.
        await sql`select set_config('max_parallel_workers_per_gather', '0', true)
          ${match === null ? sql`` : sql`, set_config('work_mem', '16MB', true)`} ${vector ? sql`, set_config('enable_seqscan', 'off', true)` : sql``}`.execute(trx);
        return run(trx);
      });
  return resultOf(request, answer.counts, answer.page);
}

/** The total after the facet filters, each facet's buckets before them, and the page, from the matches' groups. */
function resultOf(request: SearchRequest, counts: readonly FacetGroup[], page: readonly PageRow[]): SearchResult {
  let total = 0;
  const byFacet = new Map<FacetName, Map<string, FacetBucket>>(request.aggregations.map((facet) => [facet, new Map()]));
  for (const group of counts) {
    const n = Number(group.n);
    if (passesFacets(group, request)) total += n;
    for (const [facet, buckets] of byFacet) {
      const key = group[facet];
      if (key === null || key === undefined) continue;
      const bucket = buckets.get(key);
      if (bucket) bucket.docCount += n;
      else buckets.set(key, { key, docCount: n, label: facet === 'resource_type' ? (group.label ?? key) : facetLabel(facet, key) });
    }
  }
  const aggregations: SearchResult['aggregations'] = {};
  for (const [facet, buckets] of byFacet) aggregations[facet] = sortBuckets([...buckets.values()]);
  return { total, hits: page.map((r) => ({ id: r.id, kind: r.kind, state: r.state })), aggregations };
}
