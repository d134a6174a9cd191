/**
 * Filtering, visibility, facets, sorting and paging over documents, shared by the engines that
 * keep documents in memory. Facet filters act like InvenioRDM's post_filter: they narrow the
 * hits and the total but not the counts, so a selected facet still shows its alternatives.
 */
import type { BBox, FacetBucket, FacetName, SearchDocument, SearchFilter, SearchRequest, SearchResult, Shape } from '../ports.ts';
import { bboxIntersects } from './bbox.ts';
import { shapeBounds } from './geometry-bounds.ts';
import { boxWithin, shapeIntersects } from './shape-intersects.ts';

/** Everything in the filter except facets: kinds, state, version flags, owner, ids, visibility. */
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
  return canRead(doc, f.viewerId);
}

export const canRead = (doc: SearchDocument, viewerId: string | null): boolean => doc.isPublic || (viewerId !== null && doc.readers.includes(viewerId));

const ACCESS_LABEL: Record<SearchDocument['accessStatus'], string> = {
  open: 'Open',
  restricted: 'Restricted',
  embargoed: 'Embargoed',
  'metadata-only': 'Metadata only',
};
const KIND_LABEL: Record<SearchDocument['kind'], string> = { resource: 'Knowledge Resource', package: 'Knowledge Package' };

/** Bucket labels for the facets whose keys are fixed, shared with engines that count in SQL. */
export const facetLabel = (facet: Exclude<FacetName, 'resource_type'>, key: string): string =>
  (facet === 'access_status' ? (ACCESS_LABEL as Record<string, string>)[key] : (KIND_LABEL as Record<string, string>)[key]) ?? key;

export function facetKey(doc: SearchDocument, facet: FacetName): string | null {
  switch (facet) {
    case 'resource_type':
      return doc.resourceType?.id ?? null;
    case 'access_status':
      return doc.accessStatus;
    case 'record_type':
      return doc.kind;
  }
}

export function facetValue(doc: SearchDocument, facet: FacetName): { key: string; label: string } | null {
  if (facet === 'resource_type') return doc.resourceType ? { key: doc.resourceType.id, label: doc.resourceType.label } : null;
  const key = facetKey(doc, facet) ?? '';
  return { key, label: facetLabel(facet, key) };
}

/** OR within a facet, AND across facets; an empty list selects nothing out. */
export function passesFacets(doc: SearchDocument, f: SearchFilter): boolean {
  if (!f.facets) return true;
  for (const facet of Object.keys(f.facets) as FacetName[]) {
    const wanted = f.facets[facet];
    if (!wanted || wanted.length === 0) continue;
    const key = facetKey(doc, facet);
    if (key === null || !wanted.includes(key)) return false;
  }
  return true;
}

export function intersectsAny(bounds: readonly (readonly [number, number, number, number])[], box: SearchRequest['bbox']): boolean {
  if (box === null) return true;
  for (const b of bounds) if (bboxIntersects(box, b)) return true;
  return false;
}

/** Whether any of the shapes meets the box; a part whose box lies inside the query box does whatever its shape. */
export function shapesMeetBox(shapes: readonly Shape[], box: BBox): boolean {
  return shapes.some((shape) => {
    const bounds = shapeBounds(shape);
    return bboxIntersects(box, bounds) && (boxWithin(bounds, box) || shapeIntersects(box, shape));
  });
}

/** Whether the document's geometry meets the box: its bounds first, then its exact shapes. */
export function meetsBox(doc: Pick<SearchDocument, 'bounds' | 'shapes'>, box: SearchRequest['bbox']): boolean {
  if (box === null) return true;
  if (!intersectsAny(doc.bounds, box)) return false;
  return doc.shapes === undefined || shapesMeetBox(doc.shapes, box);
}

// Plain comparisons: ISO timestamps order as text, and localeCompare costs ten times more.
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byId = (a: SearchDocument, b: SearchDocument) => cmp(a.id, b.id) || cmp(a.key, b.key);

/** Orders by the sort option, ties broken by id so pages never overlap. */
export function compareFor(sort: SearchRequest['sort'], score: (d: SearchDocument) => number) {
  return (a: SearchDocument, b: SearchDocument): number => {
    switch (sort) {
      case 'bestmatch':
        return score(b) - score(a) || cmp(b.created, a.created) || byId(a, b);
      case 'newest':
        return cmp(b.created, a.created) || byId(a, b);
      case 'oldest':
        return cmp(a.created, b.created) || byId(a, b);
      case 'version':
        return b.versionIndex - a.versionIndex || cmp(b.created, a.created) || byId(a, b);
      case 'updated-desc':
        return cmp(b.updated, a.updated) || byId(a, b);
      case 'updated-asc':
        return cmp(a.updated, b.updated) || byId(a, b);
    }
  };
}

/** The first `k` items in order: a bounded insertion when k is small against the list, else a sort. */
export function firstInOrder<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (k * 8 >= items.length) return items.sort(compare).slice(0, k);
  const top: T[] = [];
  for (const item of items) {
    if (top.length === k && compare(item, top[k - 1] as T) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(item, top[mid] as T) < 0) hi = mid;
      else lo = mid + 1;
    }
    top.splice(lo, 0, item);
    if (top.length > k) top.pop();
  }
  return top;
}

/**
 * `matches` decides the query; filter, bbox, facets, sort and paging are applied here. Facets
 * count what passed filter, query and bbox, so never a document the viewer may not read.
 * `bestmatch` without a query sorts as `newest`.
 */
export function runSearch(
  docs: Iterable<SearchDocument>,
  request: SearchRequest,
  matches: (doc: SearchDocument) => boolean,
  score: ((doc: SearchDocument) => number) | null,
): SearchResult {
  const hits: SearchDocument[] = [];
  const counts = new Map<FacetName, Map<string, FacetBucket>>();
  for (const facet of request.aggregations) counts.set(facet, new Map());
  for (const doc of docs) {
    if (!passesFilter(doc, request.filter)) continue;
    if (!meetsBox(doc, request.bbox)) continue;
    if (!matches(doc)) continue;
    for (const [facet, buckets] of counts) {
      const key = facetKey(doc, facet);
      if (key === null) continue;
      const bucket = buckets.get(key);
      if (bucket) bucket.docCount++;
      else buckets.set(key, { key, docCount: 1, label: facetValue(doc, facet)?.label ?? key });
    }
    if (passesFacets(doc, request.filter)) hits.push(doc);
  }
  const sort = request.sort === 'bestmatch' && score === null ? 'newest' : request.sort;
  let rank = (_: SearchDocument) => 0;
  if (sort === 'bestmatch' && score !== null) {
    // Scored once per hit, not once per comparison.
    const scores = new Map(hits.map((d) => [d, score(d)]));
    rank = (d) => scores.get(d) ?? 0;
  }
  const start = (request.page - 1) * request.size;
  const page = firstInOrder(hits, start + request.size, compareFor(sort, rank)).slice(start);
  const aggregations: SearchResult['aggregations'] = {};
  for (const [facet, buckets] of counts) aggregations[facet] = sortBuckets([...buckets.values()]);
  return { total: hits.length, hits: page.map((d) => ({ id: d.id, kind: d.kind, state: d.state })), aggregations };
}

/** Largest first, then by key, as a terms aggregation orders its buckets. */
export const sortBuckets = (buckets: FacetBucket[]): FacetBucket[] => buckets.sort((a, b) => b.docCount - a.docCount || cmp(a.key, b.key));
