/**
 * Package-resource listings: a package draft's attached resources, a published package's
 * resources, and a context. `q` and `bbox` narrow through the index, as on every other listing;
 * hits come from the repositories.
 */
import { notFound } from '../../errors.ts';
import { atLeast, requireLevel } from '../../model/access.ts';
import { liftedAt } from '../../model/embargo.ts';
import type { AnyRecord, Identity } from '../../model/types.ts';
import type { RecordView, SearchPage } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { resolvePaging, resolveSort, type ListingInput } from '../listing-params.ts';
import { levelFor, loadParent, loadPublished, previewOf, viewOf } from '../lookup.ts';
import { afterProjections } from '../project-search.ts';
import { parseBBox } from '../../search/index.ts';
import { withHolders } from './holder.ts';
import { packageParent } from './package-target.ts';

type Pick = 'draft-first' | 'published';

async function listResources(deps: CoreDeps, identity: Identity, ids: string[], pick: Pick, input: ListingInput): Promise<SearchPage> {
  const paging = resolvePaging(input);
  const q = input.q?.trim() ? input.q : null;
  const sort = resolveSort('search', input.sort, q);
  const now = deps.clock.now();
  // A malformed box is a 400 here as on the search endpoints, not a box silently ignored.
  const bbox = input.bbox ? parseBBox(input.bbox) : null;
  let matching: Set<string> | null = null;
  if ((q !== null || bbox !== null) && ids.length > 0) {
    await afterProjections(deps.search);
    const result = await deps.search.search({
      filter: { kinds: ['resource'], ids, viewerId: identity.userId },
      q,
      bbox,
      sort: 'bestmatch',
      page: 1,
      size: ids.length * 2,
      aggregations: [],
    });
    matching = new Set(result.hits.map((h) => h.id));
  }
  const views: RecordView[] = [];
  for (const id of ids) {
    if (matching && !matching.has(id)) continue;
    const draft = pick === 'draft-first' ? await deps.repos.records.getDraft(id) : null;
    const record: AnyRecord | null = draft ?? (await deps.repos.records.getPublished(id));
    if (!record || record.kind !== 'resource') continue;
    const parent = await loadParent(deps.repos, record.parentId);
    const readable = record.state === 'published' && record.access.record === 'public';
    const level = readable ? null : await levelFor(deps.repos, identity, parent, now);
    if (!readable && !atLeast(level, record.state === 'draft' ? 'preview' : 'view')) continue;
    // A draft is listed as GET .../draft shows it: without e-mail addresses below edit.
    views.push(record.state === 'draft' && !atLeast(level, 'edit') ? previewOf(viewOf(record, parent)) : viewOf(record, parent));
  }
  const order: Record<string, (a: RecordView, b: RecordView) => number> = {
    newest: (a, b) => b.record.created.localeCompare(a.record.created),
    oldest: (a, b) => a.record.created.localeCompare(b.record.created),
    version: (a, b) => b.record.versionIndex - a.record.versionIndex,
    'updated-desc': (a, b) => b.record.updated.localeCompare(a.record.updated),
    'updated-asc': (a, b) => a.record.updated.localeCompare(b.record.updated),
  };
  const compare = order[sort];
  if (compare) views.sort(compare);
  const start = (paging.page - 1) * paging.size;
  const hits = await withHolders(deps.repos, identity, views.slice(start, start + paging.size), now);
  return { total: views.length, hits, aggregations: {}, sortBy: sort, ...paging };
}

export async function listDraftResources(deps: CoreDeps, identity: Identity, packageId: string, input: ListingInput): Promise<SearchPage> {
  const draft = await deps.repos.records.getDraft(packageId);
  if (!draft || draft.kind !== 'package') throw notFound('draft.not_found', 'The package has no draft.');
  await packageParent(deps.repos, identity, packageId, 'preview', deps.clock.now());
  return listResources(deps, identity, draft.resources, 'draft-first', input);
}

export async function listPublishedResources(deps: CoreDeps, identity: Identity, packageId: string, input: ListingInput): Promise<SearchPage> {
  const record = await loadPublished(deps.repos, 'package', packageId);
  if (record.access.record !== 'public') await packageParent(deps.repos, identity, packageId, 'view', deps.clock.now());
  return listResources(deps, identity, record.resources, 'published', input);
}

/**
 * A context is listed to whoever may read the package: its viewers, and anyone at all once its
 * latest published version is public, as its landing page is. Each resource is shown only to
 * those who may read it, so a public package's readers see its public resources alone.
 */
export async function listContextResources(deps: CoreDeps, identity: Identity, parentId: string, input: ListingInput): Promise<SearchPage> {
  const parent = await deps.repos.records.getParent(parentId);
  if (!parent || parent.kind !== 'package') throw notFound('parent.not_found');
  const now = deps.clock.now();
  const level = await levelFor(deps.repos, identity, parent, now);
  if (!atLeast(level, 'view')) {
    const latest = parent.latestPublishedId === null ? null : await deps.repos.records.getPublished(parent.latestPublishedId);
    if (latest === null || liftedAt(latest, now).access.record !== 'public') requireLevel(identity, level, 'view');
  }
  return listResources(deps, identity, parent.context, 'draft-first', input);
}
