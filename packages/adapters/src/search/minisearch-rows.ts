/**
 * What the MiniSearch engine keeps per document besides MiniSearch's word index, by row number:
 * the header in the domain's typed columns (filters, facets, order, paging), the boxes and the
 * exact shapes of lines and polygons, the range fields' values, the field paths holding a value
 * (for `_exists_`), the paths holding values beside members with values (for fields), and for
 * the evaluator the body as JSON text and every value's words with its path (for phrases). Never
 * the body as objects: 100k bodies as objects took most of 2 GiB.
 */
import { HeaderTable, Interned, intersectsAny, shapesMeetBox, type HeaderFields } from '@krs/domain/search';
import type { BBox, SearchDocument, Shape } from '@krs/domain';
import { TextColumn } from './minisearch-text-column.ts';
import { encodeToken, pathToken } from './path-token.ts';
import type { FieldScope } from './minisearch-text.ts';

export type RangeValues = [field: string, value: string][];

/** A document as the engine keeps it, prepared before anything changes (preparing may throw). */
export interface PreparedRow {
  key: string;
  header: HeaderFields;
  bounds: BBox[];
  /** Only when a line or polygon is among them: points and boxes are exactly their bounds. */
  shapes: Shape[] | null;
  ranges: RangeValues | null;
  /** Every field path holding a value, as the code `MiniSearchRows.pathCode` gives its `pathToken`. */
  paths: readonly number[];
  /** The codes of the paths holding values of their own beside members with values (`subjects: ['ice', {subject: 'sea'}]`); null: none. */
  mixed: readonly number[] | null;
  body: string;
  title: string;
  /** Every value's words with its path's code, a line each (minisearch-value-lines.ts). */
  words: string;
}

/** The place of a forgotten set of paths, until its number is given again. */
const FORGOTTEN: readonly number[] = Object.freeze([]);

export class MiniSearchRows {
  readonly header = new HeaderTable();
  private readonly rowOfKey = new Map<string, number>();
  private keys: (string | undefined)[] = [];
  private free: number[] = [];
  private bounds: (BBox[] | undefined)[] = [];
  private readonly shapes = new Map<number, Shape[]>();
  private rangeValues = new Map<number, RangeValues>();
  /** Rows with paths holding values beside members with values: few documents have any. */
  private readonly mixedPaths = new Map<number, readonly number[]>();
  /**
   * The paths (tokens) holding a value in each row, as the number of its set of path codes: most
   * documents share one set. No list of rows per path: a set of 100k rows per path took most of
   * a snapshot's load, and `_exists_` reads the set numbers in a millisecond.
   */
  private readonly paths = new Interned();
  private readonly pathSetNumbers = new Map<string, number>();
  private readonly pathSetList: (readonly number[])[] = [];
  /** The same by the kept list itself: a snapshot's rows name their set by it, without joining codes. */
  private readonly pathSetOfList = new Map<readonly number[], number>();
  /** Rows holding each set: a set no row holds is forgotten and its number given again. */
  private pathSetRows: number[] = [];
  private freePathSets: number[] = [];
  private rowPathSet = new Int32Array(0);
  private readonly bodies = new TextColumn();
  private titles: (string | undefined)[] = [];
  private readonly words = new TextColumn();
  // Keys by parent: re-projecting a parent asks for its keys, and a scan of every row per
  // parent made a rebuild quadratic (220 s for 100k records). A parent's one key is kept
  // alone: a set per parent was 100k sets to make at start-up.
  private readonly byParent = new Map<string, string | Set<string>>();

  get size(): number {
    return this.rowOfKey.size;
  }

  /** One past the highest row ever used: the length of arrays indexed by row. */
  get capacity(): number {
    return this.keys.length;
  }

  rowOf(key: string): number | undefined {
    return this.rowOfKey.get(key);
  }

  keyOf(row: number): string | undefined {
    return this.keys[row];
  }

  keysOfParent(parentId: string): string[] {
    const keys = this.byParent.get(parentId);
    return keys === undefined ? [] : typeof keys === 'string' ? [keys] : [...keys];
  }

  /** The row a key has, or the one `set` would give it: taken only by `set`. */
  rowFor(key: string): number {
    return this.rowOfKey.get(key) ?? this.free.at(-1) ?? this.keys.length;
  }

