/**
 * SearchIndex on MiniSearch, in memory. MiniSearch answers the free-text leaves of a query
 * (fuzzy ones with its own bounded search), `_exists_` through a field of path tokens, and
 * ranks; ranges read a compact column of the range fields' values; NOT is the complement of
 * what its child matched. Where the answer is a superset (phrases, fields other than the title)
 * the domain's evaluator checks the candidates, a slice at a time. Filters, facets, sort and
 * paging are the domain's shared rules, so this engine and the in-memory fake agree by construction.
 */
import {
  fieldPaths,
  flatten,
  fuzzyDistance,
  inRange,
  intersectsAny,
  isFuzzyMatch,
  matchesQuery,
  parseQuery,
  passesFilter,
  RANGE_FIELDS,
  rangeValues,
  runSearch,
  tokenize,
  type QueryNode,
} from '@krs/domain/search';
import type { SearchDocument, SearchIndex } from '@krs/domain';
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from 'minisearch';
import { evaluateInSlices } from './evaluate-in-slices.ts';
import { pathToken } from './path-token.ts';

interface IndexedText {
  key: string;
  title: string;
  text: string;
  /** `pathToken` of every field path holding a value, for `_exists_:`. */
  paths: string;
}

/** Bumped whenever the snapshot layout or the indexing options change: older files are rebuilt. */
const SNAPSHOT_FORMAT = 'krs-minisearch-3';

const OPTIONS: Options<IndexedText> = {
  idField: 'key',
  fields: ['title', 'text', 'paths'],
  // The same words the evaluator sees, so a MiniSearch hit on a plain term is an exact answer.
  tokenize,
  processTerm: (term) => term,
  searchOptions: { boost: { title: 2 }, fields: ['title', 'text'] },
};

function toIndexed(doc: SearchDocument): IndexedText {
  const flat = flatten(doc.body);
  const title: string[] = [];
  for (const [path, values] of flat) if (path === 'metadata.title' || path.startsWith('metadata.title.')) title.push(...values);
  return { key: doc.key, title: title.join(' '), text: [...flat.values()].flat().join(' '), paths: fieldPaths(flat).map(pathToken).join(' ') };
}

/** Keys that may match a leaf or group, and whether every one of them surely does. */
interface Candidates {
  keys: Set<string>;
  exact: boolean;
}

interface Snapshot {
  format: string;
  watermark: string;
  mini: AsPlainObject;
  docs: SearchDocument[];
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isBox = (v: unknown) => Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
const isCoordinates = (v: unknown) => Array.isArray(v) && v.length % 2 === 0 && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));

