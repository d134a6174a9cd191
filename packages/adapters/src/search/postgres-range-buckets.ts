/**
 * A listing's date range counted from per-bucket counts the writes keep, and paged bucket by
 * bucket, rather than from each of its matches' index entries: at 100k, `[2022 TO 2023]` read its
 * 37 862 entries, grouped them and sorted them for a page of ten.
 *
 * A bucket is a value's first BUCKET_UNITS code units (`2022-05` of `2022-05-17`; a shorter value
 * is a bucket of its own). `search_range_count` holds, per field, bucket and facet group, how many
 * of the rows that are their listed document's only row of the field (`listed and sole`) hold a
 * value of that bucket (the bucket null: no value), as deltas a statement trigger on
 * `search_range` inserts and folds, as `search_count`'s are for words. So a cascade from
 * `search_doc` keeps them too.
 *
 * A range then splits the buckets in three: those wholly in it, those wholly out of it, and at most
 * two it cuts (the buckets of its bounds' first code units, when a bound is longer than a bucket).
 * Its matches among the listed sole rows are the whole buckets' (counted from the kept counts,
 * paged by one walk of `search_range_page` per bucket) and the cut buckets' rows in it (read from
 * the value index, as before); a NOT's are the buckets wholly out of it, the rows without a value
 * and the cut buckets' rows out of it. The documents holding several values of the field, and a
 * signed-in reader's own, are read from their rows as `listedRangeDocuments` reads them.
 */
import { sql, type RawBuilder } from 'kysely';
import { NUMERIC_RANGE_FIELDS, type QueryNode } from '@krs/domain/search';
import { listingColumns } from './postgres-listing-columns.ts';
import { BUCKET_BYTES } from './postgres-range-lexemes.ts';
import { dateBounds, listedRangeDocuments, successor } from './postgres-ranges.ts';

/** Groups of one bucket's counts past which a write folds them into one (see FOLD_AT of the words' counts). */
const FOLD_AT = 8;

const COUNT_GROUP = 'field, bucket, kind, resource_type, resource_type_label, access_status';

/** The statements keeping the counts for the rows `rows` (a transition table), counted `sign` each. */
const keptCounts = (rows: string, sign: 1 | -1) => `
    WITH touched AS (
      SELECT field, bucket, kind, resource_type, resource_type_label, access_status, (${sign} * count(*))::integer AS n
      FROM ${rows} WHERE listed AND sole GROUP BY 1, 2, 3, 4, 5, 6
    ), added AS (
      INSERT INTO search_range_count (${COUNT_GROUP}, n) SELECT * FROM touched RETURNING field, bucket
    ), crowded AS (
      SELECT array_agg(c.ctid) AS tids FROM search_range_count c
        JOIN (SELECT DISTINCT field, bucket FROM added WHERE bucket IS NOT NULL) t ON c.field = t.field AND c.bucket = t.bucket
        GROUP BY c.field, c.bucket, c.kind, c.resource_type, c.resource_type_label, c.access_status HAVING count(*) >= ${FOLD_AT}
      UNION ALL
      SELECT array_agg(c.ctid) FROM search_range_count c
        JOIN (SELECT DISTINCT field FROM added WHERE bucket IS NULL) t ON c.field = t.field AND c.bucket IS NULL
        GROUP BY c.field, c.kind, c.resource_type, c.resource_type_label, c.access_status HAVING count(*) >= ${FOLD_AT}
    ), mine AS (
      SELECT c.ctid FROM search_range_count c WHERE c.ctid = ANY (ARRAY(SELECT unnest(tids) FROM crowded)) FOR UPDATE OF c SKIP LOCKED
    ), folded AS (
      DELETE FROM search_range_count c USING mine WHERE c.ctid = mine.ctid RETURNING c.*
    )
    INSERT INTO search_range_count (${COUNT_GROUP}, n)
      SELECT ${COUNT_GROUP}, sum(n)::integer FROM folded GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0;`;

/**
 * The counts' table, the page's index and the trigger keeping the counts; after `search_range`.
 * The page's index holds the listed sole rows by field, bucket and creation, with what a page
 * and the facet filters read: a bucket's newest or oldest rows are its first entries. Not the rows
 * without a value (a NOT's documents lacking the field), which the value index finds: a record
 * lacks one or two of the range fields, a bench document four of five, 80% of the index's size.
 */
export const RANGE_BUCKET_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_range_count (field text NOT NULL, bucket bytea, kind text NOT NULL, resource_type text,
    resource_type_label text, access_status text NOT NULL, n integer NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_range_count_bucket ON search_range_count (field, bucket)',
  // A column rather than an expression of the index: a query naming `value` could not read the index alone.
  `ALTER TABLE search_range ADD COLUMN IF NOT EXISTS bucket bytea GENERATED ALWAYS AS (substring(value from 1 for ${BUCKET_BYTES})) STORED`,
  `CREATE INDEX IF NOT EXISTS search_range_page ON search_range (field, bucket, created COLLATE "C", id COLLATE "C", key COLLATE "C")
    INCLUDE (kind, resource_type, access_status, updated, version_index) WHERE listed AND sole AND bucket IS NOT NULL`,
  `CREATE OR REPLACE FUNCTION search_range_counted() RETURNS trigger LANGUAGE plpgsql AS $counted$
  BEGIN
    IF TG_OP = 'INSERT' THEN ${keptCounts('new_rows', 1)}
    ELSE ${keptCounts('old_rows', -1)}
    END IF;
    RETURN NULL;
  END $counted$`,
  ...['INSERT', 'DELETE'].map(
    (op) =>
      `CREATE OR REPLACE TRIGGER search_range_counted_${op.toLowerCase()} AFTER ${op} ON search_range REFERENCING ${op === 'INSERT' ? 'NEW' : 'OLD'} TABLE AS ${op === 'INSERT' ? 'new_rows' : 'old_rows'} FOR EACH STATEMENT EXECUTE FUNCTION search_range_counted()`,
  ),
];

