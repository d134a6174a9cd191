import { requireSignedIn } from '../model/access.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView, SearchPage } from '../model/views.ts';
import type { AnswerMemory, FacetName, SearchFilter, SearchResult } from '../ports.ts';
import { parseBBox } from '../search/index.ts';
import type { CoreDeps } from './deps.ts';
import { resolvePaging, resolveSort, type ListingInput, type ListingKind } from './listing-params.ts';
import { viewOf } from './lookup.ts';
import { withHolders } from './packages/holder.ts';
import { afterProjections } from './project-search.ts';
import { weighPage } from './weigh-page.ts';

/** Loads the hits from the repositories: the index only says which, never what. */
/** Records and parents of a page of hits, read in three statements rather than two per hit. */
export async function hydrate(deps: CoreDeps, result: SearchResult, memory?: AnswerMemory): Promise<RecordView[]> {
  const records = deps.repos.records;
  const draftIds = result.hits.filter((h) => h.state === 'draft').map((h) => h.id);
  const publishedIds = result.hits.filter((h) => h.state !== 'draft').map((h) => h.id);
  await weighPage(deps, draftIds, publishedIds, memory);
  const [drafts, published] = await Promise.all([
    draftIds.length > 0 ? records.getDraftsByIds(draftIds) : [],
    publishedIds.length > 0 ? records.getPublishedByIds(publishedIds) : [],
  ]);
  const draftById = new Map(drafts.map((d) => [d.id, d]));
  const publishedById = new Map(published.map((r) => [r.id, r]));
  const parentIds = [...new Set([...drafts, ...published].map((r) => r.parentId))];
  const parents = new Map((parentIds.length > 0 ? await records.getParentsByIds(parentIds) : []).map((p) => [p.id, p]));
  const views: RecordView[] = [];
  for (const hit of result.hits) {
    const record = hit.state === 'draft' ? draftById.get(hit.id) : publishedById.get(hit.id);
    const parent = record ? parents.get(record.parentId) : undefined;
    if (record && parent) views.push(viewOf(record, parent));
  }
  return views;
}

export async function runListing(
  deps: CoreDeps,
  identity: Identity,
  listing: ListingKind,
  filter: SearchFilter,
  input: ListingInput,
  aggregations: readonly FacetName[],
): Promise<SearchPage> {
  const q = input.q?.trim() ? input.q : null;
  const paging = resolvePaging(input);
  const sort = resolveSort(listing, input.sort, q);
  const bbox = input.bbox ? parseBBox(input.bbox) : null;
  await afterProjections(deps.search);
  const result = await deps.search.search({ filter: { ...filter, facets: input.facets ?? {} }, q, bbox, sort, ...paging, aggregations });
  const selected = input.facets ?? {};
  const aggs: SearchPage['aggregations'] = {};
  for (const [facet, buckets] of Object.entries(result.aggregations) as [FacetName, NonNullable<SearchResult['aggregations'][FacetName]>][]) {
    aggs[facet] = buckets.map((b) => ({ ...b, isSelected: (selected[facet] ?? []).includes(b.key) }));
  }
  const hits = await withHolders(deps.repos, identity, await hydrate(deps, result, input.memory), deps.clock.now());
  return { total: result.total, hits, aggregations: aggs, sortBy: sort, ...paging };
}

/**
 * The read stamp an anonymous listing's answer may be kept under: what the store and the index
 * say of their changes, read together. A listing shows the index's choice of hits, counts and
 * facets, and the hits' rows as stored, and reads no clock (a hit's lapsed embargo reads as
 * stored until it is lifted in writing); every commit moves the store's stamp and every write to
 * the index moves its own, on this node or any other, so an answer built after both were read
 * holds for as long as neither has moved. A write landing while the answer is built moves one
 * of them: that answer is then kept under a stamp already gone. Null when either cannot tell.
 * Read once the projections begun before have ended: a write answered before it has then moved
 * the index's stamp too, not only the store's.
 */
export async function listingReadStamp(deps: CoreDeps): Promise<string | null> {
  await afterProjections(deps.search);
  const index = deps.search.stamp();
  if (index === null) return null;
  const store = await deps.repos.records.changeStamp();
  return store === null ? null : `${store}/${index}`;
}

/**
 * Published records visible to the caller: latest versions unless `allVersions`. An anonymous
 * caller's listing carries the read stamp it was built under (read before the search).
 */
export async function searchRecords(deps: CoreDeps, identity: Identity, kinds: RecordKind[], input: ListingInput): Promise<SearchPage> {
  const aggregations: FacetName[] = kinds.length > 1 ? ['resource_type', 'access_status', 'record_type'] : ['resource_type', 'access_status'];
  // Link holders see what anonymous callers see, but their answers are not worth telling apart.
  const readStamp = identity.userId === null && identity.linkIds.length === 0 ? await listingReadStamp(deps) : null;
  const page = await runListing(
    deps,
    identity,
    'search',
    { kinds, published: true, latestOnly: !input.allVersions, viewerId: identity.userId },
    input,
    aggregations,
  );
  // A package whose embargo lapses reads as lifted from its day on, without a write (read-stamp.ts).
  return { ...page, readStamp: page.hits.some((hit) => hit.holder?.lapses === true) ? null : readStamp };
}

/** The caller's drafts and published records without an open draft; latest of each unless `allVersions`. */
export function searchUserRecords(deps: CoreDeps, identity: Identity, kind: RecordKind, input: ListingInput): Promise<SearchPage> {
  const userId = requireSignedIn(identity);
  return runListing(
    deps,
    identity,
    'user',
    { kinds: [kind], userListing: { ownerId: userId, allVersions: input.allVersions ?? false }, viewerId: userId },
    input,
    ['resource_type', 'access_status'],
  );
}
