import { requireLevel } from '../model/access.ts';
import { revisionMatches, type ExpectedRevision, touchParent } from '../model/record.ts';
import type { Identity, Parent, RecordKind } from '../model/types.ts';
import type { Repositories } from '../ports.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadParent } from './lookup.ts';
import { preconditionFailed } from './update-draft.ts';
import { projectAfterWrite } from './project-search.ts';

/**
 * Discards a draft and its file entries. The published record an edit draft came from stays.
 * A discarded resource draft also leaves every package draft that held it.
 */
export async function deleteDraft(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, expectedRevision?: ExpectedRevision): Promise<void> {
  const touched = await deps.uow.run(async (tx) => {
    const draft = await loadDraft(tx, kind, id);
    const parent = await loadParent(tx, draft.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    if (!revisionMatches(draft.revisionId, expectedRevision)) throw preconditionFailed();
    await tx.files.deleteAll({ recordId: id, state: 'draft' });
    await tx.records.deleteDraft(id);
    // A package that was never published gives its context back: nothing else could ever release it.
    const releasing = kind === 'package' && !draft.isEditOfPublished && parent.latestPublishedId === null;
    await tx.records.saveParent(
      touchParent(parent, now, { nextDraftId: parent.nextDraftId === id ? null : parent.nextDraftId, ...(releasing ? { context: [] } : {}) }),
      parent.revisionId,
    );
    const parents = [parent.id];
    if (releasing) parents.push(...(await releaseContext(tx, parent, now)));
    if (kind === 'resource' && !draft.isEditOfPublished) parents.push(...(await detachFromPackageDrafts(tx, parent.managedBy, id, now)));
    return parents;
  });
  await projectAfterWrite(deps, touched);
}

/** Resource parents managed by this package are managed by nobody again; their owners alone hold them. */
async function releaseContext(tx: Repositories, packageParent: Parent, now: string): Promise<string[]> {
  const released: string[] = [];
  for (const resourceId of packageParent.context) {
    const record = (await tx.records.getDraft(resourceId)) ?? (await tx.records.getPublished(resourceId));
    const rp = record ? await tx.records.getParent(record.parentId) : null;
    if (rp && rp.managedBy === packageParent.id && !released.includes(rp.id)) {
      await tx.records.saveParent(touchParent(rp, now, { managedBy: null }), rp.revisionId);
      released.push(rp.id);
    }
  }
  return released;
}

/** Removes a vanished resource draft from the drafts and the context of the package managing it. */
async function detachFromPackageDrafts(tx: Repositories, packageParentId: string | null, resourceId: string, now: string): Promise<string[]> {
  if (packageParentId === null) return [];
  const packageParent = await tx.records.getParent(packageParentId);
  if (!packageParent) return [];
  for (const draft of await tx.records.listDrafts(packageParentId)) {
    if (!draft.resources.includes(resourceId)) continue;
    await tx.records.saveDraft(
      { ...draft, resources: draft.resources.filter((r) => r !== resourceId), updated: now, revisionId: draft.revisionId + 1 },
      draft.revisionId,
    );
  }
  const stillPublished = await tx.records.getPublished(resourceId);
  const context = stillPublished ? packageParent.context : packageParent.context.filter((r) => r !== resourceId);
  await tx.records.saveParent(touchParent(packageParent, now, { context }), packageParent.revisionId);
  return [packageParentId];
}
