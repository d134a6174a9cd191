/**
 * Every indexed document's header (all of it but the body and bounds) in typed columns indexed
 * by a row number the engine chooses, and the filter, facet, sort and paging rules of `runSearch`
 * over those columns, for engines that find matching rows in an index of their own. The same rules over plain objects cost about 30 ms per 100 000 documents, most
 * of it in string-keyed maps and string comparisons; over columns they cost about a millisecond.
 * The contract suite holds this and `runSearch` to the same answers.
 */
import type { RecordKind } from '../model/types.ts';
import type { FacetBucket, FacetName, SearchDocument, SearchFilter, SearchRequest, SearchResult } from '../ports.ts';
import { facetLabel, sortBuckets } from './run-search.ts';

/** The codes of the kind, state and access columns: each value's place in its list. */
export const KINDS: readonly RecordKind[] = ['resource', 'package'];
export const STATES: readonly SearchDocument['state'][] = ['draft', 'published'];
export const ACCESS: readonly SearchDocument['accessStatus'][] = ['open', 'restricted', 'embargoed', 'metadata-only'];

const LATEST = 1;
const IN_USER_LISTING = 2;
const USER_LATEST = 4;
const PUBLIC = 8;

type Flags = Pick<SearchDocument, 'isLatest' | 'inUserListing' | 'isUserLatest' | 'isPublic'>;

/** A header's four flags as the flags column holds them. */
export const headerFlags = (doc: Flags): number =>
  (doc.isLatest ? LATEST : 0) | (doc.inUserListing ? IN_USER_LISTING : 0) | (doc.isUserLatest ? USER_LATEST : 0) | (doc.isPublic ? PUBLIC : 0);

/** The four flags from the flags column's number. */
export const flagsOf = (flags: number): Flags => ({
  isLatest: (flags & LATEST) !== 0,
  inUserListing: (flags & IN_USER_LISTING) !== 0,
  isUserLatest: (flags & USER_LATEST) !== 0,
  isPublic: (flags & PUBLIC) !== 0,
});

/** Microseconds since the epoch: orders like the ISO text, offsets included, sub-millisecond digits kept. */
function microsOf(iso: string): number {
  const ms = Date.parse(iso);
  const whole = Number.isNaN(ms) ? 0 : ms * 1000;
  // `toISOString`'s form, which nearly every date here has, holds no digit past the millisecond:
  // no pattern to run (two per document when an index of 100k is read at start-up).
  if (iso.length === 24 && iso.charCodeAt(19) === 46 && iso.charCodeAt(23) === 90) return whole;
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? '';
  return whole + Number(fraction.padEnd(6, '0').slice(3, 6));
}

/** Values numbered in the order first seen, each number looked up both ways. */
export class Interned {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [];
  code(value: string): number {
    let c = this.codes.get(value);
    if (c === undefined) {
      c = this.values.length;
      this.codes.set(value, c);
      this.values.push(value);
    }
    return c;
  }
  /** -1 when never seen: nothing carries it. */
  find(value: string): number {
    return this.codes.get(value) ?? -1;
  }
}

export type HeaderFields = Omit<SearchDocument, 'key' | 'body' | 'bounds'>;

/**
 * Orders `bestmatch`: the first `k` of `hits` by relevance, ties (and rows it cannot score) by
 * `newest`, the order `runSearch` gives equal scores.
 */
export type Ranker = (hits: Int32Array, k: number, newest: (a: number, b: number) => number) => number[];

/** Hits of a search before ordering and paging, with the facet counts. */
export interface Selection {
  hits: Int32Array;
  aggregations: SearchResult['aggregations'];
}

/**
 * Rows a stepwise loop goes through between two steps. At about 30 ns a row, a step is about a
 * tenth of a millisecond, so a caller pausing after half a millisecond of steps (a search beside
 * cheap GETs) overruns it by little: steps of 16,384 rows ran up to a millisecond past it.
 */
const ROWS_PER_STEP = 4096;

/** Work written as a generator that yields between steps: a caller may pause at each one. */
export type Steps<T> = Generator<void, T, void>;

/** Runs steps to their end at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * A filter of kinds, state, the latest flag and visibility alone (a public listing's, or a
 * viewer's): what the select loop checks inline, without `accepts`'s call per row. A rowid
 * failing only the visibility check still goes to `accepts`, which knows the viewer's readers.
 */
