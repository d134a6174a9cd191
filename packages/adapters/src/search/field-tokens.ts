/**
 * The words of each field path as tokens of the `doc_field` index: a word of a value at path
 * number n is the token `x<n>z<word>`, the word encoded as `encodeToken` encodes it, so FTS5
 * keeps each whole and the words are exactly those the domain's `tokenize` makes. Prefixes of a
 * word in one path are prefix queries (`"x<n>zice" *`), and `x<n>z` alone marks a document where
 * the path holds values of its own and also has members with values (`metadata.subjects` as
 * both `"ice"` and `{subject: "sea"}`): the evaluator then reads the path's own values only.
 *
 * A path's values follow one another separated by `VALUE_GAP`, so a phrase never runs from one
 * value into the next; values of different paths never form one (their tokens differ).
 */
import { tokenize, type FlatDoc } from '@krs/domain/search';
import { encodeToken } from './path-token.ts';

/** Between two values of one path: no encoded word is a lone `z`, and no query asks for it. */
export const VALUE_GAP = 'z';

/**
 * What starts each token of the path numbered `pathId`. Evaluated by the writer thread too (as
 * its source), where the numbers are given: keep it a plain expression of its argument.
 */
export const fieldPrefix = (pathId: number): string => 'x' + pathId + 'z';

export const fieldToken = (pathId: number, word: string): string => fieldPrefix(pathId) + encodeToken(word);

/** One path of a document: its values' encoded words, `VALUE_GAP` between values, and whether it also has members. */
export type FieldWords = [path: string, words: string, mixed: 0 | 1];

const ASCII = /^[\x00-\x7f]*$/;
const ENCODED_Z = encodeToken('z');

/**
 * A value's words, encoded and separated by spaces. On ASCII text `tokenize` is lowercasing and
 * splitting on anything but letters and digits, which is done here without its Unicode
 * normalisation and per-word arrays: 16 -> 7 us per document of the benchmark's corpus.
 */
export const valueWords = (value: string): string =>
  ASCII.test(value) ? value.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim().replace(/z/g, ENCODED_Z) : tokenize(value).map(encodeToken).join(' ');

/** Values tokenized between two calls of `takeTurn` (which looks at the clock): the largest legal record has tens of thousands. */
const VALUES_PER_STEP = 1_024;
/** Or characters: a few long values take as long to tokenize as many short ones. */
const CHARS_PER_STEP = 32_768;

/**
 * Each path's words as the writer stores them (the writer puts the path's number before each);
 * `mixed` says, per path in `flat`'s order, whether it also has members holding values
 * (`pathShape`). Taking turns as `joinInTurns` does: tokenizing the largest legal record takes
 * tens of milliseconds.
 */
export async function fieldWordsInTurns(flat: FlatDoc, mixed: readonly (0 | 1)[], takeTurn: () => Promise<void>): Promise<FieldWords[]> {
  const out: FieldWords[] = [];
  let values = 0;
  let chars = 0;
  const gap = ` ${VALUE_GAP} `;
  for (const [path, all] of flat) {
    // Joined a step at a time, then the steps' texts joined with the same gap: the same text, and
    // no join of tens of thousands of values in one go.
    const steps: string[] = [];
    let parts: string[] = [];
    for (const value of all) {
      parts.push(valueWords(value));
      chars += value.length;
      if (++values >= VALUES_PER_STEP || chars >= CHARS_PER_STEP) {
        steps.push(parts.join(gap));
        parts = [];
        values = 0;
        chars = 0;
        await takeTurn();
      }
    }
    if (parts.length > 0 || steps.length === 0) steps.push(parts.join(gap));
    out.push([path, steps.join(gap), mixed[out.length] ?? 0]);
  }
  return out;
}
