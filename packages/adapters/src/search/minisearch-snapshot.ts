/**
 * The MiniSearch engine's snapshot: sections of bytes, then a footer naming them. Rows are one
 * JSON array a line, bodies and words raw UTF-8 with their end offsets, the word index as typed
 * arrays. One `JSON.stringify` of every document, as before, took 34 s to write and 26 s to read
 * back at 100k records on a loaded machine; here each row is read from its own bytes, and the
 * postings go straight into MiniSearch's maps without a JSON object per term.
 *
 * Written a few megabytes at a time, each write awaited, into a temp file renamed at the end.
 * A snapshot is only a cache: anything that does not read back whole and consistent is refused,
 * and the caller rebuilds.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import type { BBox, SearchDocument, Shape } from '@krs/domain';
import { MiniSearchRows, type PreparedRow, type RangeValues } from './minisearch-rows.ts';
import { TextIndex, type TextState } from './minisearch-text.ts';

/** Bumped whenever the layout or the indexing changes: older files are rebuilt. */
const FORMAT = 'krs-minisearch-4';

/** Bytes gathered before a write. */
const FLUSH_BYTES = 4 << 20;

interface Footer {
  format: string;
  watermark: string;
  rows: number;
  paths: string[];
  /** Sets of path codes, by number: each row names one. */
  pathSets: number[][];
  text: { scalars: TextState['scalars']; terms: number };
  /** Byte range of each section. */
  sections: Record<string, [number, number]>;
}

const SECTIONS = ['rows', 'bodies', 'bodyEnds', 'words', 'wordEnds', 'averages', 'documents', 'lengths', 'terms', 'postings'] as const;
type Section = (typeof SECTIONS)[number];

class SnapshotWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  readonly sections: Partial<Record<Section, [number, number]>> = {};
  private current: Section | null = null;
  private start = 0;

  constructor(private readonly handle: FileHandle) {}

  begin(section: Section): void {
    this.current = section;
    this.start = this.offset;
  }

  async end(): Promise<void> {
    if (this.current !== null) this.sections[this.current] = [this.start, this.offset];
    this.current = null;
    await this.flush();
  }

  get offset(): number {
    return this.written + this.pendingBytes;
  }

  async push(bytes: Buffer): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const chunk = Buffer.concat(this.pending);
    this.pending = [];
    this.written += chunk.length;
    this.pendingBytes = 0;
    await this.handle.write(chunk);
  }
}

const typedBytes = (a: Int32Array | Uint32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const LATEST = 1;
const IN_USER_LISTING = 2;
const USER_LATEST = 4;
const PUBLIC = 8;

function rowLine(number: number, row: Omit<PreparedRow, 'body' | 'words'>, pathSet: number): string {
  const h = row.header;
  const flags = (h.isLatest ? LATEST : 0) | (h.inUserListing ? IN_USER_LISTING : 0) | (h.isUserLatest ? USER_LATEST : 0) | (h.isPublic ? PUBLIC : 0);
  return JSON.stringify([
    number,
    row.key,
    h.id,
    h.kind,
    h.state,
    h.parentId,
    h.ownerId,
    h.versionIndex,
    flags,
    h.readers,
    h.created,
    h.updated,
    h.resourceType?.id ?? null,
    h.resourceType?.label ?? null,
    h.accessStatus,
    row.bounds,
    row.shapes,
    row.ranges,
    pathSet,
    row.title,
  ]);
}

export async function writeSnapshot(file: string, watermark: string, rows: MiniSearchRows, text: TextIndex): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    const out = new SnapshotWriter(handle);
    const order = [...rows.rows()];
    out.begin('rows');
    for (const row of order) {
      const prepared = rows.prepared(row);
      if (prepared !== null) await out.push(Buffer.from(`${rowLine(row, prepared, rows.pathSetOf(row))}\n`));
    }
    await out.end();
    for (const [section, ends, of] of [
      ['bodies', 'bodyEnds', (row: number) => rows.bodyBytes(row)],
      ['words', 'wordEnds', (row: number) => rows.wordBytes(row)],
    ] as const) {
      const offsets = new Uint32Array(order.length);
      out.begin(section);
      const start = out.offset;
      for (const [i, row] of order.entries()) {
        await out.push(of(row));
        offsets[i] = out.offset - start;
      }
      await out.end();
      out.begin(ends);
      await out.push(typedBytes(offsets));
      await out.end();
    }
    const state = text.exportState();
    for (const [section, bytes] of [
      ['averages', typedBytes(state.averages)],
      ['documents', typedBytes(state.documents)],
      ['lengths', typedBytes(state.lengths)],
      ['terms', Buffer.from(state.terms.join('\n'))],
      ['postings', typedBytes(state.postings)],
    ] as const) {
      out.begin(section);
      await out.push(bytes);
      await out.end();
    }
    const footer: Footer = {
      format: FORMAT,
      watermark,
      rows: order.length,
      paths: [...rows.pathTable],
      pathSets: rows.pathSets.map((set) => [...set]),
      text: { scalars: state.scalars, terms: state.terms.length },
      sections: out.sections as Record<Section, [number, number]>,
    };
    const footerBytes = Buffer.from(JSON.stringify(footer));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(footerBytes.length);
    await out.push(footerBytes);
    await out.push(length);
    await out.flush();
    await handle.close();
    await rename(tmp, file);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
}