interface ListingFilter {
  kinds: number;
  /** -1 for either state. */
  state: number;
  /** The flags a row must carry (the latest flag or none). */
  flags: number;
}

/**
 * A row's resource type (-1 for none), access status and kind (their codes in the table) as one
 * code, from 0 up: two bits for the four access statuses, one for the two kinds.
 */
const facetCode = (resourceType: number, access: number, kind: number): number => (resourceType + 1) * 8 + access * 2 + kind;
/** The codes `facetCode` made one. */
const facetsOf = (code: number): [resourceType: number, access: number, kind: number] => [(code >> 3) - 1, (code >> 1) & 3, code & 1];

/** What a `select` has counted and kept so far. */
interface SelectPass {
  rows: Int32Array | null;
  accepts: (rowid: number) => boolean;
  /** The filter's checks on columns, for the loop to make inline; null when `accepts` must decide. */
  listing: ListingFilter | null;
  facetFilter: ((rowid: number) => boolean) | null;
  /** By a row's `facets` code: the rows counted so far. */
  facetCounts: Int32Array;
  hits: Int32Array;
  total: number;
}

export class HeaderTable {
  private capacity = 0;
  private present = new Uint8Array(0);
  private kind = new Uint8Array(0);
  private state = new Uint8Array(0);
  private flags = new Uint8Array(0);
  private access = new Uint8Array(0);
  /**
   * The three facets' codes of each row in one (`facetCode`): the select loop counts a row in one
   * array instead of three. Three increments a row, each waiting on the last store to its array
   * when neighbouring rows share a value, were half of a pass over a million rows (6.1 ms against
   * 3.3 with one, in a scratch copy of the loop).
   */
  private facets = new Int32Array(0);
  private versionIndex = new Int32Array(0);
  private resourceType = new Int32Array(0);
  private owner = new Int32Array(0);
  private created = new Float64Array(0);
  private updated = new Float64Array(0);
  private ids: (string | undefined)[] = [];
  // Not interned like owners: nearly one per document, so a code table would only double them.
  private parents: (string | undefined)[] = [];
  private createdText: (string | undefined)[] = [];
  private updatedText: (string | undefined)[] = [];
  /** Only restricted or draft documents need their readers. */
  private readers = new Map<number, readonly string[]>();
  private readonly owners = new Interned();
  private readonly resourceTypes = new Interned();
  private readonly resourceTypeLabels: string[] = [];
  private count = 0;
  private highest = 0;
  /** Moves with every change, so a pass that paused can tell whether it saw one state throughout. */
  private changes = 0;

  get size(): number {
    return this.count;
  }

  has(rowid: number): boolean {
    return rowid < this.capacity && this.present[rowid] === 1;
  }

  *rowids(): IterableIterator<number> {
    for (let rowid = 0; rowid <= this.highest; rowid++) if (this.present[rowid] === 1) yield rowid;
  }

  set(rowid: number, doc: HeaderFields): void {
    this.changes++;
    this.ensure(rowid + 1);
    if (this.present[rowid] !== 1) this.count++;
    this.present[rowid] = 1;
    this.highest = Math.max(this.highest, rowid);
    this.kind[rowid] = KINDS.indexOf(doc.kind);
    this.state[rowid] = STATES.indexOf(doc.state);
    this.flags[rowid] = headerFlags(doc);
    this.access[rowid] = ACCESS.indexOf(doc.accessStatus);
    this.versionIndex[rowid] = doc.versionIndex;
    if (doc.resourceType === null) this.resourceType[rowid] = -1;
    else {
      const code = this.resourceTypes.code(doc.resourceType.id);
      this.resourceTypeLabels[code] = doc.resourceType.label;
      this.resourceType[rowid] = code;
    }
    this.facets[rowid] = facetCode(this.resourceType[rowid] as number, this.access[rowid] as number, this.kind[rowid] as number);
    this.owner[rowid] = this.owners.code(doc.ownerId);
    this.parents[rowid] = doc.parentId;
    this.created[rowid] = microsOf(doc.created);
    this.updated[rowid] = microsOf(doc.updated);
    this.ids[rowid] = doc.id;
    this.createdText[rowid] = doc.created;
    this.updatedText[rowid] = doc.updated;
    if (doc.isPublic) this.readers.delete(rowid);
    else this.readers.set(rowid, [...doc.readers]);
  }

