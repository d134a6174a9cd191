/**
 * The rows of a MiniSearch snapshot: each row's header, bounds, shapes, range values, set of
 * paths, paths holding values beside members with values, and title. Since format 5 they are
 * columns: numbers as typed arrays, the strings as one JSON array, the few objects (readers,
 * shapes, mixed paths) as sparse JSON lists, the range values apart and read on first use.
 * Format 4 kept a JSON line per row; parsing 100k of them (every bound and range value an array
 * of its own) took about 0.6 s of CPU and much of a restart's garbage collection.
 */
import type { BBox, Shape } from '@krs/domain';
import { ACCESS, flagsOf, headerFlags, KINDS, STATES } from '@krs/domain/search';
import { FilledOnFirstUse } from './filled-on-first-use.ts';
import type { MiniSearchRows, PreparedRow, RangeValues } from './minisearch-rows.ts';

export const ROW_SECTIONS = ['rowCodes', 'rowBounds', 'rowStrings', 'rowObjects', 'rowRanges'] as const;
export type RowSection = (typeof ROW_SECTIONS)[number];

/**
 * `rowCodes` per row: its number, kind, state, version index, flags, access (codes and flags as
 * the domain's header columns have them), set of paths, resource type (-1: none), boxes.
 */
const CODES = 9;
/** `rowStrings` per row: key, id, parent, owner, created, updated, title. */
const STRINGS = 7;

/** A row as a snapshot keeps it: its body and words are apart, left in the snapshot's bytes until first read. */
type Row = PreparedRow;

interface RowObjects {
  resourceTypes: [id: string, label: string][];
  /** By the row's place in the list. */
  readers: [number, string[]][];
  shapes: [number, Shape[]][];
  mixed: [number, number[]][];
}

