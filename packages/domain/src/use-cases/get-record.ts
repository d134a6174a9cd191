import { atLeast, requireLevel, type AccessLevel } from '../model/access.ts';
import { liftedAt } from '../model/embargo.ts';
import type { Identity, PublishedRecord, RecordKind } from '../model/types.ts';
import { readStampOf } from '../model/read-stamp.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadParent, loadPublished, viewOf } from './lookup.ts';
import { holderOf } from './packages/holder.ts';
import { weighRecord } from './weigh-page.ts';
import type { AnswerMemory } from '../ports.ts';

export const canRead = (record: Pick<PublishedRecord, 'access'>, level: AccessLevel | null): boolean =>
  record.access.record === 'public' || atLeast(level, 'view');

/**
 * Public records are open to anyone; restricted ones to owners and link holders. A lapsed embargo
 * reads as lifted. A resource names the package holding it as far as the reader may see it.
 */
export async function getRecord(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, memory?: AnswerMemory): Promise<RecordView> {
  await weighRecord(deps, 'published', id, memory);
  const now = deps.clock.now();
  const record = liftedAt(await loadPublished(deps.repos, kind, id), now);
  const parent = await loadParent(deps.repos, record.parentId);
  if (record.access.record !== 'public') requireLevel(identity, await levelFor(deps.repos, identity, parent, now), 'view');
  return { ...viewOf(record, parent), holder: await holderOf(deps.repos, identity, parent, now) };
}

/**
 * The read stamp of published version `id` as stored now (see model/read-stamp.ts): one
 * primary-key read. Null when no published version of this kind has the id.
 */
export async function publishedReadStamp(deps: CoreDeps, kind: RecordKind, id: string): Promise<string | null> {
  const revisions = await deps.repos.records.getPublishedRevisions(id);
  return revisions === null || revisions.kind !== kind ? null : readStampOf(revisions);
}
