/**
 * Keeps the search index a projection of the repositories: after each commit the use cases
 * re-project the parents they touched; start-up and `krs reindex` re-project everything.
 */
import { searchDocuments } from '../model/search-document.ts';
import type { RecordKind } from '../model/types.ts';
import type { Repositories, SearchDocument, SearchIndex } from '../ports.ts';
import { managerOwnerOf } from './lookup.ts';

/** Re-projects each parent: its current documents are upserted, documents it no longer has removed, in one write each. */
export async function projectParents(repos: Repositories, search: SearchIndex, parentIds: Iterable<string>): Promise<void> {
  const current: SearchDocument[] = [];
  const stale: string[] = [];
  for (const parentId of new Set(parentIds)) {
    const old = new Set(await search.keysOfParent(parentId));
    const parent = await repos.records.getParent(parentId);
    if (parent) {
      const [published, drafts, manager] = await Promise.all([
        repos.records.listPublishedVersions(parentId),
        repos.records.listDrafts(parentId),
        managerOwnerOf(repos, parent),
      ]);
      for (const doc of searchDocuments(parent, published, drafts, manager ? [manager] : [])) {
        current.push(doc);
        old.delete(doc.key);
      }
    }
    stale.push(...old);
  }
  if (stale.length > 0) await search.remove(stale);
  if (current.length > 0) await search.upsert(current);
}

export interface ReindexProgress {
  done: number;
  total: number;
}

/** Rebuilds the whole index (or catches up on parents changed since `since`). */
export async function reindex(
  repos: Repositories,
  search: SearchIndex,
  options: { since?: string; onProgress?: (p: ReindexProgress) => void } = {},
): Promise<number> {
  const kinds: RecordKind[] = ['resource', 'package'];
  if (options.since === undefined) await search.clear();
  const ids = await repos.records.listParentIds(kinds, options.since);
  const batch = 200;
  for (let i = 0; i < ids.length; i += batch) {
    await projectParents(repos, search, ids.slice(i, i + batch));
    options.onProgress?.({ done: Math.min(i + batch, ids.length), total: ids.length });
  }
  return ids.length;
}
