/**
 * Counts of each word by publication month, kept by the writes (`search_count_year`), so that a
 * public listing of `word AND metadata.publication_date:[...]` is counted from a few kept rows:
 * the range's whole years and the months of a year a bound cuts, as `foldedRanges` gives them
 * (it folds no range cutting a month). At 100k, `glacier AND [2022-06 TO *]` read its 4 757
 * matches' rows (about 4 000 heap pages, as PostgreSQL 17 fetches every page of a bitmap scan)
 * for the facet columns.
 *
 * A row is a delta, as in `search_count`: a word, the year and month lexemes of the document's
 * publication date (postgres-range-lexemes.ts), the facet columns and a signed number of
 * documents, summed when read, folded by the writes past FOLD_AT rows of a group. Only documents
 * anyone may list (`COUNTED`), only words of letters first (not numbers, 27% of a bench record's
 * words, mostly its shapes' coordinates; not word pairs, paths or range lexemes), only the
 * publication date: every other date field would write as many rows again, for queries no one
 * was measured asking. A document whose publication dates fall in several months would be
 * counted once a month: it is not kept by word but counted under the empty word, year and month
 * (SEVERAL), and while any listed document is, a listing is counted from its matches as before.
 */
import { sql, type RawBuilder } from 'kysely';
import type { QueryNode } from '@krs/domain/search';
import type { FoldedRanges } from './postgres-ranges.ts';
import { YEAR_BYTES } from './postgres-range-lexemes.ts';
import { lexeme, singleLexeme } from './postgres-text.ts';

/** The date field whose years are kept by word. */
export const KEPT_YEAR_FIELD = 'metadata.publication_date';
const YEAR_PREFIX = `#y ${KEPT_YEAR_FIELD} `;
const MONTH_PREFIX = `#m ${KEPT_YEAR_FIELD} `;

/** The word, year and month under which a document of several publication months is counted. */
const SEVERAL = '';

export const YEAR_COUNT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS search_count_year (lexeme text NOT NULL, year text NOT NULL, month text NOT NULL, kind text NOT NULL,
    resource_type text, resource_type_label text, access_status text NOT NULL, n integer NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS search_count_year_lexeme ON search_count_year (lexeme, year, month)',
];

/** The year lexeme of a month lexeme: its first code units (postgres-range-lexemes.ts). */
const yearOf = (month: string) => `${YEAR_PREFIX}${month.slice(MONTH_PREFIX.length, MONTH_PREFIX.length + 2 * YEAR_BYTES)}`;

/**
 * The statement adding the changed rows' deltas (`changed`: a select of the kept columns and
 * `sign`), the words and months it touched into YEAR_TOUCHED's variables.
 */
export const yearCountStatements = (changed: string) => `
    WITH delta AS (
      SELECT w.l AS lexeme, y.year, y.month, d.kind, d.resource_type, d.resource_type_label, d.access_status, sum(d.sign)::integer AS n
      FROM (${changed}) d
        CROSS JOIN LATERAL (SELECT tsvector_to_array(d.words) AS a) v
        CROSS JOIN LATERAL (SELECT array_agg(l) FILTER (WHERE starts_with(l, '${YEAR_PREFIX}')) AS years,
          array_agg(l) FILTER (WHERE starts_with(l, '${MONTH_PREFIX}')) AS months FROM unnest(v.a) l) b
        CROSS JOIN LATERAL (SELECT CASE WHEN cardinality(b.months) = 1 THEN b.years[1] ELSE '${SEVERAL}' END AS year,
          CASE WHEN cardinality(b.months) = 1 THEN b.months[1] ELSE '${SEVERAL}' END AS month) y
        CROSS JOIN LATERAL (SELECT l FROM unnest(v.a) l WHERE cardinality(b.months) = 1 AND ascii(l) NOT IN (32, 35, 36) AND ascii(l) NOT BETWEEN 48 AND 57
          UNION ALL SELECT '${SEVERAL}' WHERE cardinality(b.months) > 1) w(l)
      GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(d.sign) <> 0
    ), added AS (
      INSERT INTO search_count_year (lexeme, year, month, kind, resource_type, resource_type_label, access_status, n) SELECT * FROM delta RETURNING lexeme, year, month
    )
    SELECT array_agg(lexeme), array_agg(year), array_agg(month) INTO touched_words, touched_years, touched_months
      FROM (SELECT DISTINCT lexeme, year, month FROM added) a;`;

/** The trigger's variables `yearCountStatements` sets and `yearCountFold` reads. */
export const YEAR_TOUCHED = 'touched_words text[]; touched_years text[]; touched_months text[];';

/**
 * Words and months a write touched of which it looks for crowded groups, one in so many, drawn
 * at random: each look reads every facet group's rows of a word and month (at 100k, 5 000 looks
 * and 60 000 rows for 200 documents, 1.5 ms of PostgreSQL CPU a document written, against 2.7
 * for the rest of the write), and a group then waits for a few more writes to be folded.
 */
const FOLD_LOOKS = 8;

/**
 * Folds the crowded groups (`foldAt` rows or more) of some words and months a write touched
 * (FOLD_LOOKS), each into one row.
 */
