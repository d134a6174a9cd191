import { atLeast, requireLevel } from '../model/access.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import { draftReadStampOf } from '../model/read-stamp.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadParent, previewOf, viewOf } from './lookup.ts';
import { weighRecord } from './weigh-page.ts';
import type { AnswerMemory } from '../ports.ts';

/** Owners, package managers and `preview`/`edit` link holders read drafts. */
export async function getDraft(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, memory?: AnswerMemory): Promise<RecordView> {
  await weighRecord(deps, 'draft', id, memory);
  const draft = await loadDraft(deps.repos, kind, id);
  const parent = await loadParent(deps.repos, draft.parentId);
  const level = await levelFor(deps.repos, identity, parent, deps.clock.now());
  requireLevel(identity, level, 'preview');
  return atLeast(level, 'edit') ? viewOf(draft, parent) : previewOf(viewOf(draft, parent));
}

/**
 * The read stamp `identity` would get for draft `id` as stored now (model/read-stamp.ts): one
 * primary-key read. It matches a kept stamp only if the caller was the owner when that answer was
 * built and neither the draft nor its parent has been written since. Null without a signed-in
 * caller, or when no draft of this kind has the id.
 */
export async function draftReadStamp(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<string | null> {
  if (identity.userId === null || identity.linkIds.length > 0) return null;
  const revisions = await deps.repos.records.getDraftRevisions(id);
  return revisions === null || revisions.kind !== kind ? null : draftReadStampOf(identity.userId, revisions);
}