/** The rows given, in that order, as format 5's sections; `pathSets` gives each set of paths its number in the file. */
export function encodeRows(rows: MiniSearchRows, order: readonly number[], pathSets: Int32Array): Record<RowSection, Buffer> {
  const codes = new Int32Array(order.length * CODES);
  const bounds: number[] = [];
  const strings: string[] = [];
  const objects: RowObjects = { resourceTypes: [], readers: [], shapes: [], mixed: [] };
  const resourceTypes = new Map<string, number>();
  const ranges: [number, RangeValues][] = [];
  for (const [i, number] of order.entries()) {
    const row = rows.prepared(number);
    if (row === null) throw new Error(`snapshot: row ${number} is not in use`);
    const h = row.header;
    let rt = -1;
    if (h.resourceType !== null) {
      rt = resourceTypes.get(h.resourceType.id) ?? objects.resourceTypes.length;
      if (rt === objects.resourceTypes.length) {
        resourceTypes.set(h.resourceType.id, rt);
        objects.resourceTypes.push([h.resourceType.id, h.resourceType.label]);
      }
    }
    codes.set([number, KINDS.indexOf(h.kind), STATES.indexOf(h.state), h.versionIndex, headerFlags(h), ACCESS.indexOf(h.accessStatus), pathSets[rows.pathSetOf(number)] ?? -1, rt, row.bounds.length], i * CODES);
    for (const box of row.bounds) bounds.push(...box);
    strings.push(row.key, h.id, h.parentId, h.ownerId, h.created, h.updated, row.title);
    if (!h.isPublic) objects.readers.push([i, [...h.readers]]);
    if (row.shapes !== null) objects.shapes.push([i, row.shapes]);
    if (row.mixed !== null) objects.mixed.push([i, [...row.mixed]]);
    if (row.ranges !== null) ranges.push([i, row.ranges]);
  }
  const typed = (a: Int32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return {
    rowCodes: typed(codes),
    rowBounds: typed(Float64Array.from(bounds)),
    rowStrings: Buffer.from(JSON.stringify(strings)),
    rowObjects: Buffer.from(JSON.stringify(objects)),
    rowRanges: Buffer.from(JSON.stringify(ranges)),
  };
}

/** The bytes as a typed array, viewed where they are aligned for it, copied where not; throws when not a whole number of elements. */
export function typedView<T>(bytes: Buffer, Typed: { new (buffer: ArrayBufferLike, offset?: number, length?: number): T; BYTES_PER_ELEMENT: number }): T {
  const size = Typed.BYTES_PER_ELEMENT;
  if (bytes.length % size !== 0) throw new Error('snapshot: a section of typed values has a part of one');
  if (bytes.byteOffset % size === 0) return new Typed(bytes.buffer, bytes.byteOffset, bytes.length / size);
  return new Typed(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isBox = (v: unknown): v is BBox => Array.isArray(v) && v.length === 4 && v.every(isNumber);
const isCoordinates = (v: unknown) => Array.isArray(v) && v.length % 2 === 0 && v.length > 0 && v.every(isNumber);
const isRanges = (v: unknown): v is RangeValues => Array.isArray(v) && v.every((r) => Array.isArray(r) && r.length === 2 && r.every(isString));

function isShape(v: unknown): v is Shape {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  switch (s['type']) {
    case 'point':
      return isCoordinates(s['xy']) && (s['xy'] as unknown[]).length === 2;
    case 'line':
      return isCoordinates(s['xy']);
    case 'polygon':
      return Array.isArray(s['rings']) && s['rings'].length > 0 && s['rings'].every(isCoordinates);
    case 'box':
      return isBox(s['box']);
    default:
      return false;
  }
}

/** A sparse list by place, each place once, in order, below `count`, each value `valid`. */
function sparse<T>(v: unknown, count: number, valid: (value: unknown) => value is T): Map<number, T> {
  if (!Array.isArray(v)) throw new Error('snapshot: bad rows');
  const out = new Map<number, T>();
  let last = -1;
  for (const entry of v) {
    if (!Array.isArray(entry) || entry.length !== 2) throw new Error('snapshot: bad rows');
    const [at, value] = entry as unknown[];
    if (!Number.isInteger(at) || (at as number) <= last || (at as number) >= count || !valid(value)) throw new Error('snapshot: bad rows');
    last = at as number;
    out.set(last, value);
  }
  return out;
}

/**
 * Range values by row number, parsed from the snapshot on first use: they are read only by range
 * queries and by writes. A value that does not read back is left out.
 */
class SavedRanges extends FilledOnFirstUse<number, RangeValues> {
  private saved: { json: string; numbers: Int32Array } | null;

  constructor(json: string, numbers: Int32Array) {
    super();
    this.saved = { json, numbers };
  }

  protected fill(): void {
    const saved = this.saved;
    if (saved === null) return;
    this.saved = null;
    try {
      for (const [at, values] of sparse(JSON.parse(saved.json), saved.numbers.length, isRanges)) this.put(saved.numbers[at] ?? -1, values);
    } catch {
      // A snapshot is checked as it is loaded; this part is read later, and only range leaves miss it.
    }
  }
}

export interface DecodedRows {
  /** By place: each row's number. */
  numbers: Int32Array;
  rows: Row[];
  ranges: Map<number, RangeValues>;
}

/** Format 5's sections as rows; throws on anything not shaped like them. */
export function decodeRows(section: (name: RowSection) => Buffer, count: number, pathSets: readonly (readonly number[])[]): DecodedRows {
  const bad = () => new Error('snapshot: bad rows');
  const codes = typedView(section('rowCodes'), Int32Array);
  const bounds = typedView(section('rowBounds'), Float64Array);
  const strings = JSON.parse(section('rowStrings').toString('utf8')) as unknown;
  const objects = JSON.parse(section('rowObjects').toString('utf8')) as Partial<RowObjects> | null;
  if (codes.length !== count * CODES || !Array.isArray(strings) || strings.length !== count * STRINGS || !strings.every(isString)) throw bad();
  if (typeof objects !== 'object' || objects === null || !Array.isArray(objects.resourceTypes)) throw bad();
  const resourceTypes = objects.resourceTypes.map((rt) => {
    if (!Array.isArray(rt) || rt.length !== 2 || !rt.every(isString)) throw bad();
    return { id: rt[0], label: rt[1] };
  });
  const readers = sparse(objects.readers, count, (v): v is string[] => Array.isArray(v) && v.every(isString));
  const shapes = sparse(objects.shapes, count, (v): v is Shape[] => Array.isArray(v) && v.every(isShape));
  const mixed = sparse(objects.mixed, count, (v): v is number[] => Array.isArray(v) && v.length > 0 && v.every((c) => Number.isInteger(c) && (c as number) >= 0));
  const numbers = new Int32Array(count);
  const rows: Row[] = [];
  let box = 0;
  for (let i = 0; i < count; i++) {
    const code = (n: number) => codes[i * CODES + n] ?? -1;
    const number = code(0);
    const k = KINDS[code(1)];
    const s = STATES[code(2)];
    const a = ACCESS[code(5)];
    const paths = pathSets[code(6)];
    const rt = code(7);
    const resourceType = rt === -1 ? null : resourceTypes[rt];
    const boxes = code(8);
    if (number < 0 || k === undefined || s === undefined || a === undefined || paths === undefined || resourceType === undefined) throw bad();
    if (boxes < 0 || box + 4 * boxes > bounds.length) throw bad();
    const rowBounds: BBox[] = [];
    for (let b = 0; b < boxes; b++, box += 4) rowBounds.push([bounds[box] ?? 0, bounds[box + 1] ?? 0, bounds[box + 2] ?? 0, bounds[box + 3] ?? 0]);
    const str = (n: number) => strings[i * STRINGS + n] as string;
    numbers[i] = number;
    rows.push({
      key: str(0),
      header: {
        id: str(1),
        kind: k,
        state: s,
        parentId: str(2),
        ownerId: str(3),
        versionIndex: code(3),
        ...flagsOf(code(4)),
        readers: readers.get(i) ?? [],
        created: str(4),
        updated: str(5),
        resourceType,
        accessStatus: a,
      },
      bounds: rowBounds,
      shapes: shapes.get(i) ?? null,
      ranges: null,
      paths,
      mixed: mixed.get(i) ?? null,
      body: '',
      title: str(6),
      words: '',
    });
  }
  if (box !== bounds.length) throw bad();
  return { numbers, rows, ranges: new SavedRanges(section('rowRanges').toString('utf8'), numbers) };
}