  set(row: number, doc: PreparedRow): void {
    if (this.keys[row] !== undefined) this.delete(row);
    if (this.free.at(-1) === row) this.free.pop();
    this.keys[row] = doc.key;
    this.rowOfKey.set(doc.key, row);
    this.header.set(row, doc.header);
    this.bounds[row] = doc.bounds;
    if (doc.shapes !== null) this.shapes.set(row, doc.shapes);
    if (doc.ranges !== null) this.rangeValues.set(row, doc.ranges);
    if (doc.mixed !== null) this.mixedPaths.set(row, doc.mixed);
    if (row >= this.rowPathSet.length) {
      const grown = new Int32Array(Math.max(1024, row + 1, this.rowPathSet.length * 2));
      grown.set(this.rowPathSet);
      this.rowPathSet = grown;
    }
    const pathSet = this.pathSet(doc.paths);
    this.rowPathSet[row] = pathSet;
    this.pathSetRows[pathSet] = (this.pathSetRows[pathSet] ?? 0) + 1;
    this.bodies.set(row, doc.body);
    this.titles[row] = doc.title;
    this.words.set(row, doc.words);
    const parentId = doc.header.parentId;
    const siblings = this.byParent.get(parentId);
    if (siblings === undefined) this.byParent.set(parentId, doc.key);
    else if (typeof siblings !== 'string') siblings.add(doc.key);
    else if (siblings !== doc.key) this.byParent.set(parentId, new Set([siblings, doc.key]));
  }

  delete(row: number): void {
    const key = this.keys[row];
    if (key === undefined) return;
    const parentId = this.header.document(row)?.parentId ?? '';
    const siblings = this.byParent.get(parentId);
    if (siblings === key) this.byParent.delete(parentId);
    else if (typeof siblings !== 'string' && siblings !== undefined) {
      siblings.delete(key);
      if (siblings.size === 0) this.byParent.delete(parentId);
    }
    this.rowOfKey.delete(key);
    this.header.delete(row);
    this.shapes.delete(row);
    this.rangeValues.delete(row);
    this.mixedPaths.delete(row);
    this.keys[row] = undefined;
    this.bounds[row] = undefined;
    this.bodies.delete(row);
    this.titles[row] = undefined;
    this.words.delete(row);
    this.free.push(row);
    this.releasePathSet(this.rowPathSet[row] ?? 0);
  }

  private releasePathSet(n: number): void {
    const left = (this.pathSetRows[n] ?? 0) - 1;
    this.pathSetRows[n] = left;
    if (left > 0) return;
    const set = this.pathSetList[n];
    if (set === undefined || set === FORGOTTEN) return;
    this.pathSetOfList.delete(set);
    this.pathSetNumbers.delete(set.join(','));
    this.pathSetList[n] = FORGOTTEN;
    this.freePathSets.push(n);
  }

  /** The range fields' values by row. */
  get ranges(): ReadonlyMap<number, RangeValues> {
    return this.rangeValues;
  }

  /** The range values of rows just set from a snapshot (with none), as a map that may read them in on first use. */
  useSavedRanges(ranges: Map<number, RangeValues>): void {
    this.rangeValues = ranges;
  }

  /** The code of a path's token in this table, given on first sight. */
  pathCode(token: string): number {
    return this.paths.code(token);
  }

  /** Every path token, by code. */
  get pathTable(): readonly string[] {
    return this.paths.values;
  }

  /** After rows were set by number (a snapshot's), the unused numbers below the highest become free. */
  freeGaps(): void {
    this.free = [];
    for (let row = this.keys.length - 1; row >= 0; row--) if (this.keys[row] === undefined) this.free.push(row);
  }

  clear(): void {
    this.header.clear();
    this.rowOfKey.clear();
    this.keys = [];
    this.free = [];
    this.bounds = [];
    this.shapes.clear();
    this.rangeValues = new Map();
    this.mixedPaths.clear();
    this.bodies.clear();
    this.titles = [];
    this.words.clear();
    this.byParent.clear();
    this.pathSetNumbers.clear();
    this.pathSetList.length = 0;
    this.pathSetOfList.clear();
    this.pathSetRows = [];
    this.freePathSets = [];
  }

  /** Marks the rows holding a value at the path of this token. */
  markPath(token: string, marks: Uint8Array): void {
    const code = this.paths.find(token);
    if (code === -1) return;
    const holds = Uint8Array.from(this.pathSetList, (set) => (set.includes(code) ? 1 : 0));
    const { rowPathSet, keys } = this;
    for (let row = 0; row < keys.length; row++) if (keys[row] !== undefined && holds[rowPathSet[row] ?? 0] === 1) marks[row] = 1;
  }

  /**
   * How the evaluator reads `field` in each row, by path code: its own path and those below it
   * (`metadata.creators.person_or_org.name` below `metadata.creators`), and the rows where its
   * own values hide those below, marked in `mixed` (zeros by row, used only when some are).
   */
  fieldScope(field: string, mixed: Uint8Array): FieldScope {
    const token = pathToken(field);
    const own = this.paths.find(token);
    const prefix = token + encodeToken('.');
    const tokens = this.paths.values;
    const below = new Uint8Array(tokens.length);
    for (const [code, token] of tokens.entries()) if (token.startsWith(prefix)) below[code] = 1;
    let anyMixed = false;
    if (own !== -1) {
      for (const [row, codes] of this.mixedPaths) {
        if (!codes.includes(own)) continue;
        mixed[row] = 1;
        anyMixed = true;
      }
    }
    return { own, below, mixed: anyMixed ? mixed : null };
  }

