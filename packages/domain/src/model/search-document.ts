/**
 * Projects a parent's versions into search documents. All listing rules (latest version, the
 * owner's view of drafts versus published records, who may read) are decided here, so every
 * search engine answers them with plain filters.
 */
import { geometryShapes, shapeBounds } from '../search/index.ts';
import type { SearchDocument } from '../ports.ts';
import { accessStatus } from './access-status.ts';
import { pruneDepth } from './prune-depth.ts';
import { withoutEmails } from './metadata/privacy.ts';
import { isLarge, knownWithinLevels, markLarge, markLevels } from '../turns/large-values.ts';
import { nestsWithinInTurns } from '../turns/nesting.ts';
import { largeValueSlices } from '../turns/time-slices.ts';
import type { AnyRecord, DraftRecord, Parent, PublishedRecord } from './types.ts';

/** Deeper than any metadata the schema describes (a nested GeometryCollection included); deeper values are not searchable. */
const MAX_METADATA_DEPTH = 32;

/** A record's resource type as it is indexed and harvested: its vocabulary id and English label. */
export function resourceTypeOf(record: AnyRecord): SearchDocument['resourceType'] {
  const rt = record.metadata['resource_type'];
  if (typeof rt !== 'object' || rt === null) return null;
  const { id, title } = rt as { id?: unknown; title?: unknown };
  if (typeof id !== 'string') return null;
  const en = typeof title === 'object' && title !== null ? (title as Record<string, unknown>)['en'] : undefined;
  return { id, label: typeof en === 'string' ? en : id };
}

function documentOf(record: AnyRecord, parent: Parent, flags: Pick<SearchDocument, 'isLatest' | 'inUserListing' | 'isUserLatest'>, readers: string[]): SearchDocument {
  const shapes = geometryShapes(record.metadata['locations']);
  // Metadata known to nest within the bound (normalised here, or checked in slices by
  // checkLargeNestingInTurns) is not walked again.
  const bounded = knownWithinLevels(record.metadata, MAX_METADATA_DEPTH + 1) ? record.metadata : pruneDepth(record.metadata, MAX_METADATA_DEPTH);
  // Searching by a person's e-mail would reveal it: it is never indexed.
  const metadata = withoutEmails(bounded as AnyRecord['metadata']);
  // The index encodes and walks a large record's document in slices too (turns/large-values.ts).
  if (isLarge(record.metadata)) markLarge(metadata);
  return {
    key: `${record.state}:${record.id}`,
    id: record.id,
    kind: record.kind,
    state: record.state,
    parentId: parent.id,
    ownerId: parent.ownerId,
    versionIndex: record.versionIndex,
    ...flags,
    isPublic: record.state === 'published' && record.access.record === 'public',
    readers,
    created: record.created,
    updated: record.updated,
    resourceType: resourceTypeOf(record),
    accessStatus: accessStatus(record),
    bounds: shapes.map(shapeBounds),
    shapes,
    body: {
      id: record.id,
      parent: { id: parent.id, type: record.kind, access: { owned_by: [{ user: parent.ownerId }] } },
      access: { record: record.access.record, files: record.access.files, status: accessStatus(record) },
      metadata,
      created: record.created,
      updated: record.updated,
      is_published: record.state === 'published',
      versions: { index: record.versionIndex },
      files: { enabled: record.files.enabled },
    },
  };
}

/**
 * Before `searchDocuments`: the nesting of large records' metadata checked in slices, so that
 * building their documents does not walk it again in one go (5-20 ms for the largest legal one).
 * A record nested past the bound is left to `searchDocuments` to prune.
 */
export async function checkLargeNestingInTurns(records: readonly AnyRecord[]): Promise<void> {
  for (const { metadata } of records) {
    if (!isLarge(metadata) || knownWithinLevels(metadata, MAX_METADATA_DEPTH + 1)) continue;
    if (await nestsWithinInTurns(metadata, MAX_METADATA_DEPTH + 1, largeValueSlices())) markLevels(metadata, MAX_METADATA_DEPTH + 1);
  }
}

/**
 * `readers` are the users besides the owner who may read restricted versions (a managing
 * package's owner).
 */
export function searchDocuments(parent: Parent, published: PublishedRecord[], drafts: DraftRecord[], extraReaders: string[] = []): SearchDocument[] {
  const readers = [parent.ownerId, ...extraReaders];
  const draftIds = new Set(drafts.map((d) => d.id));
  const listed: AnyRecord[] = [...drafts, ...published.filter((p) => !draftIds.has(p.id))];
  const userLatest = listed.reduce<AnyRecord | null>((best, r) => (best === null || r.versionIndex > best.versionIndex ? r : best), null);
  const flagsOf = (r: AnyRecord) => ({
    isLatest: r.state === 'published' && parent.latestPublishedId === r.id,
    inUserListing: listed.includes(r),
    isUserLatest: userLatest === r,
  });
  return [...published, ...drafts].map((r) => documentOf(r, parent, flagsOf(r), readers));
}
