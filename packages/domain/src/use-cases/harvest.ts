/**
 * What harvesters (OAI-PMH) see: every published version, in the order of its last change, with
 * the sets it belongs to. A version anonymous readers may not read (restricted) is given as
 * deleted, without its metadata: a harvester that took it while it was public then learns to
 * drop it, and one that never saw it learns nothing about it but its id. Nothing is forgotten,
 * so the repository's deleted-record policy is `persistent`.
 */
import { liftedAt } from '../model/embargo.ts';
import { pause } from '../model/metadata/normalizer.ts';
import type { PublishedRecord, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { viewOf } from './lookup.ts';

/** Where a walk stands: the last version handed out. */
export interface HarvestPosition {
  updated: string;
  id: string;
}

export type HarvestSet = { kind: RecordKind } | { resourceType: string };

export interface HarvestQuery {
  /** Inclusive bounds on `updated`, ISO instants. */
  from?: string;
  until?: string;
  set?: HarvestSet;
  after?: HarvestPosition;
  /** Most items in the page. */
  limit: number;
}

export interface HarvestItem {
  id: string;
  kind: RecordKind;
  /** The version's last change, an ISO instant. */
  updated: string;
  sets: HarvestSet[];
  /** null when the version is not public: the harvester is told it is deleted. */
  view: RecordView | null;
}

export interface HarvestPage {
  items: HarvestItem[];
  /** Where the next page starts; null when the walk is complete. */
  next: HarvestPosition | null;
}

/**
 * Rows read between two turns handed to other requests: a set that matches few versions may
 * need a long walk before a page has anything in it.
 */
const SCAN_TURN = 500;

export function resourceTypeOf(record: PublishedRecord): string | null {
  const rt = record.metadata['resource_type'];
  if (typeof rt !== 'object' || rt === null) return null;
  const id = (rt as { id?: unknown }).id;
  return typeof id === 'string' ? id : null;
}

export function setsOf(record: PublishedRecord): HarvestSet[] {
  const type = resourceTypeOf(record);
  return type === null ? [{ kind: record.kind }] : [{ kind: record.kind }, { resourceType: type }];
}

const inSet = (record: PublishedRecord, set: HarvestSet | undefined): boolean =>
  set === undefined || ('kind' in set ? record.kind === set.kind : resourceTypeOf(record) === set.resourceType);

async function itemOf(deps: CoreDeps, record: PublishedRecord, now: string): Promise<HarvestItem> {
  const current = liftedAt(record, now);
  const base = { id: record.id, kind: record.kind, updated: record.updated, sets: setsOf(record) };
  if (current.access.record !== 'public') return { ...base, view: null };
  const parent = await deps.repos.records.getParent(record.parentId);
  return { ...base, view: parent === null ? null : viewOf(current, parent) };
}

export async function harvest(deps: CoreDeps, query: HarvestQuery): Promise<HarvestPage> {
  const now = deps.clock.now();
  const items: HarvestItem[] = [];
  let after = query.after;
  let last: HarvestPosition | undefined;
  for (;;) {
    // One more than a page: a page is known to be the last when nothing matching follows it.
    const want = Math.min(query.limit + 1, SCAN_TURN);
    const batch = await deps.repos.records.listPublishedByUpdate({ from: query.from, until: query.until, after, limit: want });
    for (const record of batch) {
      after = { updated: record.updated, id: record.id };
      if (!inSet(record, query.set)) continue;
      if (items.length === query.limit) return { items, next: last ?? null };
      items.push(await itemOf(deps, record, now));
      last = after;
    }
    if (batch.length < want) return { items, next: null };
    await pause();
  }
}

/** One published version as a harvester sees it, or null when there is no such version. */
export async function harvestOne(deps: CoreDeps, id: string): Promise<HarvestItem | null> {
  const record = await deps.repos.records.getPublished(id);
  return record === null ? null : itemOf(deps, record, deps.clock.now());
}