  delete(rowid: number): void {
    if (!this.has(rowid)) return;
    this.changes++;
    this.present[rowid] = 0;
    this.ids[rowid] = undefined;
    this.parents[rowid] = undefined;
    this.createdText[rowid] = undefined;
    this.updatedText[rowid] = undefined;
    this.readers.delete(rowid);
    this.count--;
  }

  clear(): void {
    this.changes++;
    this.present.fill(0);
    this.ids = [];
    this.parents = [];
    this.createdText = [];
    this.updatedText = [];
    this.readers.clear();
    this.count = 0;
    this.highest = 0;
  }

  /** The header as a document without body or bounds, for the domain's evaluator. */
  document(rowid: number): SearchDocument | null {
    if (!this.has(rowid)) return null;
    const flags = this.flags[rowid] ?? 0;
    const rt = this.resourceType[rowid] ?? -1;
    const id = this.ids[rowid] ?? '';
    const state = STATES[this.state[rowid] ?? 0] ?? 'draft';
    return {
      key: `${state}:${id}`,
      id,
      kind: KINDS[this.kind[rowid] ?? 0] ?? 'resource',
      state,
      parentId: this.parents[rowid] ?? '',
      ownerId: this.owners.values[this.owner[rowid] ?? 0] ?? '',
      versionIndex: this.versionIndex[rowid] ?? 0,
      isLatest: (flags & LATEST) !== 0,
      inUserListing: (flags & IN_USER_LISTING) !== 0,
      isUserLatest: (flags & USER_LATEST) !== 0,
      isPublic: (flags & PUBLIC) !== 0,
      readers: [...(this.readers.get(rowid) ?? [])],
      created: this.createdText[rowid] ?? '',
      updated: this.updatedText[rowid] ?? '',
      resourceType: rt < 0 ? null : { id: this.resourceTypes.values[rt] ?? '', label: this.resourceTypeLabels[rt] ?? '' },
      accessStatus: ACCESS[this.access[rowid] ?? 0] ?? 'open',
      bounds: [],
      body: {},
    };
  }

  /**
   * `runSearch` over the rows given (every row when null), which the caller has already matched
   * against the query and box. `rank` orders `bestmatch`; without it `bestmatch` sorts as `newest`.
   */
  search(rows: Int32Array | null, request: SearchRequest, rank: Ranker | null): SearchResult {
    const selection = this.select(rows, request);
    const k = (request.page - 1) * request.size + request.size;
    const ranked = request.sort === 'bestmatch' && rank !== null ? rank(selection.hits, k, this.newest()) : null;
    return this.page(selection, request, ranked);
  }

  /**
   * The filter, facet counts and facet filters over the rows given: the hits, unordered.
   * Columns are read through locals and rows by index: over a million rows this loop is the
   * whole cost of a search without a query.
   */
  select(rows: Int32Array | null, request: SearchRequest): Selection {
    return runSteps(this.selectSteps(rows, request));
  }

  /**
   * Runs a pass over the table (`selectSteps`, `pageSteps`, `firstByColumnSteps` over its columns),
   * awaiting `pause` between steps: the caller decides whether a pause hands the event loop to
   * others (after a millisecond of work, say), so a search over a hundred thousand rows never
   * holds it for longer. A write applied during a pause would be half seen (a new version counted
   * beside the one it replaced), so the pass then runs again at once, without pauses, on the
   * table as it is.
   */
  async inTurns<T>(start: () => Steps<T>, pause: () => Promise<void>): Promise<T> {
    const before = this.changes;
    const steps = start();
    for (;;) {
      const next = steps.next();
      if (next.done === true) return next.value;
      await pause();
      if (this.changes !== before) return runSteps(start());
    }
  }

