import { notFound } from '../errors.ts';
import { liftedAt } from '../model/embargo.ts';
import type { Identity, RecordKind, VersionHead } from '../model/types.ts';
import type { AnswerMemory, SortOption } from '../ports.ts';
import type { RecordView, SearchPage } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { canRead, getRecord } from './get-record.ts';
import { levelFor, parentOfRecord, viewOf } from './lookup.ts';
import { withHolders } from './packages/holder.ts';
import { weighPage } from './weigh-page.ts';

export interface PageRequest {
  page: number;
  size: number;
  /** What the answer may hold (AnswerMemory), the host's bound. */
  memory?: AnswerMemory;
}

/** `bestmatch` never reaches here: without a query `resolveSort` turns it into `version`. */
const ORDER: Record<Exclude<SortOption, 'bestmatch'>, (a: VersionHead, b: VersionHead) => number> = {
  version: (a, b) => b.versionIndex - a.versionIndex,
  newest: (a, b) => b.created.localeCompare(a.created) || b.versionIndex - a.versionIndex,
  oldest: (a, b) => a.created.localeCompare(b.created) || a.versionIndex - b.versionIndex,
  'updated-desc': (a, b) => b.updated.localeCompare(a.updated) || b.versionIndex - a.versionIndex,
  'updated-asc': (a, b) => a.updated.localeCompare(b.updated) || a.versionIndex - b.versionIndex,
};

/**
 * Published versions the caller may read, in the `sort` order (newest version first by default). Refused (401, 403, 404) exactly where
 * reading the record `id` itself is, so the list never tells more than the record would.
 */
export async function listVersions(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, paging: PageRequest, sort: SortOption = 'version'): Promise<SearchPage> {
  await getRecord(deps, identity, kind, id);
  const parent = await parentOfRecord(deps.repos, kind, id);
  const now = deps.clock.now();
  const level = await levelFor(deps.repos, identity, parent, now);
  // Which versions, and in what order, from their heads; only the page's versions are read.
  const readable = (await deps.repos.records.listVersionHeads(parent.id)).map((h) => liftedAt(h, now)).filter((h) => canRead(h, level));
  readable.sort(ORDER[sort === 'bestmatch' ? 'version' : sort]);
  const ids = readable.slice((paging.page - 1) * paging.size, paging.page * paging.size).map((h) => h.id);
  await weighPage(deps, [], ids, paging.memory);
  const byId = new Map((ids.length > 0 ? await deps.repos.records.getPublishedByIds(ids) : []).map((r) => [r.id, r]));
  const hits: RecordView[] = [];
  for (const versionId of ids) {
    const record = byId.get(versionId);
    // Read again in full: a version whose access changed since its head was read is judged as it is now.
    const shown = record === undefined ? undefined : liftedAt(record, now);
    if (shown !== undefined && canRead(shown, level)) hits.push(viewOf(shown, parent));
  }
  return { total: readable.length, hits: await withHolders(deps.repos, identity, hits, now), aggregations: {}, sortBy: sort, page: paging.page, size: paging.size };
}

/** The latest published version of the record's parent. */
export async function latestVersion(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, memory?: AnswerMemory): Promise<RecordView> {
  const parent = await parentOfRecord(deps.repos, kind, id);
  if (parent.latestPublishedId === null) throw notFound('record.not_published', 'The record has no published version.');
  return getRecord(deps, identity, kind, parent.latestPublishedId, memory);
}
