/**
 * A query decided as lists of rowids combined in memory, for queries with ranges once their
 * values are held in memory (range-values.ts): the leaves FTS5 answers are read as `querySql`
 * groups them (sibling words in one match of `doc_fts`, sibling field leaves in one of
 * `doc_field`), ranges come from memory, and AND, OR and NOT are taken on the lists. In SQL, a
 * NOT read every row of `doc`, and `rowid IN (...)` of a range built an index of its rows first.
 */
import { queryLeaves, type QueryNode } from '@krs/domain/search';
import { matchText, siblingsGrouped, type QueryContext } from './fts-query.ts';
import { fieldMatch, isEmptyFieldTerm } from './field-query.ts';
import type { RangeNode } from './range-values.ts';

export interface RowSources {
  /** The rows of an FTS5 expression over `doc_fts`. */
  text(expression: string): Promise<Int32Array>;
  /** The rows of an FTS5 expression over `doc_field`. */
  fields(expression: string): Promise<Int32Array>;
  /** The rows of a range, each once; with `outsideUpTo`, the rows up to it the range does not take. */
  range(node: RangeNode, outsideUpTo?: number): Promise<Int32Array>;
  /** The rows of a range as a byte per rowid (1: taken). */
  rangeMarks(node: RangeNode): Promise<Uint8Array>;
  /** The highest rowid of a document: NOT takes the rows up to it that its operand does not. */
  highest(): number;
  /** Awaited between the steps of a pass over the lists: gives the event loop back when a slice is due. */
  pause: () => Promise<void>;
}

/** Whether the query holds a range. */
export const hasRange = (node: QueryNode): boolean => queryLeaves(node).some((leaf) => leaf.type === 'range');

/**
 * Values a pass over a list goes through between two pauses: tens of microseconds of marking or
 * listing, so a pass over a million rows gives the loop back as often as its caller's slices say
 * (the lists of a query at 100k records, united and listed at once, held it for several
 * milliseconds beside the cheap GETs).
 */
const VALUES_PER_STEP = 16384;

/** `run` over `[0, length)` a step at a time, awaiting `pause` between steps. */
async function inSteps(length: number, run: (from: number, to: number) => void, pause: () => Promise<void>): Promise<void> {
  for (let from = 0; from < length; from += VALUES_PER_STEP) {
    if (from > 0) await pause();
    run(from, Math.min(length, from + VALUES_PER_STEP));
  }
}

/** The highest value of the lists, or `top` if higher. */
async function highestOf(lists: readonly Int32Array[], top: number, pause: () => Promise<void>): Promise<number> {
  let highest = top;
  for (const list of lists)
    await inSteps(
      list.length,
      (from, to) => {
        for (let i = from; i < to; i++) if ((list[i] as number) > highest) highest = list[i] as number;
      },
      pause,
    );
  return highest;
}

/** Rows in every list (each without repeats), counted in a byte per rowid of the shortest; `pause` awaited between steps. */
export async function intersectRows(lists: readonly Int32Array[], pause: () => Promise<void>): Promise<Int32Array> {
  const [first, ...rest] = [...lists].sort((a, b) => a.length - b.length);
  if (first === undefined) return new Int32Array(0);
  if (rest.length === 0) return first;
  const highest = await highestOf([first], 0, pause);
  const seen = new Uint8Array(highest + 1);
  await inSteps(
    first.length,
    (from, to) => {
      for (let i = from; i < to; i++) seen[first[i] as number] = 1;
    },
    pause,
  );
  for (const list of rest)
    await inSteps(
      list.length,
      (from, to) => {
        for (let i = from; i < to; i++) {
          const x = list[i] as number;
          if (x <= highest && seen[x] !== 0) seen[x] = (seen[x] as number) + 1;
        }
      },
      pause,
    );
  const out = new Int32Array(first.length);
  let n = 0;
  await inSteps(
    first.length,
    (from, to) => {
      for (let i = from; i < to; i++) if (seen[first[i] as number] === lists.length) out[n++] = first[i] as number;
    },
    pause,
  );
  return out.subarray(0, n);
}

