/**
 * What harvesters (OAI-PMH) see: every published version, in the order of its last change, with
 * the sets it belongs to. A version anonymous readers may not read (restricted) is given as
 * deleted, without its metadata: a harvester that took it while it was public then learns to
 * drop it, and one that never saw it learns nothing about it but its id. Nothing is forgotten,
 * so the repository's deleted-record policy is `persistent`.
 */
import { liftedAt } from '../model/embargo.ts';
import { pause } from '../model/metadata/normalizer.ts';
import { anonymous, type Parent, type PublishedRecord, type RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { AnswerMemory, UpdateOrderQuery, UpdateStep } from '../ports.ts';
import { weighRecord } from './weigh-page.ts';
import type { CoreDeps } from './deps.ts';
import { viewOf } from './lookup.ts';
import { holdersOf } from './packages/holder.ts';
import { resourceTypeOf } from '../model/search-document.ts';

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
  /** What the answer may hold (AnswerMemory), the host's bound: each step's versions are taken from it before they are read. */
  memory?: AnswerMemory;
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
/**
 * Stored bytes of versions one step of a walk reads, and one harvest page holds, the first
 * version of each whatever its size: 500 versions of the largest legal size would be 850 MiB
 * read, parsed and written out by one request. A page of ordinary records (a few KiB) is never
 * cut by it; a page of large ones ends early, with a resumption token, as OAI-PMH allows.
 */
export const HARVEST_BYTES = 8 * 1024 * 1024;

interface WalkStep {
  records: PublishedRecord[];
  /** Their stored sizes, in the same order. */
  bytes: number[];
  /** The place of the last version read; the walk goes on after it unless `complete`. */
  last: HarvestPosition | undefined;
  /** How many versions of the walk the step passed (some may have moved on since, and are not in `records`). */
  walked: number;
  complete: boolean;
}

/**
 * The next versions of the walk, at most `limit` and at most `maxBytes` of them stored (the first
 * whatever its size): their places are read first, then only the versions that fit.
 */
async function walkStep(deps: CoreDeps, query: UpdateOrderQuery, maxBytes: number, memory?: AnswerMemory): Promise<WalkStep> {
  const places = await deps.repos.records.listPositionsByUpdate(query);
  let taken = 0;
  let bytes = 0;
  while (taken < places.length && (taken === 0 || bytes + (places[taken] as UpdateStep).bytes <= maxBytes)) bytes += (places[taken++] as UpdateStep).bytes;
  const kept = places.slice(0, taken);
  if (bytes > 0) memory?.take(bytes);
  const byId = new Map((kept.length > 0 ? await deps.repos.records.getPublishedByIds(kept.map((p) => p.id)) : []).map((r) => [r.id, r]));
  // A version changed between the two reads has moved on in the walk; it is met again there.
  const step = kept.filter((p) => byId.get(p.id)?.updated === p.updated);
  const last = kept[kept.length - 1];
  return {
    records: step.map((p) => byId.get(p.id) as PublishedRecord),
    bytes: step.map((p) => p.bytes),
    last: last === undefined ? undefined : { updated: last.updated, id: last.id },
    walked: kept.length,
    complete: places.length < query.limit && taken === places.length,
  };
}

const typeOf = (record: PublishedRecord): string | null => resourceTypeOf(record)?.id ?? null;

export function setsOf(record: PublishedRecord): HarvestSet[] {
  const type = typeOf(record);
  return type === null ? [{ kind: record.kind }] : [{ kind: record.kind }, { resourceType: type }];
}

const inSet = (record: PublishedRecord, set: HarvestSet | undefined): boolean =>
  set === undefined || ('kind' in set ? record.kind === set.kind : typeOf(record) === set.resourceType);

/**
 * These versions as of `now` (an embargo whose day has come counts as lifted), and the parents of
 * the public ones, read in one go: only public versions are shown, and they need their parents.
 */
async function publicAt(deps: CoreDeps, records: readonly PublishedRecord[], now: string): Promise<{ current: PublishedRecord[]; parents: Map<string, Parent> }> {
  const current = records.map((r) => liftedAt(r, now));
  const ids = [...new Set(current.filter((r) => r.access.record === 'public').map((r) => r.parentId))];
  const parents = new Map((ids.length > 0 ? await deps.repos.records.getParentsByIds(ids) : []).map((p) => [p.id, p]));
  return { current, parents };
}

/**
 * Harvest items of these versions. A managed resource names its package as anonymous readers see
 * it; the resources of one package share that lookup.
 */
async function itemsOf(deps: CoreDeps, records: PublishedRecord[], now: string): Promise<HarvestItem[]> {
  const { current, parents } = await publicAt(deps, records, now);
  const holderFor = holdersOf(deps.repos, anonymous, now);
  return Promise.all(
    current.map(async (record) => {
      const parent = record.access.record === 'public' ? parents.get(record.parentId) : undefined;
      const view = parent === undefined ? null : { ...viewOf(record, parent), holder: await holderFor(parent) };
      return { id: record.id, kind: record.kind, updated: record.updated, sets: setsOf(record), view };
    }),
  );
}

export async function harvest(deps: CoreDeps, query: HarvestQuery): Promise<HarvestPage> {
  const matching: PublishedRecord[] = [];
  const harvestBytes = deps.settings.maxHarvestBytes ?? HARVEST_BYTES;
  let pageBytes = 0;
  let after = query.after;
  let last: HarvestPosition | undefined;
  let next: HarvestPosition | null = null;
  walk: for (;;) {
    // One more than a page: a page is known to be the last when nothing matching follows it.
    const want = Math.min(query.limit + 1, SCAN_TURN);
    const step = await walkStep(deps, { from: query.from, until: query.until, after, limit: want }, harvestBytes, query.memory);
    for (const [i, record] of step.records.entries()) {
      const position = { updated: record.updated, id: record.id };
      if (!inSet(record, query.set)) continue;
      const bytes = step.bytes[i] as number;
      if (matching.length === query.limit || (matching.length > 0 && pageBytes + bytes > harvestBytes)) {
        next = last ?? null;
        break walk;
      }
      matching.push(record);
      pageBytes += bytes;
      last = position;
    }
    if (step.complete || step.last === undefined) break;
    after = step.last;
    await pause();
  }
  return { items: await itemsOf(deps, matching, deps.clock.now()), next };
}

/** One published version as a harvester sees it, or null when there is no such version. */
export async function harvestOne(deps: CoreDeps, id: string, memory?: AnswerMemory): Promise<HarvestItem | null> {
  await weighRecord(deps, 'published', id, memory);
  const record = await deps.repos.records.getPublished(id);
  return record === null ? null : ((await itemsOf(deps, [record], deps.clock.now()))[0] ?? null);
}

/** A page search engines are pointed at: a record's latest published version, public. */
export interface SitemapEntry {
  id: string;
  kind: RecordKind;
  /** The version's last change, an ISO instant. */
  updated: string;
}

export interface SitemapPage {
  entries: SitemapEntry[];
  /**
   * Versions of the walk read: `rows`, or fewer when they were cut short by their size
   * (HARVEST_BYTES) or the walk ended.
   */
  walked: number;
  /** Where the walk goes on: the last version read; null when the walk is complete. */
  next: HarvestPosition | null;
}

/**
 * The pages a sitemap lists among the next `rows` versions of the walk harvesters take (by last
 * change, then id) from `after`: a published version whose record anonymous readers may read (an
 * embargo whose day has come counts as lifted) and which is its record's latest, since an older
 * version's page points readers on to the latest. Bounded by the versions read, not the pages
 * found, so a part of a sitemap costs the same however few of them are listed.
 */
export async function sitemapPage(deps: CoreDeps, query: { after?: HarvestPosition; rows: number }): Promise<SitemapPage> {
  const now = deps.clock.now();
  const limit = Math.max(1, Math.min(query.rows, SCAN_TURN));
  const step = await walkStep(deps, { ...(query.after ? { after: query.after } : {}), limit }, deps.settings.maxHarvestBytes ?? HARVEST_BYTES);
  const { current, parents } = await publicAt(deps, step.records, now);
  const entries: SitemapEntry[] = [];
  for (const record of current) {
    if (record.access.record === 'public' && parents.get(record.parentId)?.latestPublishedId === record.id) entries.push({ id: record.id, kind: record.kind, updated: record.updated });
  }
  return { entries, walked: step.walked, next: step.complete ? null : (step.last ?? null) };
}

/** A part of a sitemap: the `rows` versions of the walk after `after` (from the start without it). */
export interface SitemapPart {
  after: HarvestPosition | undefined;
  /** The last change among its versions, an ISO instant. */
  lastmod: string;
}

/**
 * The walk cut into parts of `rows` versions each, read from the order alone (one step of the
 * index per part, not the versions): a sitemap index of a million versions in 20 steps instead of
 * a walk of every version. Empty when nothing is published.
 */
export async function sitemapParts(deps: CoreDeps, rows: number): Promise<SitemapPart[]> {
  const parts: SitemapPart[] = [];
  let after: HarvestPosition | undefined;
  for (;;) {
    const end = await deps.repos.records.positionAfter(after, rows);
    if (end === null) return parts;
    parts.push({ after, lastmod: end.position.updated });
    if (!end.full) return parts;
    after = end.position;
    await pause();
  }
}
