/**
 * The length of a value's JSON text (`JSON.stringify(value).length`) without making the text: the
 * metadata size limit needs only the length, and encoding the largest legal record to learn it
 * cost a large draft's write 10-15 ms of CPU and megabytes of strings to collect, on top of the
 * encodings that store and answer it. Counted in slices of a large value's steps; held to
 * JSON.stringify by a property test.
 */
import { hasNoJson, isPlainContainer, type Container } from './json-in-turns.ts';
import type { Slicing } from './time-slices.ts';
import { BACKSLASH, QUOTE } from './json-chars.ts';

/** Values counted between two looks at the clock. */
const VALUES_PER_LOOK = 256;
/** Containers deeper than this are measured natively: the walk's stack stays shallow, and a cycle throws rather than loops. */
const MAX_WALK_DEPTH = 48;

/** What JSON.stringify writes escaped: a string with none of them is its length and its quotes. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Characters a string's escapes add to its JSON text, beyond its own length and its quotes. */
function escapedExtra(s: string): number {
  if (!NEEDS_ESCAPE.test(s)) return 0;
  let extra = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) extra += 1;
    else if (c < 0x20) extra += 5;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      // A pair is written as it is; a lone half as `\udxxx`, as the well-formed JSON.stringify does.
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else extra += 5;
    } else if (c >= 0xdc00 && c <= 0xdfff) extra += 5;
  }
  return extra;
}

const stringLength = (s: string) => s.length + 2 + escapedExtra(s);

/** The length of a value measured at once: a scalar, or a container past MAX_WALK_DEPTH or not plain. */
function scalarLength(v: unknown): number {
  if (typeof v === 'string') return stringLength(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4;
  if (typeof v === 'boolean') return v ? 4 : 5;
  if (v === null) return 4;
  // Dates, boxed values, deep containers (a cycle throws, as it does there), BigInt (throws too).
  return (JSON.stringify(v) ?? 'null').length;
}

/** A container being measured: the members still to count. */
interface Frame {
  container: Container;
  keys: string[] | null;
  next: number;
  written: number;
}

function frameOf(container: Container): Frame {
  return { container, keys: Array.isArray(container) ? null : Object.keys(container), next: 0, written: 0 };
}

/** Counts up to VALUES_PER_LOOK members of the innermost containers; returns the characters counted. */
function countSome(stack: Frame[]): number {
  let length = 0;
  for (let n = 0; n < VALUES_PER_LOOK && stack.length > 0; n++) {
    const frame = stack[stack.length - 1] as Frame;
    const { container, keys } = frame;
    const size = keys === null ? (container as unknown[]).length : keys.length;
    if (frame.next >= size) {
      // The brackets and the commas between the members written.
      length += 2 + Math.max(0, frame.written - 1);
      stack.pop();
      continue;
    }
    let v: unknown;
    if (keys === null) {
      v = (container as unknown[])[frame.next++];
      if (hasNoJson(v)) {
        length += 4;
        frame.written++;
        continue;
      }
    } else {
      const key = keys[frame.next++] as string;
      v = (container as Record<string, unknown>)[key];
      if (hasNoJson(v)) continue;
      length += stringLength(key) + 1;
    }
    frame.written++;
    if (isPlainContainer(v) && stack.length < MAX_WALK_DEPTH) stack.push(frameOf(v));
    else length += scalarLength(v);
  }
  return length;
}

/** `JSON.stringify(value).length` (0 where JSON.stringify gives nothing), giving the loop back when `slicing` says. */
export async function jsonLengthInTurns(value: unknown, slicing: Slicing): Promise<number> {
  if (hasNoJson(value)) return 0;
  if (!isPlainContainer(value)) return scalarLength(value);
  const stack: Frame[] = [frameOf(value)];
  let length = 0;
  while (stack.length > 0) {
    if (slicing.due()) await slicing.turn();
    length += countSome(stack);
  }
  return length;
}