function isShape(v: unknown): boolean {
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

/** A snapshot is only a cache: anything not shaped like a document means rebuild. */
function isSearchDocument(v: unknown): v is SearchDocument {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  const strings = ['key', 'id', 'parentId', 'ownerId', 'created', 'updated', 'accessStatus'];
  const flags = ['isLatest', 'inUserListing', 'isUserLatest', 'isPublic'];
  const rt = d['resourceType'];
  return (
    strings.every((k) => typeof d[k] === 'string') &&
    flags.every((k) => typeof d[k] === 'boolean') &&
    (d['kind'] === 'resource' || d['kind'] === 'package') &&
    (d['state'] === 'draft' || d['state'] === 'published') &&
    typeof d['versionIndex'] === 'number' &&
    isStringArray(d['readers']) &&
    Array.isArray(d['bounds']) &&
    d['bounds'].every(isBox) &&
    (d['shapes'] === undefined || (Array.isArray(d['shapes']) && d['shapes'].every(isShape))) &&
    (rt === null || (typeof rt === 'object' && rt !== null && typeof (rt as Record<string, unknown>)['id'] === 'string' && typeof (rt as Record<string, unknown>)['label'] === 'string')) &&
    typeof d['body'] === 'object' &&
    d['body'] !== null
  );
}

export interface MiniSearchIndex extends SearchIndex {
  size(): number;
  /** Writes the index atomically (temp file, then rename); `watermark` is the time up to which it reflects the database. */
  saveSnapshot(file: string, watermark: string): Promise<void>;
  /**
   * Loads a snapshot and returns its watermark; null, with the index left as it was, when the
   * file is missing, from another format version, or corrupt in any way.
   */
  loadSnapshot(file: string): Promise<string | null>;
}

export function createMiniSearchIndex(): MiniSearchIndex {
  const entries = new Map<string, SearchDocument>();
  // Keys by parent: re-projecting a parent asks for its keys, and a scan of every entry per
  // parent made a rebuild quadratic (220 s for 100k records).
  const byParent = new Map<string, Set<string>>();
  /** The range fields' values per document that has any: the column ranges read. */
  const ranges = new Map<string, [field: string, value: string][]>();
  let mini = new MiniSearch<IndexedText>(OPTIONS);
  /**
   * Writes begun so far. The index lives in this process's memory alone and each write runs
   * whole in one go, so the count is its stamp; a write that fails part way has counted too.
   */
  let writes = 0;

  function track(doc: SearchDocument) {
    const previous = entries.get(doc.key);
    if (previous !== undefined) untrack(previous);
    entries.set(doc.key, doc);
    const values = rangeValues(flatten(doc.body));
    if (values.length > 0) ranges.set(doc.key, values);
    const keys = byParent.get(doc.parentId) ?? new Set<string>();
    keys.add(doc.key);
    byParent.set(doc.parentId, keys);
  }

  function untrack(doc: SearchDocument) {
    entries.delete(doc.key);
    ranges.delete(doc.key);
    const keys = byParent.get(doc.parentId);
    keys?.delete(doc.key);
    if (keys?.size === 0) byParent.delete(doc.parentId);
  }

  function lookup(text: string, options: SearchOptions): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of mini.search(text, { ...options, combineWith: 'AND' })) out.set(String(r.id), r.score);
    return out;
  }

  /** Candidates for a node, or null when MiniSearch cannot narrow it (every document may match). */
  function candidates(node: QueryNode, scores: Map<string, number>): Candidates | null {
    switch (node.type) {
      case 'term':
      case 'phrase': {
        const words = tokenize(node.value);
        if (words.length === 0) return null;
        const onTitle = node.field === 'metadata.title';
        const options: SearchOptions = { fields: onTitle ? ['title'] : ['title', 'text'] };
        if (node.type === 'term' && node.match === 'prefix') options.prefix = true;
        let found: Map<string, number>;
        if (node.type === 'term' && node.match === 'fuzzy') {
          // MiniSearch's fuzzy search walks its term tree within the edit distance; the domain's
          // rule also wants the first letter kept, checked on the words each hit matched.
          options.fuzzy = (term) => fuzzyDistance(term) || false;
          found = new Map();
          for (const r of mini.search(words.join(' '), { ...options, combineWith: 'AND' })) {
            if (words.every((w) => r.terms.some((t) => t === w || isFuzzyMatch(t, w)))) found.set(String(r.id), r.score);
          }
        } else {
          found = lookup(words.join(' '), options);
        }
        for (const [k, s] of found) scores.set(k, (scores.get(k) ?? 0) + s);
        // Plain words on all fields or on the title are exactly MiniSearch's answer; a phrase
        // also needs its words in order, another field needs them in that field.
        const exact = node.type === 'term' && (node.field === null || onTitle);
        return { keys: new Set(found.keys()), exact };
      }
      case 'and': {
        // Plain words on the same fields go to MiniSearch as one AND query: it intersects them
        // itself, far cheaper than building each word's full result list.
        const plain = (field: string | null) => (c: QueryNode) => c.type === 'term' && c.match === 'exact' && c.field === field && tokenize(c.value).length > 0;
        const grouped: QueryNode[] = [];
        const others: QueryNode[] = [];
        for (const field of [null, 'metadata.title']) {
          const same = node.children.filter(plain(field));
          if (same.length > 1) grouped.push({ type: 'term', field, match: 'exact', value: same.map((c) => (c.type === 'term' ? c.value : '')).join(' ') });
        }
        for (const c of node.children) if (!grouped.some((g) => g.type === 'term' && plain(g.field)(c))) others.push(c);
        const parts = [...grouped, ...others].map((c) => candidates(c, scores));
        const narrowing = parts.filter((p): p is Candidates => p !== null);
        if (narrowing.length === 0) return null;
        narrowing.sort((a, b) => a.keys.size - b.keys.size);
        const [smallest, ...rest] = narrowing as [Candidates, ...Candidates[]];
        const keys = new Set([...smallest.keys].filter((k) => rest.every((p) => p.keys.has(k))));
        return { keys, exact: narrowing.length === parts.length && narrowing.every((p) => p.exact) };
      }
      case 'or': {
        const parts = node.children.map((c) => candidates(c, scores));
        if (parts.some((p) => p === null)) return null;
        const narrowing = parts as Candidates[];
        return { keys: new Set(narrowing.flatMap((p) => [...p.keys])), exact: narrowing.every((p) => p.exact) };
      }
      case 'exists':
        return { keys: new Set(lookup(pathToken(node.field), { fields: ['paths'] }).keys()), exact: true };
      case 'range': {
        const keys = new Set<string>();
        if ((RANGE_FIELDS as readonly string[]).includes(node.field)) {
          for (const [key, values] of ranges) if (values.some(([field, value]) => field === node.field && inRange(value, node))) keys.add(key);
        }
        return { keys, exact: true };
      }
      case 'not': {
        // Only an exact answer has an exact complement; scores of what is excluded do not count.
        const inner = candidates(node.child, new Map());
        if (inner === null || !inner.exact) return null;
        const keys = new Set<string>();
        for (const key of entries.keys()) if (!inner.keys.has(key)) keys.add(key);
        return { keys, exact: true };
      }
      default:
        return null;
    }
  }

  return {
    async upsert(docs) {
      writes++;
      for (const doc of docs) {
        // Both may throw on a document they cannot take: before the text index changes, so the
        // two never disagree about which documents exist.
        const indexed = toIndexed(doc);
        const copy = structuredClone(doc);
        // replace() needs the id to exist and add() needs it absent; the entries map knows which.
        if (entries.has(doc.key)) mini.replace(indexed);
        else mini.add(indexed);
        track(copy);
      }
    },
    async remove(keys) {
      writes++;
      for (const key of keys) {
        const doc = entries.get(key);
        if (doc === undefined) continue;
        mini.discard(key);
        untrack(doc);
      }
    },
    async keysOfParent(parentId) {
      return [...(byParent.get(parentId) ?? [])];
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      const scores = new Map<string, number>();
      const found = candidates(query, scores);
      const docs = found === null ? entries.values() : [...found.keys].flatMap((k) => entries.get(k) ?? []);
      const score = scores.size > 0 ? (doc: SearchDocument) => scores.get(doc.key) ?? 0 : null;
      if (found?.exact) return runSearch(docs, request, () => true, score);
      // The evaluator reads each candidate's body: a slice at a time, and only for documents
      // the caller may list and the box allows.
      // A copy: a write between slices must not show a document twice or hide one.
      const decided = await evaluateInSlices([...docs], (doc) =>
        passesFilter(doc, request.filter) && intersectsAny(doc.bounds, request.bbox) && matchesQuery(query, doc) ? doc : null,
      );
      return runSearch(decided, request, () => true, score);
    },
    async clear() {
      writes++;
      mini.removeAll();
      entries.clear();
      ranges.clear();
      byParent.clear();
    },
    // Held in this process's memory: if the process answers, so does the index.
    check: async () => undefined,
    stamp: () => String(writes),
    size: () => entries.size,
    async saveSnapshot(file, watermark) {
      const snapshot: Snapshot = { format: SNAPSHOT_FORMAT, watermark, mini: mini.toJSON(), docs: [...entries.values()] };
      const tmp = `${file}.${randomUUID()}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify(snapshot));
        await rename(tmp, file);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },
    async loadSnapshot(file) {
      let loaded: MiniSearch<IndexedText>;
      let snapshot: Snapshot;
      try {
        const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<Snapshot> | null;
        if (parsed?.format !== SNAPSHOT_FORMAT || typeof parsed.watermark !== 'string' || !Array.isArray(parsed.docs)) return null;
        if (!parsed.docs.every(isSearchDocument) || typeof parsed.mini !== 'object' || parsed.mini === null) return null;
        snapshot = parsed as Snapshot;
        loaded = MiniSearch.loadJS<IndexedText>(snapshot.mini, OPTIONS);
        const keys = new Set(snapshot.docs.map((d) => d.key));
        // The text index and the documents must describe the same set, or answers would disagree.
        if (keys.size !== snapshot.docs.length || loaded.documentCount !== keys.size || ![...keys].every((k) => loaded.has(k))) return null;
      } catch {
        return null;
      }
      writes++;
      mini = loaded;
      entries.clear();
      ranges.clear();
      byParent.clear();
      for (const doc of snapshot.docs) track(doc);
      return snapshot.watermark;
    },
  };
}