/** A piece of one bucket's values: from `from` (inclusive) to `to` (exclusive; null: no end). */
type Piece = { from: Buffer; to: Buffer | null };

const below = (a: Buffer, b: Buffer | null) => b === null || Buffer.compare(a, b) < 0;
const higher = (a: Buffer, b: Buffer) => (Buffer.compare(a, b) >= 0 ? a : b);
const lower = (a: Buffer | null, b: Buffer | null) => (a === null ? b : b === null ? a : Buffer.compare(a, b) <= 0 ? a : b);

/**
 * A listing's range, or NOT range, split by buckets (see the module's comment): SQL for the
 * counts of the whole buckets (`counted`: rows of the facet columns and `n`), for the documents
 * read from their rows (`documents`: as `listedRangeDocuments` makes them), and for a page's
 * candidates from the whole buckets (`pages`: each bucket's first `end` rows in `order` that
 * `facets` keeps). Null for a numeric range, or one no value can lie in.
 */
export interface BucketedRange {
  counted: RawBuilder<unknown>;
  documents: RawBuilder<unknown>;
  pages: (order: RawBuilder<unknown>, facets: RawBuilder<boolean>, end: number) => RawBuilder<unknown>;
}

export function bucketedRange(node: QueryNode, kinds: readonly string[], own: RawBuilder<unknown> | null): BucketedRange | null {
  const negated = node.type === 'not';
  const range = node.type === 'not' ? node.child : node;
  if (range.type !== 'range' || NUMERIC_RANGE_FIELDS.includes(range.field)) return null;
  const bounds = dateBounds(range);
  const all = listedRangeDocuments(node, kinds, own, 'shared');
  if (bounds === null || all === null) return null;
  const { least, above } = bounds;
  // The buckets a bound cuts: its first BUCKET_UNITS code units, when it is longer.
  const cut = [least, above].filter((b): b is Buffer => b !== null && b.length > BUCKET_BYTES).map((b) => b.subarray(0, BUCKET_BYTES));
  const cutBuckets = cut.filter((b, i) => cut.findIndex((o) => o.equals(b)) === i);
  const inside: RawBuilder<boolean>[] = [
    ...(least === null ? [] : [sql<boolean>`bucket >= ${least}`]),
    ...(above === null ? [sql<boolean>`bucket is not null`] : [sql<boolean>`bucket < ${above}`]),
  ];
  const outside: RawBuilder<boolean>[] = [
    sql<boolean>`bucket is null`,
    ...(least === null ? [] : [sql<boolean>`bucket < ${least}`]),
    ...(above === null ? [] : [sql<boolean>`bucket >= ${above}`]),
  ];
  const notCut = cutBuckets.length === 0 ? sql<boolean>`true` : sql<boolean>`not (bucket = any(${cutBuckets}::bytea[]))`;
  const whole = negated ? sql<boolean>`(bucket is null or ((${sql.join(outside.slice(1).length === 0 ? [sql`false`] : outside.slice(1), sql` or `)}) and ${notCut}))` : sql<boolean>`(${sql.join(inside, sql` and `)} and ${notCut})`;
  // Each cut bucket's values in the range (or out of it, under NOT), as index ranges of values.
  const pieces: Piece[] = [];
  for (const bucket of cutBuckets) {
    const end = successor(bucket);
    if (!negated) {
      const from = least === null ? bucket : higher(least, bucket);
      const to = lower(above, end);
      if (below(from, to)) pieces.push({ from, to });
      continue;
    }
    if (least !== null && above !== null && Buffer.compare(least, above) >= 0) {
      pieces.push({ from: bucket, to: end });
      continue;
    }
    if (least !== null && Buffer.compare(least, bucket) > 0) pieces.push({ from: bucket, to: lower(least, end) });
    if (above !== null && below(above, end)) pieces.push({ from: higher(above, bucket), to: end });
  }
  const listing = sql`r.listed and r.sole and r.kind = any(${[...kinds]}::text[])`;
  const edge = pieces.map(
    (p) => sql`select ${listingColumns('r')}, true as decided from search_range r where r.field = ${range.field} and ${listing}
      and r.value >= ${p.from} ${p.to === null ? sql`` : sql`and r.value < ${p.to}`}`,
  );
  return {
    counted: sql`select kind, resource_type, resource_type_label, access_status, sum(n) as n from search_range_count
      where field = ${range.field} and kind = any(${[...kinds]}::text[]) and ${whole}
      group by kind, resource_type, resource_type_label, access_status having sum(n) <> 0`,
    documents: sql.join([all, ...edge], sql` union all `),
    pages: (order, facets, end) =>
      sql`select p.* from (select distinct bucket from search_range_count where field = ${range.field} and ${whole} and bucket is not null) b
        cross join lateral (select key, id, kind, created, updated, version_index, resource_type, access_status from search_range r
          where r.field = ${range.field} and r.bucket = b.bucket and ${listing} and ${facets}
          order by ${order} limit ${end}) p
        ${negated ? sql`union all (select key, id, kind, created, updated, version_index, resource_type, access_status from search_range r
          where r.field = ${range.field} and r.value is null and ${listing} and ${facets} order by ${order} limit ${end})` : sql``}`,
  };
}