  /**
   * `select`, yielding every `ROWS_PER_STEP` rows. `into`, when long enough for every row given
   * (or every row of the table), receives the hits: an engine may keep one from search to search.
   */
  *selectSteps(rows: Int32Array | null, request: SearchRequest, into?: Int32Array): Steps<Selection> {
    const most = rows === null ? this.count : rows.length;
    const pass: SelectPass = {
      rows,
      accepts: this.filterFor(request.filter),
      listing: this.listingFor(request.filter),
      facetFilter: this.facetFilterFor(request.filter),
      facetCounts: new Int32Array(facetCode(this.resourceTypes.values.length, 0, 0)),
      hits: into !== undefined && into.length >= most ? into : new Int32Array(most),
      total: 0,
    };
    const length = rows === null ? this.highest + 1 : rows.length;
    for (let from = 0; from < length; from += ROWS_PER_STEP) {
      if (from > 0) yield;
      this.selectRange(pass, from, Math.min(length, from + ROWS_PER_STEP));
    }
    const rtCounts = new Int32Array(this.resourceTypes.values.length);
    const accessCounts = new Int32Array(ACCESS.length);
    const kindCounts = new Int32Array(KINDS.length);
    pass.facetCounts.forEach((count, code) => {
      if (count === 0) return;
      const [rt, access, kind] = facetsOf(code);
      if (rt >= 0) rtCounts[rt] = (rtCounts[rt] as number) + count;
      accessCounts[access] = (accessCounts[access] as number) + count;
      kindCounts[kind] = (kindCounts[kind] as number) + count;
    });
    const aggregations: SearchResult['aggregations'] = {};
    for (const facet of request.aggregations) aggregations[facet] = this.buckets(facet, { resource_type: rtCounts, access_status: accessCounts, record_type: kindCounts }[facet]);
    return { hits: pass.hits.subarray(0, pass.total), aggregations };
  }

  /** One step of `selectSteps`, in a plain method: the hot loop stays out of the generator. */
  private selectRange(pass: SelectPass, from: number, to: number): void {
    const { rows, accepts, listing, facetFilter, facetCounts, hits } = pass;
    const { present, facets, kind, capacity, state, flags } = this;
    let total = pass.total;
    // Over half a million rows, `accepts` called on each was 40% of the pass.
    const kinds = listing?.kinds ?? 0;
    const wantedState = listing?.state ?? -1;
    const wantedFlags = listing?.flags ?? 0;
    for (let i = from; i < to; i++) {
      const rowid = rows === null ? i : (rows[i] ?? 0);
      if (rowid >= capacity || present[rowid] !== 1) continue;
      if (listing === null) {
        if (!accepts(rowid)) continue;
      } else {
        if ((kinds & (1 << (kind[rowid] as number))) === 0) continue;
        if (wantedState >= 0 && state[rowid] !== wantedState) continue;
        const f = flags[rowid] as number;
        if ((f & wantedFlags) !== wantedFlags) continue;
        if ((f & PUBLIC) === 0 && !accepts(rowid)) continue;
      }
      const code = facets[rowid] as number;
      facetCounts[code] = (facetCounts[code] as number) + 1;
      if (facetFilter !== null && !facetFilter(rowid)) continue;
      hits[total++] = rowid;
    }
    pass.total = total;
  }

  /**
   * The requested page of a selection: in the order `ranked` gives (the first hits by
   * relevance, from a `Ranker`), or else by the sort option (`bestmatch` as `newest`).
   */
  page(selection: Selection, request: SearchRequest, ranked: number[] | null): SearchResult {
    return runSteps(this.pageSteps(selection, request, ranked));
  }

  /** `page`, yielding every `ROWS_PER_STEP` hits while it orders them. */
  *pageSteps(selection: Selection, request: SearchRequest, ranked: number[] | null): Steps<SearchResult> {
    const start = (request.page - 1) * request.size;
    const k = start + request.size;
    const ordered = ranked ?? (yield* this.firstBySort(selection.hits, k, request.sort === 'bestmatch' ? 'newest' : request.sort));
    return {
      total: selection.hits.length,
      hits: ordered
        .slice(start, k)
        .map((rowid) => ({ id: this.ids[rowid] ?? '', kind: KINDS[this.kind[rowid] ?? 0] ?? 'resource', state: STATES[this.state[rowid] ?? 0] ?? 'draft' })),
      aggregations: selection.aggregations,
    };
  }

  /** The first `k` hits in a sort's order. */
  private firstBySort(hits: Int32Array, k: number, sort: Exclude<SearchRequest['sort'], 'bestmatch'>): Steps<number[]> {
    const column = sort === 'version' ? this.versionIndex : sort === 'updated-desc' || sort === 'updated-asc' ? this.updated : this.created;
    return firstByColumnSteps(hits, k, column, sort !== 'oldest' && sort !== 'updated-asc', this.comparator(sort));
  }

