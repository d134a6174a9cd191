/**
 * Ranges in the PostgreSQL engine: each value a document holds in a range field is a row of
 * `search_range`, written with the document, in its transaction, and ordered by B-tree indexes,
 * so a range leaf is an SQL predicate the index answers rather than a reason to read every
 * candidate's document into the evaluator. A query mixing ranges with leaves the vector decides
 * (words, prefixes, phrases, fuzzy terms, `_exists_`) and fields the field vector decides
 * (postgres-fields.ts) under AND/OR/NOT is written as one SQL boolean expression: `words @@
 * tsquery` or `field_words @@ tsquery` for each part of one kind, a lookup in `search_range` for
 * each range (`composedQuery`).
 *
 * The answers are the domain's (`inRange` in match-query.ts), bound for bound:
 * - dates compare as text on the bound's precision (`[* TO 2021]` takes all of 2021), in
 *   JavaScript's order of UTF-16 code units. Each value is kept as its UTF-16 code units,
 *   big-endian (`bytea`): PostgreSQL compares those bytewise, which is that order exactly, and
 *   whatever the text holds (a NUL, which no `text` may hold). "Starts with the bound" is then
 *   "below the bound's successor" (`successor`), one comparison an index answers.
 * - `versions.index` compares as numbers (`float8`, as JavaScript's numbers); a value that is no
 *   number matches no bound, and a bound that is no number matches nothing.
 * - a range on any other field matches nothing.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { flatten, NUMERIC_RANGE_FIELDS, RANGE_FIELDS, rangeValues, type QueryNode } from '@krs/domain/search';
import type { SearchDocument } from '@krs/domain';
import { isFieldLeaf } from './field-query.ts';
import { LISTING_AGGREGATES, listingColumns } from './postgres-listing-columns.ts';
import { BUCKET_BYTES, codeUnits, isBucketedField, prefixLexeme, YEAR_BYTES } from './postgres-range-lexemes.ts';
import { exactQuery, lexeme, type FuzzyExpansions } from './postgres-text.ts';

type Range = Extract<QueryNode, { type: 'range' }>;

/**
 * The table and its indexes: a range's matches are read in field and value order (a semi-join,
 * from the index alone once vacuumed), and a range under OR or NOT probes one document's rows
 * by key. Dropped with the document's row (cascade), and rewritten by every upsert.
 *
 * Each row also holds what a listing needs of its document (`listed`: published, latest, public;
 * the facet and order columns), in the value index's leaves, as search_box's rows do for boxes: a
 * listing's range, or its NOT, is counted and paged from the index entries of its matches alone
 * (`listedRangeDocuments`), not from every visible document's row. For NOT, a published latest
 * document lacking a range field has a row of that field with no value (`value` null, in no
 * range), so the documents outside a range are index ranges too; `sole` says a document holds
 * no other row of that field, so that one row outside the range is enough.
 */
