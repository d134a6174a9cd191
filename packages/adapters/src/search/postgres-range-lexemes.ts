/**
 * A date range field's values as lexemes of a document's vector (`words`), one per bucket (a
 * value's first BUCKET_UNITS code units, as postgres-range-buckets.ts counts them), so that words
 * and a date range ANDed together are one look in the GIN index: `glacier & ('#f a' | '#f b' ...)`,
 * the buckets holding a value in the range, rather than each of the word's matches probed for a
 * range row (at 100k, `glacier AND [2022-06 TO *]` read the word's 9 246 rows and the range's
 * 51 369 index entries for its 4 757 matches).
 *
 * A lexeme is `#`, the field, a space and the bucket's UTF-16 code units in hex: exact whatever
 * the value holds (a lone surrogate, which no UTF-8 text may). No word (letters and digits), word
 * pair (a space first) or path lexeme (`$` first) starts with `#`, and neither can a prefix a query
 * asks: no query of words reaches them. Positionless, they are in no phrase and no rank, and
 * outside the lexemes a rank is damped by (`word_count`).
 */
import { NUMERIC_RANGE_FIELDS, RANGE_FIELDS, rangeValues, type FlatDoc } from '@krs/domain/search';

/** Code units of a bucket: a month of an ISO date. */
export const BUCKET_UNITS = 7;
export const BUCKET_BYTES = BUCKET_UNITS * 2;

/** A text as its UTF-16 code units, big-endian: bytewise, JavaScript's order of strings. */
export const codeUnits = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

/** The lexeme of a bucket (its code units, as `codeUnits` gives them) of a date range field. */
export const bucketLexeme = (field: string, bucket: Buffer): string => `#${field} ${bucket.toString('hex')}`;

/** The range fields compared as text, by bucket; `versions.index` compares as numbers. */
export const isBucketedField = (field: string): boolean => (RANGE_FIELDS as readonly string[]).includes(field) && !NUMERIC_RANGE_FIELDS.includes(field);

/** The bucket lexemes of a document's date range values, each once. */
export function rangeLexemes(flat: FlatDoc): string[] {
  const lexemes = new Set<string>();
  for (const [field, value] of rangeValues(flat)) if (isBucketedField(field)) lexemes.add(bucketLexeme(field, codeUnits(value).subarray(0, BUCKET_BYTES)));
  return [...lexemes];
}