  /** `newest` over rows, the order of equal relevance. */
  newest(): (a: number, b: number) => number {
    return this.comparator('newest');
  }

  private buckets(facet: FacetName, counts: Int32Array): FacetBucket[] {
    const out: FacetBucket[] = [];
    counts.forEach((docCount, code) => {
      if (docCount === 0) return;
      if (facet === 'resource_type') out.push({ key: this.resourceTypes.values[code] ?? '', docCount, label: this.resourceTypeLabels[code] ?? '' });
      else {
        const key = (facet === 'access_status' ? ACCESS[code] : KINDS[code]) ?? '';
        out.push({ key, docCount, label: facetLabel(facet, key) });
      }
    });
    return sortBuckets(out);
  }

  /** `passesFilter` compiled once per request. */
  private filterFor(f: SearchFilter): (rowid: number) => boolean {
    let kinds = 0;
    for (const k of f.kinds) kinds |= 1 << KINDS.indexOf(k);
    const state = f.published === true ? 1 : f.published === false ? 0 : -1;
    const latestOnly = f.latestOnly === true;
    const owner = f.userListing ? this.owners.find(f.userListing.ownerId) : -2;
    const userFlags = f.userListing ? IN_USER_LISTING | (f.userListing.allVersions ? 0 : USER_LATEST) : 0;
    const parent = f.parentId;
    const ids = f.ids === undefined ? null : new Set(f.ids);
    const viewer = f.viewerId;
    const { kind: kindOf, state: stateOf, flags: flagsOf, owner: ownerOf, parents: parentOf, ids: idOf, readers } = this;
    return (rowid) => {
      if ((kinds & (1 << (kindOf[rowid] ?? 0))) === 0) return false;
      if (state >= 0 && stateOf[rowid] !== state) return false;
      const flags = flagsOf[rowid] ?? 0;
      if (latestOnly && (flags & LATEST) === 0) return false;
      if (owner !== -2 && (ownerOf[rowid] !== owner || (flags & userFlags) !== userFlags)) return false;
      if (parent !== undefined && parentOf[rowid] !== parent) return false;
      if (ids !== null && !ids.has(idOf[rowid] ?? '')) return false;
      if ((flags & PUBLIC) !== 0) return true;
      return viewer !== null && (readers.get(rowid)?.includes(viewer) ?? false);
    };
  }

  /** The checks of `filterFor` the select loop makes inline, or null when the filter names an owner, a parent or ids. */
  private listingFor(f: SearchFilter): ListingFilter | null {
    if (f.userListing || f.parentId !== undefined || f.ids !== undefined) return null;
    let kinds = 0;
    for (const k of f.kinds) kinds |= 1 << KINDS.indexOf(k);
    return { kinds, state: f.published === true ? 1 : f.published === false ? 0 : -1, flags: f.latestOnly === true ? LATEST : 0 };
  }

  /** `passesFacets` compiled once per request; null when no facet filters. */
  private facetFilterFor(f: SearchFilter): ((rowid: number) => boolean) | null {
    const checks: ((rowid: number) => boolean)[] = [];
    const { resource_type: rt, access_status: access, record_type: kind } = f.facets ?? {};
    if (rt && rt.length > 0) {
      const codes = new Set(rt.map((v) => this.resourceTypes.find(v)));
      checks.push((rowid) => codes.has(this.resourceType[rowid] ?? -1) && (this.resourceType[rowid] ?? -1) >= 0);
    }
    if (access && access.length > 0) {
      const codes = new Set(access.map((v) => ACCESS.indexOf(v as SearchDocument['accessStatus'])));
      checks.push((rowid) => codes.has(this.access[rowid] ?? -1));
    }
    if (kind && kind.length > 0) {
      const codes = new Set(kind.map((v) => KINDS.indexOf(v as RecordKind)));
      checks.push((rowid) => codes.has(this.kind[rowid] ?? -1));
    }
    return checks.length === 0 ? null : (rowid) => checks.every((check) => check(rowid));
  }

