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
import { exactQuery, type FuzzyExpansions } from './postgres-text.ts';

type Range = Extract<QueryNode, { type: 'range' }>;

/**
 * The table and its indexes: a range's matches are read in field and value order (a semi-join,
 * from the index alone once vacuumed), and a range under OR or NOT probes one document's rows
 * by key. Dropped with the document's row (cascade), and rewritten by every upsert.
 */
export const RANGE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_range (key text NOT NULL REFERENCES search_doc (key) ON DELETE CASCADE, field text NOT NULL,
    value bytea NOT NULL, number float8)`,
  'CREATE INDEX IF NOT EXISTS search_range_value ON search_range (field, value) INCLUDE (key)',
  'CREATE INDEX IF NOT EXISTS search_range_number ON search_range (field, number) INCLUDE (key) WHERE number IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS search_range_key ON search_range (key) INCLUDE (field, value, number)',
];

/** What the domain's `compare` takes for a number. */
const NUMBER = /^-?\d+(\.\d+)?$/;

const isRangeField = (field: string) => (RANGE_FIELDS as readonly string[]).includes(field);

/** A text as its UTF-16 code units, big-endian: bytewise, JavaScript's order of strings. */
const codeUnits = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

/**
 * The least byte string above every string starting with `bytes` (the last byte below 0xff
 * raised by one, the 0xff bytes after it dropped), or null when there is none: every string
 * is then at most one that starts with it.
 */
function successor(bytes: Buffer): Buffer | null {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return null;
  const next = Buffer.from(bytes.subarray(0, end));
  next[end - 1] = (next[end - 1] as number) + 1;
  return next;
}

/** Replaces the range rows of `docs` (already in search_doc) with their values now. */
export async function writeRanges(db: Kysely<object>, docs: readonly SearchDocument[]): Promise<void> {
  const keys: string[] = [];
  const fields: string[] = [];
  const values: Buffer[] = [];
  const numbers: (number | null)[] = [];
  for (const doc of docs) {
    // A range field's own values, as the evaluator compares them.
    for (const [field, value] of rangeValues(flatten(doc.body))) {
      keys.push(doc.key);
      fields.push(field);
      values.push(codeUnits(value));
      numbers.push(NUMERIC_RANGE_FIELDS.includes(field) && NUMBER.test(value) ? Number(value) : null);
    }
  }
  await sql`delete from search_range where key = any(${docs.map((d) => d.key)}::text[])`.execute(db);
  if (keys.length === 0) return;
  // node-postgres writes a number past float8's range as `Infinity`, which float8 reads back.
  await sql`insert into search_range (key, field, value, number)
    select * from unnest(${keys}::text[], ${fields}::text[], ${values}::bytea[], ${numbers}::float8[])`.execute(db);
}

/** The conditions on one `search_range` row (`r`) for its value to lie in the range, or null when none can. */
function rangeConditions(node: Range): RawBuilder<boolean>[] | null {
  if (!isRangeField(node.field)) return null;
  const conditions: RawBuilder<boolean>[] = [sql<boolean>`r.field = ${node.field}`];
  if (NUMERIC_RANGE_FIELDS.includes(node.field)) {
    const bounds = [node.min, node.max].filter((b): b is string => b !== null);
    if (bounds.some((b) => !NUMBER.test(b))) return null;
    for (const [bound, include, operator] of [[node.min, node.includeMin, '>'], [node.max, node.includeMax, '<']] as const) {
      if (bound === null) continue;
      const limit = Number(bound);
      conditions.push(sql<boolean>`r.number ${sql.raw(include ? `${operator}=` : operator)} ${limit}::float8`);
      // The domain subtracts: an infinite value minus the same infinite bound is NaN, in no range.
      if (!Number.isFinite(limit)) conditions.push(sql<boolean>`r.number <> ${limit}::float8`);
    }
    return conditions;
  }
  if (node.min !== null) {
    // At least the bound on its precision: at least the bound; above it: at least its successor.
    const least = node.includeMin ? codeUnits(node.min) : successor(codeUnits(node.min));
    if (least === null) return null;
    conditions.push(sql<boolean>`r.value >= ${least}`);
  }
  if (node.max !== null) {
    // At most the bound on its precision: below its successor; below it: below the bound.
    const above = node.includeMax ? successor(codeUnits(node.max)) : codeUnits(node.max);
    if (above !== null) conditions.push(sql<boolean>`r.value < ${above}`);
  }
  return conditions;
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

export interface ComposedQuery {
  /** The query as an SQL condition on a row of search_doc. */
  match: RawBuilder<boolean>;
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
 * rows, joined). A composed part under an OR or a NOT is a set of keys (`keysOf`) joined to the
 * rows: as a condition, `words @@` there was tested on every row the filter keeps, each vector
 * read from out of the row, where the GIN index finds the word's keys alone.
 */
export function composedQuery(node: QueryNode, fuzzy: FuzzyExpansions, fieldQuery: FieldQuery): ComposedQuery | null {
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
    const parts = grouped(n).map(walk);
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