  /**
   * The number of a set of path codes, given on first sight (a number no row's set holds any
   * more, if there is one). There are as many sets as distinct shapes of documents held, a few
   * hundred bytes each; a stream of documents each with new field names leaves none behind.
   */
  pathSet(codes: readonly number[]): number {
    const known = this.pathSetOfList.get(codes);
    if (known !== undefined) return known;
    const name = codes.join(',');
    let n = this.pathSetNumbers.get(name);
    if (n === undefined) {
      n = this.freePathSets.pop() ?? this.pathSetList.length;
      const kept = [...codes];
      this.pathSetNumbers.set(name, n);
      this.pathSetList[n] = kept;
      this.pathSetOfList.set(kept, n);
    }
    return n;
  }

  /** The sets rows hold, numbered again from 0 in order, and each set's new number by its number (-1: none). */
  pathSetsInUse(): { sets: (readonly number[])[]; renumbered: Int32Array } {
    const renumbered = new Int32Array(this.pathSetList.length).fill(-1);
    const sets: (readonly number[])[] = [];
    for (const [n, set] of this.pathSetList.entries()) {
      if ((this.pathSetRows[n] ?? 0) <= 0) continue;
      renumbered[n] = sets.length;
      sets.push(set);
    }
    return { sets, renumbered };
  }

  /** The row's set of path codes, by number. */
  pathSetOf(row: number): number {
    return this.rowPathSet[row] ?? 0;
  }

  /** Every set of path codes, by number. */
  get pathSets(): readonly (readonly number[])[] {
    return this.pathSetList;
  }

  /** The text MiniSearch was given for the row. */
  text(row: number): { title: string; text: string } | null {
    const title = this.titles[row];
    const text = this.words.get(row);
    return title === undefined || text === undefined ? null : { title, text };
  }

  wordsOf(row: number): string {
    return this.words.get(row) ?? '';
  }

  bodyOf(row: number): string {
    return this.bodies.get(row) ?? '{}';
  }

  /** The row's words as UTF-8, as a snapshot writes them. */
  wordBytes(row: number): Buffer {
    return this.words.bytes(row);
  }

  bodyBytes(row: number): Buffer {
    return this.keys[row] === undefined ? Buffer.from('{}') : this.bodies.bytes(row);
  }

  /**
   * The bodies and words of rows just set from a snapshot (with empty texts), left in its
   * bytes until first read: `rows[i]`'s body ends at `bodyEnds[i]` in `bodies`, its words at
   * `wordEnds[i]` in `words`, each starting where the one before ends.
   */
  useSavedTexts(rows: ArrayLike<number>, bodies: Buffer, bodyEnds: Uint32Array, words: Buffer, wordEnds: Uint32Array): void {
    this.bodies.useSaved(bodies, rows, bodyEnds);
    this.words.useSaved(words, rows, wordEnds);
  }

  /** The domain's `meetsBox` on the row's geometry, without building a document per row. */
  meetsBox(row: number, box: BBox): boolean {
    if (!intersectsAny(this.bounds[row] ?? [], box)) return false;
    const shapes = this.shapes.get(row);
    return shapes === undefined || shapesMeetBox(shapes, box);
  }

  /** Every row in use, in order. */
  *rows(): IterableIterator<number> {
    for (let row = 0; row < this.keys.length; row++) if (this.keys[row] !== undefined) yield row;
  }

  /** The row as a snapshot's line keeps it (its body and words are written apart). */
  prepared(row: number): Omit<PreparedRow, 'body' | 'words'> | null {
    const key = this.keys[row];
    const header = this.header.document(row);
    if (key === undefined || header === null) return null;
    const { key: _key, body: _body, bounds: _bounds, ...fields } = header;
    return {
      key,
      header: fields,
      bounds: this.bounds[row] ?? [],
      shapes: this.shapes.get(row) ?? null,
      ranges: this.rangeValues.get(row) ?? null,
      paths: this.pathSetList[this.rowPathSet[row] ?? 0] ?? [],
      mixed: this.mixedPaths.get(row) ?? null,
      title: this.titles[row] ?? '',
    };
  }
}

/** Whether the document's shapes need keeping beside its bounds. */
export const needsShapes = (doc: SearchDocument): boolean => doc.shapes?.some((shape) => shape.type === 'line' || shape.type === 'polygon') ?? false;
