/**
 * `JSON.parse` and `JSON.stringify` for values of megabytes, in pieces with turns of the event loop
 * between them when a slice is due. The native functions still do the work, each on a piece of at
 * most a few tens of kilobytes; these only find where the pieces are. The largest legal record
 * (1.8 MB of JSON) takes 10-20 ms to parse or encode at once: every other request would wait that
 * long, several times per write.
 * Same results as the native functions, byte for byte and value for value, errors included (a
 * text JSON.parse refuses is refused with a SyntaxError); held to them by a property test.
 */
import { keptTexts } from './kept-texts.ts';
import { largeValueSlices, type Slicing } from './time-slices.ts';
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, isJsonSpace } from './json-chars.ts';

/** How small the pieces are: tests make them tiny, so small values are cut up too. */
export interface Pieces {
  /** Containers spanning fewer characters than this are parsed by one native call. */
  chars: number;
  /** Beyond `levels` from the root, arrays and objects holding at most this many members (at any depth) are encoded by one native call. */
  members: number;
  /** Containers this close to the root (a record, its metadata, its lists) are always encoded member by member. */
  levels: number;
}

export const PIECES: Pieces = { chars: 32 * 1024, members: 512, levels: 3 };
/** Characters scanned between two looks at the clock. */
const SCAN_STEP = 16 * 1024;
/**
 * Containers nested deeper than this inside a large value are parsed whole: the pieces' recursion
 * stays shallow whatever the text (JSON.parse itself takes any depth).
 */
const MAX_SPLIT_DEPTH = 48;

function syntaxError(): SyntaxError {
  return new SyntaxError('Unexpected token in JSON');
}

export async function parseJsonInTurns(text: string, slicing: Slicing, pieces: Pieces = PIECES): Promise<unknown> {
  if (text.length <= pieces.chars) return JSON.parse(text);
  let start = 0;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  const open = text.charCodeAt(start);
  // A large string or number is one native call whatever its size.
  if (open !== OPEN_BRACE && open !== OPEN_BRACKET) return JSON.parse(text);
  const layout = await layoutOf(text, start, slicing, pieces.chars);
  // Only whitespace made the text long: the value itself is small.
  if (!layout.closeOf.has(start)) return JSON.parse(text);
  return containerAt(text, start, 0, layout, slicing, pieces.chars);
}

/**
 * What one scan of the text finds: the commas and colons of each container, by the container's
 * depth (in order, so a container's own are found by a binary search), and where each container
 * too large to parse at once closes. One scan, not one per level: the largest legal record nests
 * its large containers nine deep.
 */
interface Layout {
  commas: number[][];
  colons: number[][];
  /** Position of a large container's opening bracket -> of its closing one. */
  closeOf: Map<number, number>;
}

async function layoutOf(text: string, start: number, slicing: Slicing, pieceChars: number): Promise<Layout> {
  const scan: LayoutScan = { layout: { commas: [], colons: [], closeOf: new Map() }, opens: [], depth: 0, inString: false, next: start, rootClosed: false };
  while (scan.next < text.length) {
    if (slicing.due()) await slicing.turn();
    scanWindow(text, scan, Math.min(text.length, scan.next + SCAN_STEP), pieceChars);
  }
  if (scan.inString || scan.depth !== 0) throw syntaxError();
  return scan.layout;
}

interface LayoutScan {
  layout: Layout;
  /** The opening bracket's position of each container open around the scan. */
  opens: number[];
  depth: number;
  inString: boolean;
  /** Where the next window starts (past its end when it ended inside an escape). */
  next: number;
  rootClosed: boolean;
}

/** A synchronous loop over one window: in the async caller its locals would live in the generator's context, several times slower. */
function scanWindow(text: string, scan: LayoutScan, to: number, pieceChars: number): void {
  const { layout, opens } = scan;
  let { depth, inString } = scan;
  let i = scan.next;
  for (; i < to; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (scan.rootClosed) {
      // Only whitespace may follow the value.
      if (!isJsonSpace(c)) throw syntaxError();
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) opens[depth++] = i;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) throw syntaxError();
      const open = opens[--depth] as number;
      if (text.charCodeAt(open) !== (c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) throw syntaxError();
      if (i - open >= pieceChars && depth < MAX_SPLIT_DEPTH) layout.closeOf.set(open, i);
      if (depth === 0) scan.rootClosed = true;
    } else if (depth === 0) {
      throw syntaxError();
    } else if (depth <= MAX_SPLIT_DEPTH && (c === COMMA || c === COLON)) {
      const lists = c === COMMA ? layout.commas : layout.colons;
      (lists[depth - 1] ??= []).push(i);
    }
  }
  scan.depth = depth;
  scan.inString = inString;
  scan.next = i;
}

