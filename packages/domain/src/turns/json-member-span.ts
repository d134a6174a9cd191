/**
 * Where a top-level member's value lies in a JSON object's text, found by one scan of its
 * characters in slices, without parsing: a write that replaces a stored record's metadata reads
 * the rest of the record only (parsing the largest legal record made 10 MB of objects that lived
 * through the write, for the young generation to copy).
 */
import type { Slicing } from './time-slices.ts';
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, isJsonSpace } from './json-chars.ts';

/** Characters scanned between two looks at the slice. */
const CHARS_PER_STEP = 64 * 1024;

interface Scan {
  at: number;
  depth: number;
  /** Where the last string at depth 1 began and ended (its quotes), while its colon may follow. */
  keyStart: number;
  keyEnd: number;
  /** Where the member's value begins, once found. */
  valueStart: number;
}

/**
 * `[start, end)` of the value of `key`, a top-level member of the object `text` is, or null when
 * the text has no such member or is not an object. `text` must be valid JSON (a stored row is):
 * the scan tracks strings and nesting only, and finds the key as JSON.stringify writes it. With a
 * key given twice, the last one counts, as in JSON.parse.
 */
export async function memberSpanInTurns(text: string, key: string, slicing: Slicing, charsPerStep = CHARS_PER_STEP): Promise<[number, number] | null> {
  const quoted = JSON.stringify(key);
  let first = 0;
  while (isJsonSpace(text.charCodeAt(first))) first++;
  if (text.charCodeAt(first) !== OPEN_BRACE) return null;
  const scan: Scan = { at: 0, depth: 0, keyStart: -1, keyEnd: -1, valueStart: -1 };
  let found: [number, number] | null = null;
  while (scan.at < text.length) {
    const end = scanSome(text, quoted, scan, Math.min(text.length, scan.at + charsPerStep));
    if (end !== null) {
      found = end;
      scan.valueStart = -1;
    }
    if (slicing.due()) await slicing.turn();
  }
  return found;
}

/** Scans up to `to`; the span of the member's value when it ends in this step. */
function scanSome(text: string, quoted: string, scan: Scan, to: number): [number, number] | null {
  let at = scan.at;
  let depth = scan.depth;
  let span: [number, number] | null = null;
  while (at < to) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      const start = at;
      at++;
      // A string runs to the next quote that no backslash escapes (steps past the stop are fine: a string is never cut).
      for (;;) {
        const q = text.indexOf('"', at);
        if (q < 0) {
          at = text.length;
          break;
        }
        let slashes = 0;
        while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
        at = q + 1;
        if (slashes % 2 === 0) break;
      }
      if (depth === 1 && scan.valueStart < 0) {
        scan.keyStart = start;
        scan.keyEnd = at;
      }
      continue;
    }
    if (c === COLON && depth === 1 && scan.keyStart >= 0) {
      if (scan.keyEnd - scan.keyStart === quoted.length && text.startsWith(quoted, scan.keyStart)) {
        let v = at + 1;
        while (isJsonSpace(text.charCodeAt(v))) v++;
        scan.valueStart = v;
      }
      scan.keyStart = -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0 && scan.valueStart >= 0) span = [scan.valueStart, trimEnd(text, at)];
    } else if (c === COMMA && depth === 1 && scan.valueStart >= 0) {
      span = [scan.valueStart, trimEnd(text, at)];
    }
    at++;
    if (span !== null) break;
  }
  scan.at = at;
  scan.depth = depth;
  return span;
}

/** The end of a value that the comma or brace at `at` follows, whitespace before it left out. */
function trimEnd(text: string, at: number): number {
  let end = at;
  while (end > 0 && isJsonSpace(text.charCodeAt(end - 1))) end--;
  return end;
}