  /** `compareFor` over columns: ties break on id, then draft before published (their keys' order). */
  private comparator(sort: Exclude<SearchRequest['sort'], 'bestmatch'>): (a: number, b: number) => number {
    const created = this.created;
    const updated = this.updated;
    const byId = (a: number, b: number) => {
      const x = this.ids[a] ?? '';
      const y = this.ids[b] ?? '';
      return x < y ? -1 : x > y ? 1 : (this.state[a] ?? 0) - (this.state[b] ?? 0);
    };
    switch (sort) {
      case 'newest':
        return (a, b) => (created[b] ?? 0) - (created[a] ?? 0) || byId(a, b);
      case 'oldest':
        return (a, b) => (created[a] ?? 0) - (created[b] ?? 0) || byId(a, b);
      case 'version':
        return (a, b) => (this.versionIndex[b] ?? 0) - (this.versionIndex[a] ?? 0) || (created[b] ?? 0) - (created[a] ?? 0) || byId(a, b);
      case 'updated-desc':
        return (a, b) => (updated[b] ?? 0) - (updated[a] ?? 0) || byId(a, b);
      case 'updated-asc':
        return (a, b) => (updated[a] ?? 0) - (updated[b] ?? 0) || byId(a, b);
    }
  }

  private ensure(size: number): void {
    if (size <= this.capacity) return;
    const capacity = Math.max(size, this.capacity * 2, 1024);
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.present = grow(this.present, (n) => new Uint8Array(n));
    this.kind = grow(this.kind, (n) => new Uint8Array(n));
    this.state = grow(this.state, (n) => new Uint8Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.access = grow(this.access, (n) => new Uint8Array(n));
    this.facets = grow(this.facets, (n) => new Int32Array(n));
    this.versionIndex = grow(this.versionIndex, (n) => new Int32Array(n));
    this.resourceType = grow(this.resourceType, (n) => new Int32Array(n));
    this.owner = grow(this.owner, (n) => new Int32Array(n));
    this.created = grow(this.created, (n) => new Float64Array(n));
    this.updated = grow(this.updated, (n) => new Float64Array(n));
    this.capacity = capacity;
  }
}

/**
 * The first `k` of `hits` in `compare`'s order, where `compare` orders first by `column` (larger
 * values first when `descending`). Each hit is first held against the k-th kept so far by its
 * value in the column alone, read inline, and only a hit that leads or ties there goes through
 * `compare`: at a million hits, `compare` on every hit held the event loop for over 100 ms, the
 * column alone for a few.
 */
export function firstByColumn(hits: Int32Array, k: number, column: ArrayLike<number>, descending: boolean, compare: (a: number, b: number) => number): number[] {
  return runSteps(firstByColumnSteps(hits, k, column, descending, compare));
}

/** `firstByColumn`, yielding every `ROWS_PER_STEP` hits. */
export function* firstByColumnSteps(hits: Int32Array, k: number, column: ArrayLike<number>, descending: boolean, compare: (a: number, b: number) => number): Steps<number[]> {
  if (k <= 0) return [];
  if (k * 8 >= hits.length) return Array.from(hits).sort(compare).slice(0, k);
  const kept: FirstK = { top: [], bound: Number.NEGATIVE_INFINITY };
  for (let from = 0; from < hits.length; from += ROWS_PER_STEP) {
    if (from > 0) yield;
    firstRange(hits, from, Math.min(hits.length, from + ROWS_PER_STEP), k, column, descending ? 1 : -1, compare, kept);
  }
  return kept.top;
}

/** The first k kept so far, and the k-th's value in the column (signed), once there are k. */
interface FirstK {
  top: number[];
  bound: number;
}

/** One step of `firstByColumnSteps`, in a plain function: the hot loop stays out of the generator. */
function firstRange(hits: Int32Array, from: number, to: number, k: number, column: ArrayLike<number>, sign: number, compare: (a: number, b: number) => number, kept: FirstK): void {
  const top = kept.top;
  let bound = kept.bound;
  for (let i = from; i < to; i++) {
    if (top.length === k) {
      // Most hits fall below the k-th kept: passed over in a loop of their own.
      while (i < to && (column[hits[i] as number] ?? 0) * sign < bound) i++;
      if (i >= to) break;
      if (compare(hits[i] as number, top[k - 1] ?? 0) >= 0) continue;
    }
    const rowid = hits[i] as number;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(rowid, top[mid] ?? 0) < 0) hi = mid;
      else lo = mid + 1;
    }
    top.splice(lo, 0, rowid);
    if (top.length > k) top.pop();
    if (top.length === k) bound = (column[top[k - 1] ?? 0] ?? 0) * sign;
  }
  kept.bound = bound;
}
