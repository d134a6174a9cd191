/**
 * A date range field's values as lexemes of a document's vector (`words`), one per year and one
 * per month (a value's first 4 and BUCKET_UNITS code units, as postgres-range-buckets.ts counts
 * months), so that words and a date range ANDed together are one look in the GIN index:
 * `sentinel & ('#y f 2020' | '#y f 2021')`, the range's whole years and the months of the years a
 * bound cuts, rather than each of the words' matches probed for a range row (at 100k, `sentinel
 * AND [2020 TO 2021]` read the word's 54 817 rows and the range's 24 000 index entries).
 *
 * A lexeme is `#`, `y` or `m`, the field, and the prefix's UTF-16 code units in hex: exact whatever
 * the value holds (a lone surrogate, which no UTF-8 text may). No word (letters and digits), word
 * pair (a space first) or path lexeme (`$` first) starts with `#`, and neither can a prefix a query
 * asks: no query of words reaches them. Positionless, they are in no phrase and no rank, and
 * outside the lexemes a rank is damped by (`word_count`).
 */
import { NUMERIC_RANGE_FIELDS, RANGE_FIELDS, rangeValues, type FlatDoc } from '@krs/domain/search';

/** Code units of a bucket: a month of an ISO date. */
export const BUCKET_UNITS = 7;
export const BUCKET_BYTES = BUCKET_UNITS * 2;
/** Bytes of a year's code units: a range's whole years are one lexeme each, not twelve. */
export const YEAR_BYTES = 8;

/** A text as its UTF-16 code units, big-endian: bytewise, JavaScript's order of strings. */
export const codeUnits = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

/** The lexeme of a value's year or month (its first code units, as `codeUnits` gives them) in a date range field. */
export const prefixLexeme = (field: string, prefix: Buffer, level: 'year' | 'month'): string => `#${level === 'year' ? 'y' : 'm'} ${field} ${prefix.toString('hex')}`;

/** The range fields compared as text, by bucket; `versions.index` compares as numbers. */
export const isBucketedField = (field: string): boolean => (RANGE_FIELDS as readonly string[]).includes(field) && !NUMERIC_RANGE_FIELDS.includes(field);

/** The year and month lexemes of a document's date range values, each once. */
export function rangeLexemes(flat: FlatDoc): string[] {
  const lexemes = new Set<string>();
  for (const [field, value] of rangeValues(flat)) {
    if (!isBucketedField(field)) continue;
    const units = codeUnits(value);
    lexemes.add(prefixLexeme(field, units.subarray(0, YEAR_BYTES), 'year'));
    lexemes.add(prefixLexeme(field, units.subarray(0, BUCKET_BYTES), 'month'));
  }
  return [...lexemes];
}