/** The first entry of a sorted list past `position`. */
function firstAfter(list: number[], position: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A member of a container: its span between the separators, and for an object its colon. */
interface Member {
  start: number;
  end: number;
  colon: number;
}

/** The container opening at `open` (depth `depth`), built from runs of members parsed natively and large members built the same way. */
async function containerAt(text: string, open: number, depth: number, layout: Layout, slicing: Slicing, pieceChars: number): Promise<unknown> {
  const close = layout.closeOf.get(open) as number;
  const isObject = text.charCodeAt(open) === OPEN_BRACE;
  const members = membersOf(text, open, close, depth, isObject, layout);
  const out: unknown[] | Record<string, unknown> = isObject ? {} : [];
  // Consecutive small members in one native call, a large one by itself.
  for (let i = 0; i < members.length; ) {
    const first = members[i] as Member;
    const valueStart = skipSpace(text, isObject ? first.colon + 1 : first.start);
    if (layout.closeOf.has(valueStart)) {
      const value = await containerAt(text, valueStart, depth + 1, layout, slicing, pieceChars);
      if (skipSpace(text, (layout.closeOf.get(valueStart) as number) + 1) !== first.end) throw syntaxError();
      if (Array.isArray(out)) out.push(value);
      else define(out, keyOf(text, first), value);
      i++;
      continue;
    }
    let last = i;
    while (last + 1 < members.length) {
      const next = members[last + 1] as Member;
      if (next.end - first.start > pieceChars || layout.closeOf.has(skipSpace(text, isObject ? next.colon + 1 : next.start))) break;
      last++;
    }
    if (slicing.due()) await slicing.turn();
    // The run keeps its own commas: in the container's brackets it is one JSON text.
    const run = text.slice(first.start, (members[last] as Member).end);
    if (Array.isArray(out)) {
      for (const value of JSON.parse(`[${run}]`) as unknown[]) out.push(value);
    } else {
      const values = JSON.parse(`{${run}}`) as Record<string, unknown>;
      for (const key of Object.keys(values)) define(out, key, values[key]);
    }
    i = last + 1;
  }
  return out;
}

function membersOf(text: string, open: number, close: number, depth: number, isObject: boolean, layout: Layout): Member[] {
  const commas = layout.commas[depth] ?? [];
  const colons = layout.colons[depth] ?? [];
  const members: Member[] = [];
  let start = open + 1;
  let colonAt = firstAfter(colons, open);
  const memberEnding = (end: number) => {
    let colon = -1;
    if (isObject) {
      // The first colon of the container's own past the member's start is the member's.
      while (colonAt < colons.length && (colons[colonAt] as number) < start) colonAt++;
      if (colonAt < colons.length && (colons[colonAt] as number) < end) colon = colons[colonAt] as number;
      else throw syntaxError();
    }
    if (skipSpace(text, isObject ? colon + 1 : start) >= end) throw syntaxError();
    members.push({ start, end, colon });
  };
  for (let k = firstAfter(commas, open); k < commas.length && (commas[k] as number) < close; k++) {
    memberEnding(commas[k] as number);
    start = (commas[k] as number) + 1;
  }
  // `[]` and `{}` (with spaces inside) have no member; an empty member anywhere else is an error.
  if (members.length === 0 && skipSpace(text, start) >= close) return members;
  memberEnding(close);
  return members;
}

/** The first position at or after `from` that is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

function keyOf(text: string, m: Member): string {
  const keyText = text.slice(m.start, m.colon).trim();
  if (keyText.charCodeAt(0) !== QUOTE) throw syntaxError();
  return JSON.parse(keyText) as string;
}

/** Defined, not assigned, as JSON.parse does: a `__proto__` key stays a plain member. */
function define(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A value's JSON text: by one native call, or in slices of a large record's steps when `large`
 * (what `isLarge` says of the record the value carries). The one choice every layer makes.
 * `indent`, as JSON.stringify's `space` given as a string (exports indent for people reading them).
 */
export function jsonText(value: unknown, large: boolean, indent = ''): string | Promise<string> {
  return large ? stringifyJsonInTurns(value, largeValueSlices(), PIECES, indent) : (JSON.stringify(value, null, indent) ?? 'null');
}

/**
 * JSON.stringify's text for a plain JSON value (objects, arrays, strings, finite numbers, booleans,
 * null, as stored records hold), made member by member where a container is large. A value with
 * its own `toJSON`, or of any other kind, is encoded by one native call, as JSON.stringify would.
 * `indent` is JSON.stringify's `space` as a string ('' for none): `JSON.stringify(value, null, indent)`.
 */
export async function stringifyJsonInTurns(value: unknown, slicing: Slicing, pieces: Pieces = PIECES, indent = ''): Promise<string> {
  const parts: string[] = [];
  const kept = indent === '' ? keptText(value) : undefined;
  if (kept !== undefined) return kept;
  if (!splits(value, 0, pieces)) return JSON.stringify(value, null, indent) ?? 'null';
  const stack: Frame[] = [frameOf(value as Container, 0, parts)];
  const layout = new Indents(indent);
  // Each slice's pieces are joined before its turn: joining hundreds of thousands of pieces at the
  // end was one block of 10-25 ms for a record of 20,000 creators.
  const slices: string[] = [];
  while (stack.length > 0) {
    if (slicing.due()) {
      slices.push(parts.join(''));
      parts.length = 0;
      await slicing.turn();
    }
    encodeSome(stack, parts, pieces, layout);
  }
  slices.push(parts.join(''));
  return slices.join('');
}

/**
 * What indentation adds to the text, by level: a line break and the level's indentation before
 * each member and before a non-empty container's close. A piece encoded natively is indented
 * from the left margin, so its own line breaks take its level's indentation too (a JSON text
 * has no raw line break inside a string).
 */
class Indents {
  private readonly lines: string[] = [];
  readonly indent: string;
  constructor(space: string) {
    // As JSON.stringify: at most ten characters of it.
    this.indent = space.slice(0, 10);
  }
  /** A line break and the indentation of `level` ('' when nothing is indented). */
  line(level: number): string {
    if (this.indent === '') return '';
    return (this.lines[level] ??= `\n${this.indent.repeat(level)}`);
  }
  /** JSON.stringify's indented text of `value`, placed at `level`. */
  encode(value: unknown, level: number): string | undefined {
    const text = JSON.stringify(value, null, this.indent) as string | undefined;
    return this.indent === '' || level === 0 || text === undefined ? text : text.replaceAll('\n', this.line(level));
  }
}

export type Container = unknown[] | Record<string, unknown>;

/**
 * The text `encodeOnce` kept for a value (encoded-once.ts). Looked up only for containers this
 * near the root, where kept values sit (a record's metadata at level 1 of its row and its answer,
 * its members at level 3 of a search document), and for the heavy items of lists: a few dozen
 * lookups an encoding, not one per object.
 */
const KEPT_LEVELS = 3;

const keptText = (v: unknown): string | undefined => (typeof v === 'object' && v !== null ? keptTexts.get(v) : undefined);

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
export const hasNoJson = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** A container being encoded member by member, and how far. */
interface Frame {
  container: Container;
  /** An object's keys; null for an array. */
  keys: string[] | null;
  next: number;
  level: number;
  written: boolean;
}

/** Containers JSON.stringify writes member by member: no `toJSON`, a plain or null prototype. */
export const isPlainContainer = (v: unknown): v is Container =>
  typeof v === 'object' &&
  v !== null &&
  (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) &&
  typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/**
 * Whether a value is encoded member by member rather than by one native call: near the root
 * always, deeper when it holds more than `pieces.members` members in all (a feature of few
 * members can hold thousands of coordinates).
 */
function splits(value: unknown, level: number, pieces: Pieces, knownWeight?: number): boolean {
  if (!isPlainContainer(value) || level >= MAX_SPLIT_DEPTH) return false;
  return level < pieces.levels || (knownWeight ?? weight(value, pieces.members)) > pieces.members;
}

/**
 * Members a value holds at any depth (a scalar weighs 1), counted only until the count passes `cap`.
 * Indexed and `for...in` loops: it runs over every member of a large record at each encoding, and
 * the arrays of `Object.values` and the iterator results of `for...of` were a sixth of all a large
 * draft's PUT allocated. Only where the encoding is cut depends on it, never the text.
 */
function weight(value: unknown, cap: number): number {
  if (typeof value !== 'object' || value === null) return 1;
  let count = 0;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const c = pending.pop() as Container;
    if (Array.isArray(c)) {
      count += c.length;
      if (count > cap) return count;
      for (let i = 0; i < c.length; i++) {
        const m: unknown = c[i];
        if (typeof m === 'object' && m !== null) pending.push(m);
      }
      continue;
    }
    for (const key in c) {
      if (++count > cap) return count;
      const m = c[key];
      if (typeof m === 'object' && m !== null) pending.push(m);
    }
  }
  return Math.max(count, 1);
}

function frameOf(container: Container, level: number, parts: string[]): Frame {
  const keys = Array.isArray(container) ? null : Object.keys(container);
  parts.push(keys === null ? '[' : '{');
  return { container, keys, next: 0, level, written: false };
}

/** Members (each a run of up to `pieces.members`) between two looks at the clock. */
const MEMBERS_PER_LOOK = 4;

/**
 * Encodes some members of the innermost containers: a synchronous loop, as awaiting per member
 * (an async recursion) made the encoding cost twice the native call.
 */
function encodeSome(stack: Frame[], parts: string[], pieces: Pieces, layout: Indents): void {
  for (let n = 0; n < MEMBERS_PER_LOOK && stack.length > 0; n++) {
    const frame = stack[stack.length - 1] as Frame;
    const { container, keys } = frame;
    if (keys === null) {
      const items = container as unknown[];
      if (frame.next >= items.length) {
        parts.push(frame.written ? layout.line(frame.level) : '', ']');
        stack.pop();
        continue;
      }
      if (frame.written) parts.push(',');
      frame.written = true;
      const item = items[frame.next];
      // Weighed once: for whether it is encoded member by member, and for its run.
      const itemWeight = weight(item, pieces.members);
      if (splits(item, frame.level + 1, pieces, itemWeight)) {
        frame.next++;
        parts.push(layout.line(frame.level + 1));
        const kept = frame.level + 1 <= KEPT_LEVELS && layout.indent === '' ? keptText(item) : undefined;
        if (kept !== undefined) parts.push(kept);
        else stack.push(frameOf(item as Container, frame.level + 1, parts));
        continue;
      }
      // A run of items light enough together in one native call (as JSON.stringify, what has no
      // JSON form is null in it), without its brackets: thousands of coordinate pairs are not
      // thousands of calls.
      let end = frame.next + 1;
      for (let total = itemWeight; end < items.length; end++) {
        const next = items[end];
        if (frame.level + 1 < pieces.levels && isPlainContainer(next)) break;
        total += weight(next, pieces.members);
        if (total > pieces.members) break;
      }
      // Indented, the run's text is `[` and its items each on a line of its own, then a line with `]`.
      const run = layout.encode(items.slice(frame.next, end), frame.level) as string;
      parts.push(run.slice(1, layout.indent === '' ? -1 : run.lastIndexOf('\n')));
      frame.next = end;
      continue;
    }
    if (frame.next >= keys.length) {
      parts.push(frame.written ? layout.line(frame.level) : '', '}');
      stack.pop();
      continue;
    }
    const key = keys[frame.next++] as string;
    const v = (container as Record<string, unknown>)[key];
    // As JSON.stringify: a member with no JSON form is left out of an object.
    if (hasNoJson(v)) continue;
    parts.push(frame.written ? ',' : '', layout.line(frame.level + 1), JSON.stringify(key), layout.indent === '' ? ':' : ': ');
    frame.written = true;
    const kept = frame.level + 1 <= KEPT_LEVELS && layout.indent === '' ? keptText(v) : undefined;
    if (kept !== undefined) parts.push(kept);
    else if (splits(v, frame.level + 1, pieces)) stack.push(frameOf(v as Container, frame.level + 1, parts));
    else parts.push(layout.encode(v, frame.level + 1) as string);
  }
}
