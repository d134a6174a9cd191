/**
 * Filtering, visibility, facets, sorting and paging over documents, shared by the engines that
 * keep documents in memory. `score` ranks for `bestmatch`.
 */
import type { FacetBucket, FacetName, SearchDocument, SearchFilter, SearchRequest, SearchResult } from '../ports.ts';
import { bboxIntersects } from './bbox.ts';

export function passesFilter(doc: SearchDocument, f: SearchFilter): boolean {
  if (!f.kinds.includes(doc.kind)) return false;
  if (f.published === true && doc.state !== 'published') return false;
  if (f.published === false && doc.state !== 'draft') return false;
  if (f.latestOnly && !doc.isLatest) return false;
  if (f.userListing) {
    if (doc.ownerId !== f.userListing.ownerId || !doc.inUserListing) return false;
    if (!f.userListing.allVersions && !doc.isUserLatest) return false;
  }
  if (f.parentId !== undefined && doc.parentId !== f.parentId) return false;
  if (f.ids !== undefined && !f.ids.includes(doc.id)) return false;
  return doc.isPublic || (f.viewerId !== null && doc.readers.includes(f.viewerId));
}

export const facetValue = (doc: SearchDocument, facet: FacetName): { key: string; label: string } | null => {
  switch (facet) {
    case 'resource_type':
      return doc.resourceType ? { key: doc.resourceType.id, label: doc.resourceType.label } : null;
    case 'access_status':
      return { key: doc.accessStatus, label: doc.accessStatus.replace('-', ' ').replace(/^./, (c) => c.toUpperCase()) };
    case 'record_type':
      return { key: doc.kind, label: doc.kind === 'package' ? 'Knowledge Package' : 'Knowledge Resource' };
  }
};

function passesFacets(doc: SearchDocument, f: SearchFilter): boolean {
  for (const [facet, wanted] of Object.entries(f.facets ?? {}) as [FacetName, readonly string[]][]) {
    if (wanted.length === 0) continue;
    const v = facetValue(doc, facet);
    if (!v || !wanted.includes(v.key)) return false;
  }
  return true;
}

const byKey = (a: SearchDocument, b: SearchDocument) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export function compareFor(sort: SearchRequest['sort'], score: (d: SearchDocument) => number) {
  return (a: SearchDocument, b: SearchDocument): number => {
    switch (sort) {
      case 'bestmatch':
        return score(b) - score(a) || b.created.localeCompare(a.created) || byKey(a, b);
      case 'newest':
        return b.created.localeCompare(a.created) || byKey(a, b);
      case 'oldest':
        return a.created.localeCompare(b.created) || byKey(a, b);
      case 'version':
        return b.versionIndex - a.versionIndex || b.created.localeCompare(a.created) || byKey(a, b);
      case 'updated-desc':
        return b.updated.localeCompare(a.updated) || byKey(a, b);
      case 'updated-asc':
        return a.updated.localeCompare(b.updated) || byKey(a, b);
    }
  };
}

/** `matches` decides the query (and bbox is checked here); facets count what the viewer may read. */
export function runSearch(
  docs: Iterable<SearchDocument>,
  request: SearchRequest,
  matches: (doc: SearchDocument) => boolean,
  score: (doc: SearchDocument) => number,
): SearchResult {
  const hits: SearchDocument[] = [];
  const counts = new Map<FacetName, Map<string, FacetBucket>>();
  for (const facet of request.aggregations) counts.set(facet, new Map());
  for (const doc of docs) {
    if (!passesFilter(doc, request.filter)) continue;
    if (request.bbox && !doc.bounds.some((b) => request.bbox && bboxIntersects(request.bbox, b))) continue;
    if (!matches(doc)) continue;
    for (const facet of request.aggregations) {
      const v = facetValue(doc, facet);
      if (!v) continue;
      const bucket = counts.get(facet)?.get(v.key) ?? { key: v.key, label: v.label, docCount: 0 };
      bucket.docCount++;
      counts.get(facet)?.set(v.key, bucket);
    }
    if (passesFacets(doc, request.filter)) hits.push(doc);
  }
  hits.sort(compareFor(request.sort, score));
  const start = (request.page - 1) * request.size;
  const aggregations: SearchResult['aggregations'] = {};
  for (const [facet, buckets] of counts) aggregations[facet] = [...buckets.values()].sort((a, b) => b.docCount - a.docCount || a.key.localeCompare(b.key));
  return {
    total: hits.length,
    hits: hits.slice(start, start + request.size).map((d) => ({ id: d.id, kind: d.kind, state: d.state })),
    aggregations,
  };
}