export const yearCountFold = (foldAt: number) => `IF touched_words IS NOT NULL THEN
      WITH crowded AS (
        SELECT c.lexeme, c.year, c.month, c.kind, c.resource_type, c.resource_type_label, c.access_status
        FROM (SELECT * FROM unnest(touched_words, touched_years, touched_months) t(l, y, m) WHERE random() < 1.0 / ${FOLD_LOOKS}) t
          JOIN search_count_year c ON c.lexeme = t.l AND c.year = t.y AND c.month = t.m
        GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING count(*) >= ${foldAt}
      ), mine AS (
        SELECT c.ctid FROM search_count_year c JOIN crowded g ON c.lexeme = g.lexeme AND c.year = g.year AND c.month = g.month AND c.kind = g.kind
          AND c.resource_type IS NOT DISTINCT FROM g.resource_type AND c.resource_type_label IS NOT DISTINCT FROM g.resource_type_label
          AND c.access_status = g.access_status
        FOR UPDATE OF c SKIP LOCKED
      ), folded AS (
        DELETE FROM search_count_year c USING mine WHERE c.ctid = mine.ctid RETURNING c.*
      )
      INSERT INTO search_count_year (lexeme, year, month, kind, resource_type, resource_type_label, access_status, n)
        SELECT lexeme, year, month, kind, resource_type, resource_type_label, access_status, sum(n)::integer FROM folded
        GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(n) <> 0;
    END IF;`;

/** Whether a word's counts are kept by month: what `yearCountStatements` keeps (a space, `#`, `$` or a digit first is not). */
const isKept = (word: string): boolean => {
  const first = word.charCodeAt(0);
  return !(first === 32 || first === 35 || first === 36 || (first >= 48 && first <= 57));
};

/** The words of a listing's range + word to count from the kept rows, and the range's years and months. */
export interface YearCounted {
  word: string;
  years: readonly string[];
  months: readonly string[];
}

/**
 * `word AND metadata.publication_date:[...]` (an unfielded word, not a title's; its range folded
 * into years and months, `foldedRanges`) as what `yearCountsSql` counts; null for any other query.
 */
export function yearCounted(query: QueryNode, folded: FoldedRanges): YearCounted | null {
  if (query.type !== 'and' || query.children.length !== 2) return null;
  const range = query.children.find((c) => c.type === 'range' && c.field === KEPT_YEAR_FIELD && folded.has(c));
  const word = query.children.find((c) => c !== range);
  const one = word === undefined ? null : singleLexeme(word);
  const lexemes = range === undefined ? undefined : folded.get(range);
  if (one === null || one.titleOnly || !isKept(one.lexeme) || lexemes === undefined) return null;
  return { word: one.lexeme, years: lexemes.filter((l) => l.startsWith('#y ')), months: lexemes.filter((l) => !l.startsWith('#y ')) };
}

/**
 * The groups of a listing's `word AND` publication range, as the counting statement makes them,
 * from the word's kept counts in the range's whole years and in the months of the years a bound
 * cuts, and a signed-in reader's own matches (`own` of a condition) grouped from their rows.
 * `several`: whether some listed document of the kinds has publication dates in several months,
 * when the counts are not to be used.
 */
export function yearCountsSql(
  counted: YearCounted,
  parts: {
    kinds: readonly string[];
    own: (match: RawBuilder<boolean>) => RawBuilder<boolean> | null;
    groupSelect: readonly RawBuilder<unknown>[];
    groupBy: readonly RawBuilder<unknown>[];
    labelled: boolean;
  },
): RawBuilder<{ several: boolean; counts: unknown[] }> {
  const { word, years, months } = counted;
  const kinds = [...parts.kinds];
  const own = parts.own(sql<boolean>`words @@ ${`${lexeme(word)} & (${[...years, ...months].map(lexeme).join(' | ')})`}::tsquery`);
  return sql<{ several: boolean; counts: unknown[] }>`with several as materialized (
      select coalesce(sum(n), 0) > 0 as s from search_count_year where lexeme = ${SEVERAL} and year = ${SEVERAL} and kind = any(${kinds}::text[])
    ), groups as (
      select ${sql.join([...parts.groupSelect, parts.labelled ? sql`min(resource_type_label) as label` : sql`null as label`, sql`sum(n) as n`])} from (
        select kind, resource_type, resource_type_label, access_status, sum(n) as n from search_count_year
          where lexeme = ${word} and year = any(${[...years, ...months.map(yearOf)]}::text[]) and (year = any(${[...years]}::text[]) or month = any(${[...months]}::text[]))
            and kind = any(${kinds}::text[]) and not (select s from several)
          group by kind, resource_type, resource_type_label, access_status having sum(n) > 0
        ${
          own === null
            ? sql``
            : sql`union all select kind, resource_type, resource_type_label, access_status, count(*) as n from search_doc
          where not (select s from several) and ${own} group by kind, resource_type, resource_type_label, access_status`
        }) g
      ${parts.groupBy.length === 0 ? sql`` : sql`group by ${sql.join(parts.groupBy)}`}
    )
    select (select s from several) as several, (select coalesce(json_agg(c order by c.label), '[]') from groups c) as counts`;
}