export const RANGE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_range (key text NOT NULL REFERENCES search_doc (key) ON DELETE CASCADE, field text NOT NULL,
    value bytea, number float8, sole boolean NOT NULL, listed boolean NOT NULL, kind text NOT NULL, resource_type text, resource_type_label text,
    access_status text NOT NULL, created text NOT NULL, updated text NOT NULL, version_index integer NOT NULL, id text NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS search_range_value ON search_range (field, value)
    INCLUDE (key, listed, sole, number, kind, resource_type, resource_type_label, access_status, created, updated, version_index, id)`,
  'CREATE INDEX IF NOT EXISTS search_range_number ON search_range (field, number) INCLUDE (key) WHERE number IS NOT NULL',
  // The few rows of documents holding several values of a field, which a listing groups by key:
  // found without reading again every entry of the range (a second pass over the value index).
  'CREATE INDEX IF NOT EXISTS search_range_shared ON search_range (field, value) WHERE NOT sole',
  'CREATE INDEX IF NOT EXISTS search_range_key ON search_range (key) INCLUDE (field, value, number)',
];

/** What the domain's `compare` takes for a number. */
const NUMBER = /^-?\d+(\.\d+)?$/;

const isRangeField = (field: string) => (RANGE_FIELDS as readonly string[]).includes(field);

/**
 * The least byte string above every string starting with `bytes` (the last byte below 0xff
 * raised by one, the 0xff bytes after it dropped), or null when there is none: every string
 * is then at most one that starts with it.
 */
export function successor(bytes: Buffer): Buffer | null {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return null;
  const next = Buffer.from(bytes.subarray(0, end));
  next[end - 1] = (next[end - 1] as number) + 1;
  return next;
}

/** Replaces the range rows of `docs` (already in search_doc) with their values now. */
export async function writeRanges(db: Kysely<object>, docs: readonly SearchDocument[]): Promise<void> {
  const columns = { key: [] as string[], field: [] as string[], value: [] as (Buffer | null)[], number: [] as (number | null)[], sole: [] as boolean[] };
  const listing = { listed: [] as boolean[], kind: [] as string[], resourceType: [] as (string | null)[], label: [] as (string | null)[], access: [] as string[],
    created: [] as string[], updated: [] as string[], versionIndex: [] as number[], id: [] as string[] };
  for (const doc of docs) {
    const listed = doc.state === 'published' && doc.isLatest && doc.isPublic;
    // A range field's own values, as the evaluator compares them.
    const values = rangeValues(flatten(doc.body));
    for (const field of RANGE_FIELDS) {
      const own = values.filter(([f]) => f === field).map(([, v]) => v);
      // Only a listing reads the rows without a value (a NOT's documents lacking the field).
      const rows: (string | null)[] = own.length > 0 ? own : doc.state === 'published' && doc.isLatest ? [null] : [];
      for (const value of rows) {
        columns.key.push(doc.key);
        columns.field.push(field);
        columns.value.push(value === null ? null : codeUnits(value));
        columns.number.push(value !== null && NUMERIC_RANGE_FIELDS.includes(field) && NUMBER.test(value) ? Number(value) : null);
        columns.sole.push(rows.length === 1);
        listing.listed.push(listed);
        listing.kind.push(doc.kind);
        listing.resourceType.push(doc.resourceType?.id ?? null);
        listing.label.push(doc.resourceType?.label ?? null);
        listing.access.push(doc.accessStatus);
        listing.created.push(doc.created);
        listing.updated.push(doc.updated);
        listing.versionIndex.push(doc.versionIndex);
        listing.id.push(doc.id);
      }
    }
  }
  await sql`delete from search_range where key = any(${docs.map((d) => d.key)}::text[])`.execute(db);
  if (columns.key.length === 0) return;
  // node-postgres writes a number past float8's range as `Infinity`, which float8 reads back.
  await sql`insert into search_range (key, field, value, number, sole, listed, kind, resource_type, resource_type_label, access_status, created, updated, version_index, id)
    select * from unnest(${columns.key}::text[], ${columns.field}::text[], ${columns.value}::bytea[], ${columns.number}::float8[], ${columns.sole}::boolean[],
      ${listing.listed}::boolean[], ${listing.kind}::text[], ${listing.resourceType}::text[], ${listing.label}::text[], ${listing.access}::text[],
      ${listing.created}::text[], ${listing.updated}::text[], ${listing.versionIndex}::integer[], ${listing.id}::text[])`.execute(db);
}

/**
 * A date range's bounds as byte strings: the least value in it (`least`, null when it has no
 * lower bound) and the least above it (`above`, null when none is), or null when no value can lie
 * in it (above every string starting with an exclusive lower bound there is none).
 */
export function dateBounds(node: Range): { least: Buffer | null; above: Buffer | null } | null {
  // At least the bound on its precision: at least the bound; above it: at least its successor.
  const least = node.min === null ? null : node.includeMin ? codeUnits(node.min) : successor(codeUnits(node.min));
  if (node.min !== null && least === null) return null;
  // At most the bound on its precision: below its successor; below it: below the bound.
  const above = node.max === null ? null : node.includeMax ? successor(codeUnits(node.max)) : codeUnits(node.max);
  return { least, above };
}

/**
 * The conditions on one `search_range` row (alias `r`) for its value to lie in the range, or null
 * when none can. A row without a value (a document lacking the field) lies in none: a
 * comparison is null on it.
 */
function rangeConditions(node: Range, r = 'r'): RawBuilder<boolean>[] | null {
  if (!isRangeField(node.field)) return null;
  const row = (column: string) => sql.ref(`${r}.${column}`);
  const conditions: RawBuilder<boolean>[] = [sql<boolean>`${row('field')} = ${node.field}`];
  // A bound leaves out the rows without a value by itself; said again, the planner counted them
  // out twice, expected a fifth of the matches and probed each document's row by key for them.
  if (node.min === null && node.max === null) conditions.push(sql<boolean>`${row('value')} is not null`);
  if (NUMERIC_RANGE_FIELDS.includes(node.field)) {
    const bounds = [node.min, node.max].filter((b): b is string => b !== null);
    if (bounds.some((b) => !NUMBER.test(b))) return null;
    for (const [bound, include, operator] of [[node.min, node.includeMin, '>'], [node.max, node.includeMax, '<']] as const) {
      if (bound === null) continue;
      const limit = Number(bound);
      conditions.push(sql<boolean>`${row('number')} ${sql.raw(include ? `${operator}=` : operator)} ${limit}::float8`);
      // The domain subtracts: an infinite value minus the same infinite bound is NaN, in no range.
      if (!Number.isFinite(limit)) conditions.push(sql<boolean>`${row('number')} <> ${limit}::float8`);
    }
    return conditions;
  }
  const bounds = dateBounds(node);
  if (bounds === null) return null;
  if (bounds.least !== null) conditions.push(sql<boolean>`${row('value')} >= ${bounds.least}`);
  if (bounds.above !== null) conditions.push(sql<boolean>`${row('value')} < ${bounds.above}`);
  return conditions;
}

/**
 * A listing's documents of `kinds` in a range (`node`), or outside it (`NOT range`): the listed
 * ones, and a signed-in reader's own (`own`: their keys, found by the caller), one
 * row each of their listing columns (postgres-listing-columns.ts) and `decided` (true), from the
 * value index's entries of the matches alone; null for any other query, or a range no value can
 * lie in (whose answer is no document, or every one). The rows of a document holding one value
 * of the field (`sole`: nearly all) are its own; only the others are grouped by key.
 *
 * Outside a date range are the rows below its least value, those from the least above it, and
 * those without a value: each an index range, together the matches' rows and no others'. A
 * document there holding other values of the field (not `sole`) is outside only when none of
 * them is inside, looked up by key. A numeric range's outside is read from all of its field's
 * rows (a version index is seldom asked for, never under NOT in the clients known).
 */
export function listedRangeDocuments(
  node: QueryNode,
  kinds: readonly string[],
  own: RawBuilder<unknown> | null,
  which: 'every' | 'shared' = 'every',
): RawBuilder<unknown> | null {
  const range = node.type === 'not' ? node.child : node;
  if (range.type !== 'range') return null;
  const inside = rangeConditions(range);
  if (inside === null) return null;
  const listing = sql`${own === null ? sql`r.listed` : sql`(r.listed or r.key in (${own}))`} and r.kind = any(${[...kinds]}::text[])`;
  // `shared`: only what the kept bucket counts leave out (postgres-range-buckets.ts): the documents
  // holding several values, and a reader's own, found by key rather than in the range's entries.
  const soleListing =
    which === 'every' ? listing : own === null ? null : sql`r.key = any(array(${own})) and r.kind = any(${[...kinds]}::text[])`;
  /** The matches among the rows the conditions keep (`sole`: each an index range of its own), one row each. */
  const documents = (sole: readonly RawBuilder<unknown>[], others: RawBuilder<unknown>) =>
    sql.join(
      [
        ...(soleListing === null ? [] : sole.map((where) => sql`select ${listingColumns('r')}, true as decided from search_range r where ${where} and ${soleListing} and r.sole`)),
        sql`select r.key collate "C", ${LISTING_AGGREGATES}, true from search_range r where ${others} and ${listing} and not r.sole group by r.key collate "C"`,
      ],
      sql` union all `,
    );
  if (node.type !== 'not') return documents([sql.join(inside, sql` and `)], sql.join(inside, sql` and `));
  const bounds = NUMERIC_RANGE_FIELDS.includes(range.field) ? null : dateBounds(range);
  const pieces: RawBuilder<boolean>[] =
    bounds === null
      ? [sql<boolean>`not coalesce(${sql.join(inside, sql` and `)}, false)`]
      : [
          sql<boolean>`r.value is null`,
          ...(bounds.least === null ? [] : [sql<boolean>`r.value < ${bounds.least}`]),
          // From the least above the range, or from its least when that is higher (a range of no
          // value, `[abc TO 2020]`): the pieces never meet, so no row is taken twice.
          ...(bounds.above === null ? [] : [sql<boolean>`r.value >= ${bounds.least !== null && Buffer.compare(bounds.least, bounds.above) > 0 ? bounds.least : bounds.above}`]),
        ];
  const elsewhere = sql.join(rangeConditions(range, 'o') ?? [], sql` and `);
  const outside = pieces.map((piece) => sql`r.field = ${range.field} and ${piece}`);
  return documents(
    outside,
    sql`(${sql.join(outside, sql` or `)}) and not exists (select 1 from search_range o where o.key = r.key and ${elsewhere})`,
  );
}

/** Whether a row of search_doc holds a value in the range. */
function rangeMatch(node: Range): RawBuilder<boolean> {
  const conditions = rangeConditions(node);
  if (conditions === null) return sql<boolean>`false`;
  return sql<boolean>`exists (select 1 from search_range r where r.key = search_doc.key and ${sql.join(conditions, sql` and `)})`;
}

/**
 * What decides a part of a query in SQL: the main vector (`words`: words, prefixes, title fields,
 * phrases, fuzzy words, `_exists_`), the field vector (`field_words`: fields other than the
 * title, postgres-fields.ts), or neither alone (a range, or parts of both kinds).
 */
type Part = 'words' | 'fields' | 'composed';

function partOf(node: QueryNode): Part {
  switch (node.type) {
    case 'range':
      return 'composed';
    case 'term':
    case 'phrase':
      return isFieldLeaf(node) ? 'fields' : 'words';
    case 'not':
      return partOf(node.child);
    case 'and':
    case 'or': {
      const parts = new Set(node.children.map(partOf));
      return parts.size > 1 ? 'composed' : ([...parts][0] ?? 'words');
    }
    default:
      return 'words';
  }
}

/** The ranges folded into the words beside them (`foldableRanges`), each with its years' and months' lexemes. */
export type FoldedRanges = ReadonlyMap<QueryNode, readonly string[]>;

/**
 * The lexemes a folded range ORs at most. The GIN index checks each candidate of the words
 * against every lexeme of the OR, so a fold costs about the words' candidates times its lexemes:
 * at 100k, with months alone, PostgreSQL CPU a call against the range rows' probe, `glacier`
 * (9 246 matches) and 12 months 22 -> 11-13 ms, 31 months 34-41 either way, 48 months 47-49 -> 67.
 * Whole years are one lexeme each, so a range of years and months folds in a few; a range of
 * more lexemes is probed row by row.
 */
const MAX_FOLDED_LEXEMES = 24;

/**
 * The date ranges of `node` that `composedQuery` may fold into words beside them: those ANDed
 * with a part the vector decides, where no OR or NOT is between them and the top.
 */
export function foldableRanges(node: QueryNode): Range[] {
  if (node.type !== 'and') return [];
  const ranges = node.children.filter((c): c is Range => c.type === 'range' && isBucketedField(c.field));
  const withWords = node.children.some((c) => partOf(c) === 'words');
  return [...(withWords ? ranges : []), ...node.children.flatMap((c) => (c.type === 'and' ? foldableRanges(c) : []))];
}

/**
 * The prefixes of `bytes` bytes (a year's or a month's code units) of the field's values from
 * `least` (inclusive) to `above` (exclusive), in order, up to `limit`: read from the value index
 * one prefix at a time (a descent each: the first value from the next prefix's least value on),
 * so a prefix of thousands of values costs what one of one value does.
 */
async function prefixesIn(db: Kysely<object>, field: string, least: Buffer | null, above: Buffer | null, bytes: number, limit: number): Promise<Buffer[]> {
  const within = sql.join([sql`r.field = ${field}`, sql`r.value is not null`, ...(above === null ? [] : [sql`r.value < ${above}`])], sql` and `);
  // The least value of the prefix after `b`: above every value starting with it (a full prefix),
  // or above it alone (a shorter value is a prefix of its own).
  const rows = await sql<{ bucket: Buffer }>`with recursive b(bucket) as (
      (select substring(r.value from 1 for ${bytes}::int) from search_range r where ${within} ${least === null ? sql`` : sql`and r.value >= ${least}`}
        order by r.value limit 1)
      union all
      select (select substring(r.value from 1 for ${bytes}::int) from search_range r where ${within} and r.value >= n.next order by r.value limit 1)
      from b cross join lateral (select rtrim(b.bucket, '\\xff'::bytea) as t) t
        cross join lateral (select case when length(b.bucket) < ${bytes}::int then b.bucket || '\\x00'::bytea when length(t.t) = 0 then null
          else set_byte(t.t, length(t.t) - 1, get_byte(t.t, length(t.t) - 1) + 1) end as next) n
      where b.bucket is not null
    )
    select bucket from b where bucket is not null limit ${limit}`.execute(db);
  return rows.rows.map((r) => r.bucket);
}

/**
 * Each range's years and months holding a value in it, as few lexemes as cover it: a year wholly
 * in the range as its year's lexeme, the months of a year a bound cuts as theirs (read from the
 * value index, `prefixesIn`). A range with no value, a month a bound cuts (not all its values in
 * the range), or more than MAX_FOLDED_LEXEMES lexemes is left out (not folded): its range rows
 * decide, as before (folded and then checked on its rows, a range cost more than either).
 */
export async function foldedRanges(db: Kysely<object>, ranges: readonly Range[]): Promise<FoldedRanges> {
  const folded = new Map<QueryNode, readonly string[]>();
  for (const range of ranges) {
    const bounds = dateBounds(range);
    if (bounds === null) continue;
    const { least, above } = bounds;
    // Whether every value of a prefix of `bytes` bytes is in the range: the prefix is, and no bound
    // longer than it starts with it (a shorter prefix is one value, found in the range).
    const whole = (prefix: Buffer, bytes: number) =>
      (least === null || Buffer.compare(prefix, least) >= 0) &&
      (above === null || Buffer.compare(prefix, above) < 0) &&
      ![least, above].some((b) => b !== null && b.length > bytes && b.subarray(0, bytes).equals(prefix));
    const years = await prefixesIn(db, range.field, least, above, YEAR_BYTES, MAX_FOLDED_LEXEMES + 1);
    const lexemes: string[] = [];
    let foldable = years.length > 0 && years.length <= MAX_FOLDED_LEXEMES;
    for (const year of foldable ? years : []) {
      if (whole(year, YEAR_BYTES)) {
        lexemes.push(prefixLexeme(range.field, year, 'year'));
        continue;
      }
      const end = successor(year);
      const from = least === null || Buffer.compare(least, year) < 0 ? year : least;
      const to = end === null ? above : above === null || Buffer.compare(end, above) < 0 ? end : above;
      const months = await prefixesIn(db, range.field, from, to, BUCKET_BYTES, MAX_FOLDED_LEXEMES + 1);
      if (months.some((month) => !whole(month, BUCKET_BYTES))) foldable = false;
      lexemes.push(...months.map((month) => prefixLexeme(range.field, month, 'month')));
      if (!foldable || lexemes.length > MAX_FOLDED_LEXEMES) break;
    }
    if (foldable && lexemes.length > 0 && lexemes.length <= MAX_FOLDED_LEXEMES) folded.set(range, lexemes);
  }
  return folded;
}

export interface ComposedQuery {
  /** The query as an SQL condition on a row of search_doc. */
  match: RawBuilder<boolean>;
  /** The same, for counting every match: a folded range of years and months in two looks (see `splitFold`). */
  counted: RawBuilder<boolean>;
  /** Whether it reads the vector: documents without one may need the evaluator (`someUndecided`). */
  text: boolean;
  /** Whether it holds a phrase, which only documents with every position decide in SQL. */
  phrases: boolean;
  /** Whether it reads the field vector, which documents whose positions were cut lack. */
  fields: boolean;
}

/** What a fields-only part of a query is over `field_words`: tsquery text, or null (see `fieldTsquery`). */
export type FieldQuery = (node: QueryNode) => string | null;

/**
 * A query holding a range or a field other than the title as one SQL condition, when each of its
 * parts is one of those, or one the vector decides (`exactQuery`), or one the field vector
 * decides (`fieldQuery`); null for a query the vector decides alone, or with a part only the
 * evaluator can decide (a field term of no words). The parts of an AND or an OR of one kind are
 * one tsquery: one look in the GIN index rather than one per part.
 *
 * The parts ANDed at the top are conditions on the row (`words @@`, `field_words @@`, a range's
 * rows, joined). A date range ANDed with a part the vector decides, with its years and months
 * read first (`foldedRanges`, `folds`), is ANDed into that part's tsquery instead, as the OR of
 * their lexemes (postgres-range-lexemes.ts): the GIN index then finds the matches of both at once.
 *
 * A composed part under an OR or a NOT is a set of keys (`keysOf`) joined to the rows: as a
 * condition, `words @@` there was tested on every row the filter keeps, each vector read from out
 * of the row, where the GIN index finds the word's keys alone.
 */
export function composedQuery(node: QueryNode, fuzzy: FuzzyExpansions, fieldQuery: FieldQuery, folds: FoldedRanges = new Map()): ComposedQuery | null {
  const row = composed(node, fuzzy, fieldQuery, folds, false);
  const scan = composed(node, fuzzy, fieldQuery, folds, true);
  return scan === null || row === null ? null : { ...row, counted: scan.match };
}

/**
 * A words part ANDed with one folded range of both whole years and months as two looks in the GIN
 * index, its words with the months and its words with the years, ORed (a BitmapOr of the two,
 * each document read once): in one tsquery, the index walks every document of the months and the
 * words together and checks each against the years (PostgreSQL starts a GIN scan from its rarest
 * entries until the query cannot hold without them). At 100k, `glacier AND
 * [2022-06 TO *]`'s count (7 months, 2 years; 4 757 matches): 11.3-11.7 -> 7.7-10.0 ms of
 * PostgreSQL CPU. Split only for the count: a row checked alone (a page walking the order's
 * index, the kept scores' walk) would read its vector twice (`glacier AND [2022-06 TO *]` sorted
 * `oldest`, split: about 500 -> 570-680 ms of PostgreSQL CPU).
 */
function splitFold(words: string, lexemes: readonly (readonly string[])[]): string[] | null {
  const [only, ...more] = lexemes;
  if (only === undefined || more.length > 0) return null;
  const years = only.filter((l) => l.startsWith('#y '));
  const months = only.filter((l) => !l.startsWith('#y '));
  if (years.length === 0 || months.length === 0) return null;
  return [months, years].map((part) => `(${words}) & (${part.map(lexeme).join(' | ')})`);
}

function composed(node: QueryNode, fuzzy: FuzzyExpansions, fieldQuery: FieldQuery, folds: FoldedRanges, split: boolean): Omit<ComposedQuery, 'counted'> | null {
  if (partOf(node) === 'words') return null;
  let text = false;
  let phrases = false;
  let fields = false;
  /** A part of one kind as `column @@ tsquery`, or null. */
  const decided = (n: QueryNode): RawBuilder<boolean> | null => {
    if (partOf(n) === 'fields') {
      const match = fieldQuery(n);
      if (match === null) return null;
      fields = true;
      return sql<boolean>`field_words @@ ${match}::tsquery`;
    }
    const found = exactQuery(n, fuzzy);
    if (found === null) return null;
    text = true;
    phrases ||= found.phrases;
    return sql<boolean>`words @@ ${found.match}::tsquery`;
  };
  /** The children of an AND or an OR of each kind as one, and the composed ones. */
  const grouped = (n: Extract<QueryNode, { type: 'and' | 'or' }>): QueryNode[] => {
    const together = (part: Part): QueryNode[] => {
      const plain = n.children.filter((c) => partOf(c) === part);
      return plain.length === 0 ? [] : [plain.length === 1 ? (plain[0] as QueryNode) : { type: n.type, children: plain }];
    };
    return [...together('words'), ...together('fields'), ...n.children.filter((c) => partOf(c) === 'composed')];
  };
  const keysOf = (n: QueryNode): RawBuilder<unknown> | null => {
    if (n.type === 'range') {
      const conditions = rangeConditions(n);
      return conditions === null ? sql`select null::text as key where false` : sql`select r.key from search_range r where ${sql.join(conditions, sql` and `)}`;
    }
    if (partOf(n) !== 'composed') {
      const match = decided(n);
      return match === null ? null : sql`select key from search_doc where ${match}`;
    }
    if (n.type === 'not') {
      const child = keysOf(n.child);
      return child === null ? null : sql`select key from search_doc except (${child})`;
    }
    if (n.type !== 'and' && n.type !== 'or') return null;
    const parts = grouped(n).map(keysOf);
    if (parts.some((p) => p === null)) return null;
    return sql.join(parts.map((p) => sql`(${p})`), sql.raw(n.type === 'and' ? ' intersect ' : ' union '));
  };
  const joined = (keys: RawBuilder<unknown> | null) => (keys === null ? null : sql<boolean>`exists (select 1 from (${keys}) k where k.key = search_doc.key)`);
  const walk = (n: QueryNode): RawBuilder<boolean> | null => {
    if (n.type === 'range') return rangeMatch(n);
    // A field part under a NOT: the documents holding it, found in the GIN index, left out. As
    // `field_words @@ !(...)`, every row the filter keeps read its field vector from out of the row.
    if (n.type === 'not' && partOf(n) === 'fields') {
      const child = joined(keysOf(n.child));
      return child === null ? null : sql<boolean>`not (${child})`;
    }
    if (partOf(n) !== 'composed') return decided(n);
    if (n.type === 'not') {
      const child = n.child.type === 'range' ? rangeMatch(n.child) : joined(keysOf(n.child));
      return child === null ? null : sql<boolean>`not (${child})`;
    }
    if (n.type === 'or') return joined(keysOf(n));
    if (n.type !== 'and') return null;
    const children = grouped(n);
    // The words part and the date ranges beside it as one tsquery (see postgres-range-lexemes.ts).
    const plain = children.find((c) => partOf(c) === 'words');
    const folded = plain === undefined ? [] : children.filter((c): c is Range => c.type === 'range' && folds.has(c));
    let together: RawBuilder<boolean>[] = [];
    if (plain !== undefined && folded.length > 0) {
      const found = exactQuery(plain, fuzzy);
      if (found === null) return null;
      text = true;
      phrases ||= found.phrases;
      const lexemes = folded.map((r) => folds.get(r) ?? []);
      const tsquery = [found.match, ...lexemes.map((l) => l.map(lexeme).join(' | '))].map((p) => `(${p})`).join(' & ');
      const halves = split ? splitFold(found.match, lexemes) : null;
      together = [halves === null ? sql<boolean>`words @@ ${tsquery}::tsquery` : sql<boolean>`(${sql.join(halves.map((h) => sql`words @@ ${h}::tsquery`), sql` or `)})`];
    }
    const parts = [...together, ...children.filter((c) => !(together.length > 0 && (c === plain || folded.includes(c as Range)))).map(walk)];
    if (parts.some((p) => p === null)) return null;
    return sql<boolean>`(${sql.join(parts as RawBuilder<boolean>[], sql` and `)})`;
  };
  const match = walk(node);
  return match === null ? null : { match, text, phrases, fields };
}

/**
 * The ranges a document must lie in for `node` to match it (those ANDed at the top), as one SQL
 * condition, or null: narrows the candidates of a query the evaluator decides
 * (`metadata.description:ice AND created:[2020 TO *]`) to the range's documents, read from its
 * index, rather than to the word's alone.
 */
export function requiredRanges(node: QueryNode): RawBuilder<boolean> | null {
  if (node.type === 'range') return rangeMatch(node);
  if (node.type !== 'and') return null;
  const parts = node.children.map(requiredRanges).filter((p): p is RawBuilder<boolean> => p !== null);
  return parts.length === 0 ? null : sql<boolean>`(${sql.join(parts, sql` and `)})`;
}