export interface LoadedSnapshot {
  watermark: string;
  rows: MiniSearchRows;
  text: TextIndex;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isBox = (v: unknown): v is BBox => Array.isArray(v) && v.length === 4 && v.every(isNumber);
const isCoordinates = (v: unknown) => Array.isArray(v) && v.length % 2 === 0 && v.length > 0 && v.every(isNumber);

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

const KINDS: readonly unknown[] = ['resource', 'package'];
const STATES: readonly unknown[] = ['draft', 'published'];
const ACCESS: readonly unknown[] = ['open', 'restricted', 'embargoed', 'metadata-only'];

/** A row from its line; throws on anything not shaped like one. */
function parseRow(line: string, pathSets: readonly (readonly number[])[]): [number, PreparedRow] {
  const v = JSON.parse(line) as unknown;
  if (!Array.isArray(v) || v.length !== 20) throw new Error('snapshot: bad row');
  const [number, key, id, kind, state, parentId, ownerId, versionIndex, flags, readers, created, updated, rtId, rtLabel, accessStatus, bounds, shapes, ranges, pathSet, title] = v as unknown[];
  const ok =
    Number.isInteger(number) &&
    (number as number) >= 0 &&
    [key, id, parentId, ownerId, created, updated, title].every(isString) &&
    KINDS.includes(kind) &&
    STATES.includes(state) &&
    ACCESS.includes(accessStatus) &&
    isNumber(versionIndex) &&
    isNumber(flags) &&
    Array.isArray(readers) &&
    readers.every(isString) &&
    ((rtId === null && rtLabel === null) || (isString(rtId) && isString(rtLabel))) &&
    Array.isArray(bounds) &&
    bounds.every(isBox) &&
    (shapes === null || (Array.isArray(shapes) && shapes.every(isShape))) &&
    (ranges === null || (Array.isArray(ranges) && ranges.every((r) => Array.isArray(r) && r.length === 2 && r.every(isString)))) &&
    Number.isInteger(pathSet) &&
    (pathSet as number) >= 0 &&
    (pathSet as number) < pathSets.length;
  if (!ok) throw new Error('snapshot: bad row');
  const f = flags as number;
  const row: PreparedRow = {
    key: key as string,
    header: {
      id: id as string,
      kind: kind as SearchDocument['kind'],
      state: state as SearchDocument['state'],
      parentId: parentId as string,
      ownerId: ownerId as string,
      versionIndex: versionIndex as number,
      isLatest: (f & LATEST) !== 0,
      inUserListing: (f & IN_USER_LISTING) !== 0,
      isUserLatest: (f & USER_LATEST) !== 0,
      isPublic: (f & PUBLIC) !== 0,
      readers: readers as string[],
      created: created as string,
      updated: updated as string,
      resourceType: rtId === null ? null : { id: rtId as string, label: rtLabel as string },
      accessStatus: accessStatus as SearchDocument['accessStatus'],
    },
    bounds: bounds as BBox[],
    shapes: shapes as Shape[] | null,
    ranges: ranges as RangeValues | null,
    paths: pathSets[pathSet as number] ?? [],
    // Left in the snapshot's bytes until first read (`useSavedTexts`).
    body: '',
    title: title as string,
    words: '',
  };
  return [number as number, row];
}

function isFooter(v: unknown): v is Footer {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Partial<Footer>;
  return (
    f.format === FORMAT &&
    isString(f.watermark) &&
    isNumber(f.rows) &&
    Array.isArray(f.paths) &&
    f.paths.every(isString) &&
    Array.isArray(f.pathSets) &&
    f.pathSets.every((set) => Array.isArray(set)) &&
    typeof f.text === 'object' &&
    f.text !== null &&
    Array.isArray(f.text.scalars) &&
    f.text.scalars.length === 3 &&
    f.text.scalars.every(isNumber) &&
    isNumber(f.text.terms) &&
    typeof f.sections === 'object' &&
    f.sections !== null &&
    SECTIONS.every((s) => {
      const range = f.sections?.[s];
      return Array.isArray(range) && range.length === 2 && range.every(isNumber) && range[0] <= range[1];
    })
  );
}

/** Loads a snapshot; null when the file is missing, of another format, or does not read back whole and consistent. */
export async function readSnapshot(file: string): Promise<LoadedSnapshot | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return null;
  }
  try {
    if (bytes.length < 4) return null;
    const footerLength = bytes.readUInt32LE(bytes.length - 4);
    const footerStart = bytes.length - 4 - footerLength;
    if (footerStart < 0) return null;
    const footer = JSON.parse(bytes.toString('utf8', footerStart, bytes.length - 4)) as unknown;
    if (!isFooter(footer)) return null;
    const section = (name: Section): Buffer => {
      const [start, end] = footer.sections[name] ?? [0, Number.POSITIVE_INFINITY];
      if (end > footerStart) throw new Error('snapshot: section past the footer');
      return bytes.subarray(start, end);
    };
    // Copied: a typed array over the file's buffer would need its offset aligned.
    const int32 = (name: Section) => new Int32Array(new Uint8Array(section(name)).buffer);
    const uint32 = (name: Section) => new Uint32Array(new Uint8Array(section(name)).buffer);
    const lines = section('rows').toString('utf8').split('\n');
    lines.pop();
    // Copied, so that the rest of the file's bytes are not kept with them.
    const bodies = Buffer.from(section('bodies'));
    const bodyEnds = uint32('bodyEnds');
    const words = Buffer.from(section('words'));
    const wordEnds = uint32('wordEnds');
    if (lines.length !== footer.rows || bodyEnds.length !== footer.rows || wordEnds.length !== footer.rows) return null;
    const rows = new MiniSearchRows();
    // Codes in the order of the saved table: the rows' codes read as they were written.
    for (const token of footer.paths) rows.pathCode(token);
    if (rows.pathTable.length !== footer.paths.length) return null;
    for (const [n, set] of footer.pathSets.entries()) {
      if (!set.every((c) => Number.isInteger(c) && c >= 0 && c < footer.paths.length) || rows.pathSet(set) !== n) return null;
    }
    const text = TextIndex.fromState({
      scalars: footer.text.scalars,
      averages: new Float64Array(new Uint8Array(section('averages')).buffer),
      documents: int32('documents'),
      lengths: int32('lengths'),
      terms: footer.text.terms === 0 ? [] : section('terms').toString('utf8').split('\n'),
      postings: int32('postings'),
    });
    if (text.documentCount !== footer.rows) return null;
    let bodyStart = 0;
    let wordStart = 0;
    const numbers = new Int32Array(lines.length);
    for (const [i, line] of lines.entries()) {
      const bodyEnd = bodyEnds[i] ?? 0;
      const wordEnd = wordEnds[i] ?? 0;
      if (bodyEnd < bodyStart || bodyEnd > bodies.length || wordEnd < wordStart || wordEnd > words.length) return null;
      const [number, row] = parseRow(line, rows.pathSets);
      bodyStart = bodyEnd;
      wordStart = wordEnd;
      if (rows.rowOf(row.key) !== undefined || rows.keyOf(number) !== undefined) return null;
      rows.set(number, row);
      numbers[i] = number;
    }
    rows.useSavedTexts(numbers, bodies, bodyEnds, words, wordEnds);
    rows.freeGaps();
    // The word index must name the same rows, or answers would disagree.
    for (const row of text.rows()) if (rows.keyOf(row) === undefined) return null;
    return { watermark: footer.watermark, rows, text };
  } catch {
    return null;
  }
}