/** The rows a byte marks. */
async function kept(rows: Int32Array, marked: Uint8Array, pause: () => Promise<void>): Promise<Int32Array> {
  const out = new Int32Array(rows.length);
  let n = 0;
  await inSteps(
    rows.length,
    (from, to) => {
      for (let i = from; i < to; i++) if (marked[rows[i] as number] === 1) out[n++] = rows[i] as number;
    },
    pause,
  );
  return out.subarray(0, n);
}

async function marks(lists: readonly Int32Array[], top: number, pause: () => Promise<void>): Promise<Uint8Array> {
  const seen = new Uint8Array((await highestOf(lists, top, pause)) + 1);
  for (const list of lists)
    await inSteps(
      list.length,
      (from, to) => {
        for (let i = from; i < to; i++) seen[list[i] as number] = 1;
      },
      pause,
    );
  return seen;
}

async function listed(seen: Uint8Array, wanted: 0 | 1, to: number, pause: () => Promise<void>): Promise<Int32Array> {
  let n = 0;
  await inSteps(
    to + 1,
    (a, b) => {
      for (let x = a; x < b; x++) if (seen[x] === wanted) n++;
    },
    pause,
  );
  const out = new Int32Array(n);
  n = 0;
  await inSteps(
    to + 1,
    (a, b) => {
      for (let x = a; x < b; x++) if (seen[x] === wanted) out[n++] = x;
    },
    pause,
  );
  return out;
}

/** Rows in any list, each once, in order. */
async function unite(lists: readonly Int32Array[], pause: () => Promise<void>): Promise<Int32Array> {
  if (lists.length === 1) return lists[0] as Int32Array;
  const seen = await marks(lists, 0, pause);
  return listed(seen, 1, seen.length - 1, pause);
}

async function every(top: number, pause: () => Promise<void>): Promise<Int32Array> {
  const out = new Int32Array(top + 1);
  await inSteps(
    top + 1,
    (from, to) => {
      for (let x = from; x < to; x++) out[x] = x;
    },
    pause,
  );
  return out;
}

/**
 * The rows of the query (a superset of the documents: rows that hold none are dropped by the
 * headers' pass), or null when a leaf cannot be answered so (the caller's SQL then decides).
 */
export async function queryRows(node: QueryNode, ctx: QueryContext, from: RowSources): Promise<Int32Array | null> {
  switch (node.type) {
    case 'all':
      return every(from.highest(), from.pause);
    case 'range':
      return from.range(node);
    case 'term':
    case 'phrase':
    case 'exists': {
      const text = matchText(node, ctx);
      if (text !== null) return from.text(text);
      const field = fieldMatch(node, ctx);
      return field !== null ? from.fields(field) : isEmptyFieldTerm(node) ? every(from.highest(), from.pause) : null;
    }
    case 'and':
    case 'or': {
      const { text, fields, rest } = siblingsGrouped(node, ctx);
      // Beside other lists, an AND's ranges keep those lists' rows they take, never listed themselves
      // (`glacier` and a date: 92 000 rows tested against half a million listed and intersected).
      const tested = node.type === 'and' && (text !== null || fields !== null || rest.some((c) => c.type !== 'range')) ? rest.filter((c): c is RangeNode => c.type === 'range') : [];
      const parts = await Promise.all([
        ...(text === null ? [] : [from.text(text)]),
        ...(fields === null ? [] : [from.fields(fields)]),
        ...rest.filter((c) => !tested.includes(c as RangeNode)).map((c) => queryRows(c, ctx, from)),
      ]);
      if (parts.some((p) => p === null)) return null;
      const lists = parts as Int32Array[];
      if (node.type === 'or') return unite(lists, from.pause);
      let rows = await intersectRows(lists, from.pause);
      for (const range of tested) rows = await kept(rows, await from.rangeMarks(range), from.pause);
      return rows;
    }
    case 'not': {
      // Marked once: the range's rows listed and marked again cost a million documents 20 ms more.
      if (node.child.type === 'range') return from.range(node.child, from.highest());
      const inner = await queryRows(node.child, ctx, from);
      if (inner === null) return null;
      const top = from.highest();
      return listed(await marks([inner], top, from.pause), 0, top, from.pause);
    }
  }
}
