/** A search index that evaluates every query over all documents: simple and exact, for tests. */
import type { SearchDocument, SearchIndex } from '../ports.ts';
import { matchesQuery, parseQuery, positiveTerms, runSearch, scoreQuery } from '../search/index.ts';

export function createInMemorySearchIndex(): SearchIndex & { size(): number } {
  const docs = new Map<string, SearchDocument>();
  /** Writes so far: each is whole before it returns, so the count is the stamp. */
  let writes = 0;
  return {
    async upsert(list) {
      // Cloned so a caller mutating its document cannot change the index behind its back.
      for (const doc of list) docs.set(doc.key, structuredClone(doc));
      writes++;
    },
    async remove(keys) {
      for (const k of keys) docs.delete(k);
      writes++;
    },
    async keysOfParent(parentId) {
      return [...docs.values()].filter((d) => d.parentId === parentId).map((d) => d.key);
    },
    async search(request) {
      const query = parseQuery(request.q ?? '');
      const scored = positiveTerms(query).length > 0;
      return runSearch(
        docs.values(),
        request,
        (doc) => matchesQuery(query, doc),
        scored ? (doc) => scoreQuery(query, doc) : null,
      );
    },
    async clear() {
      docs.clear();
      writes++;
    },
    check: async () => undefined,
    stamp: () => String(writes),
    size: () => docs.size,
  };
}
