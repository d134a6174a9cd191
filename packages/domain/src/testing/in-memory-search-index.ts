/** A search index that evaluates every query over all documents: simple, exact, for tests. */
import type { SearchDocument, SearchIndex } from '../ports.ts';
import { flatten, matchesQuery, parseQuery, positiveTerms, runSearch, tokenize, type FlatDoc } from '../search/index.ts';

export function createInMemorySearchIndex(): SearchIndex & { size(): number } {
  const docs = new Map<string, { doc: SearchDocument; flat: FlatDoc }>();
  return {
    async upsert(list) {
      for (const doc of list) docs.set(doc.key, { doc: structuredClone(doc), flat: flatten(doc.body) });
    },
    async remove(keys) {
      for (const k of keys) docs.delete(k);
    },
    async keysOfParent(parentId) {
      return [...docs.values()].filter((e) => e.doc.parentId === parentId).map((e) => e.doc.key);
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      const terms = positiveTerms(query);
      const flatOf = new Map([...docs.values()].map((e) => [e.doc, e.flat]));
      const score = (doc: SearchDocument) => {
        const tokens = [...(flatOf.get(doc)?.values() ?? [])].flat().flatMap(tokenize);
        return terms.reduce((s, t) => s + tokens.filter((x) => x === t).length, 0);
      };
      return runSearch(
        flatOf.keys(),
        request,
        (doc) => matchesQuery(query, flatOf.get(doc) ?? new Map()),
        score,
      );
    },
    async clear() {
      docs.clear();
    },
    size: () => docs.size,
  };
}
