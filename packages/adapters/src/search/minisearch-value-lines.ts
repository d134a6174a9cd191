/**
 * A row's words as the MiniSearch engine keeps them: a line per value, in the order `flatten`
 * gives them, each the code of the value's path (as `MiniSearchRows.pathCode` numbers path
 * tokens), a `|`, then the value's words each inside spaces: `7| sea ice `. The text index gives
 * its text column the words without the codes, and files each line's words under its path
 * (minisearch-text.ts); a phrase on a field is looked for in one line at a time, so it never runs
 * from one value into the next, nor from one path into another.
 */
import { tokenize } from '@krs/domain/search';

/** A value's line. */
export const valueLine = (code: number, value: string): string => `${code}| ${tokenize(value).join(' ')} `;

const CODES = /^\d+\|/gm;

/** The lines' words alone, as the text column indexes them. */
export const withoutCodes = (lines: string): string => lines.replace(CODES, '');

/**
 * Calls `each` with every line's path code and its words (`' sea ice '`, spaces around each
 * word), in order.
 */
export function forEachLine(lines: string, each: (code: number, words: string) => void): void {
  for (let start = 0; start < lines.length; ) {
    let end = lines.indexOf('\n', start);
    if (end === -1) end = lines.length;
    const bar = lines.indexOf('|', start);
    if (bar !== -1 && bar < end) each(Number(lines.slice(start, bar)), lines.slice(bar + 1, end));
    start = end + 1;
  }
}

/** A field's paths by code: its own, and those below it. */
export interface FieldPaths {
  /** -1: no document ever held the path. */
  own: number;
  /** By code, 1 for each path below the field (`metadata.creators` for `metadata`). */
  below: Uint8Array;
}

/**
 * Whether the words ` a b ` (spaces around each) stand in one value of the field, as the
 * evaluator reads a field: its own values when the row has any, else those of every path below.
 * Looked for in the whole text, then each place's line asked for its path: a phrase holds no
 * line break, and starts with a space where a line's code has none.
 */
export function phraseInField(lines: string, phrase: string, field: FieldPaths): boolean {
  const ownLine = `${field.own}|`;
  const hasOwn = field.own !== -1 && (lines.startsWith(ownLine) || lines.includes(`\n${ownLine}`));
  for (let at = lines.indexOf(phrase); at !== -1; at = lines.indexOf(phrase, at + 1)) {
    const start = lines.lastIndexOf('\n', at) + 1;
    const code = Number(lines.slice(start, lines.indexOf('|', start)));
    if (hasOwn ? code === field.own : field.below[code] === 1) return true;
  }
  return false;
}
