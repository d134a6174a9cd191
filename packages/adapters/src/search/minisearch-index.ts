/**
 * SearchIndex on MiniSearch. MiniSearch finds and ranks candidates for the free-text part of a
 * query; the domain's evaluator then applies the exact query semantics (fields, NOT, ranges,
 * phrases) and the shared filter, facet, sort and paging rules.
 */
import { flatten, matchesQuery, parseQuery, positiveTerms, runSearch, type FlatDoc, type QueryNode } from '@krs/domain/search';
import type { SearchDocument, SearchIndex } from '@krs/domain';
import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';

interface Entry {
  doc: SearchDocument;
  flat: FlatDoc;
}

interface IndexedText {
  key: string;
  title: string;
  text: string;
}

const textOf = (flat: FlatDoc) => [...flat.values()].flat().join(' ');

/** Whether every match needs at least one positive free-text term, so MiniSearch's candidates suffice. */
function needsText(node: QueryNode): boolean {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return node.field === null;
    case 'and':
      return node.children.some(needsText);
    case 'or':
      return node.children.every(needsText);
    default:
      return false;
  }
}

/** Bumped whenever the snapshot layout or the indexing options change: older files are rebuilt. */
const SNAPSHOT_FORMAT = 'krs-minisearch-1';

const OPTIONS: Options<IndexedText> = {
  idField: 'key',
  fields: ['title', 'text'],
  searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2 },
};

interface Snapshot {
  format: string;
  watermark: string;
  mini: AsPlainObject;
  docs: SearchDocument[];
}

export interface MiniSearchIndex extends SearchIndex {
  size(): number;
  /** Writes the index atomically; `watermark` is the time up to which it reflects the database. */
  saveSnapshot(file: string, watermark: string): Promise<void>;
  /** Loads a snapshot and returns its watermark, or null (index left empty) when it is missing, stale or corrupt. */
  loadSnapshot(file: string): Promise<string | null>;
}

export function createMiniSearchIndex(): MiniSearchIndex {
  const entries = new Map<string, Entry>();
  let mini = new MiniSearch<IndexedText>(OPTIONS);
  const toIndexed = (doc: SearchDocument, flat: FlatDoc): IndexedText => ({
    key: doc.key,
    title: (flat.get('metadata.title') ?? []).join(' '),
    text: textOf(flat),
  });

  return {
    async upsert(docs) {
      for (const doc of docs) {
        const flat = flatten(doc.body);
        const indexed = toIndexed(doc, flat);
        if (entries.has(doc.key)) mini.replace(indexed);
        else mini.add(indexed);
        entries.set(doc.key, { doc: structuredClone(doc), flat });
      }
    },
    async remove(keys) {
      for (const key of keys) {
        if (!entries.has(key)) continue;
        mini.discard(key);
        entries.delete(key);
      }
    },
    async keysOfParent(parentId) {
      return [...entries.values()].filter((e) => e.doc.parentId === parentId).map((e) => e.doc.key);
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      const terms = positiveTerms(query);
      let candidates: Iterable<Entry> = entries.values();
      const scores = new Map<string, number>();
      if (terms.length > 0) {
        for (const r of mini.search(terms.join(' '), { combineWith: 'OR' })) scores.set(String(r.id), r.score);
        if (needsText(query)) candidates = [...scores.keys()].flatMap((k) => entries.get(k) ?? []);
      }
      const flatOf = new Map<SearchDocument, FlatDoc>();
      for (const e of candidates) flatOf.set(e.doc, e.flat);
      return runSearch(
        flatOf.keys(),
        request,
        (doc) => matchesQuery(query, flatOf.get(doc) ?? new Map()),
        (doc) => scores.get(doc.key) ?? 0,
      );
    },
    async clear() {
      mini.removeAll();
      entries.clear();
    },
    size: () => entries.size,
    async saveSnapshot(file, watermark) {
      const snapshot: Snapshot = { format: SNAPSHOT_FORMAT, watermark, mini: mini.toJSON(), docs: [...entries.values()].map((e) => e.doc) };
      const tmp = `${file}.${randomUUID()}.tmp`;
      await writeFile(tmp, JSON.stringify(snapshot));
      await rename(tmp, file);
    },
    async loadSnapshot(file) {
      let snapshot: Snapshot;
      try {
        snapshot = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
        if (snapshot.format !== SNAPSHOT_FORMAT || typeof snapshot.watermark !== 'string' || !Array.isArray(snapshot.docs)) return null;
        const loaded = MiniSearch.loadJS<IndexedText>(snapshot.mini, OPTIONS);
        if (loaded.documentCount !== snapshot.docs.length) return null;
        mini = loaded;
      } catch {
        return null;
      }
      entries.clear();
      for (const doc of snapshot.docs) entries.set(doc.key, { doc, flat: flatten(doc.body) });
      return snapshot.watermark;
    },
  };
}
