import { requireLevel } from '../model/access.ts';
import { editDraftOf, touchParent } from '../model/record.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadParent, loadPublished, viewOf } from './lookup.ts';
import { projectAfterWrite } from './project-search.ts';

/** Opens (or returns the open) draft of a published record, with its files copied and locked. */
export async function editPublished(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<RecordView> {
  const result = await deps.uow.run(async (tx) => {
    const record = await loadPublished(tx, kind, id);
    const parent = await loadParent(tx, record.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    const existing = await tx.records.getDraft(id);
    if (existing) return { draft: existing, parent, created: false };
    const draft = editDraftOf(record, now);
    await tx.records.saveDraft(draft, null);
    for (const entry of await tx.files.list({ recordId: id, state: 'published' })) {
      // A pending entry published before publishing refused them is left behind, not locked in.
      if (entry.status === 'completed') await tx.files.save({ recordId: id, state: 'draft' }, entry);
    }
    const touched = touchParent(parent, now);
    await tx.records.saveParent(touched, parent.revisionId);
    return { draft, parent: touched, created: true };
  });
  if (result.created) await projectAfterWrite(deps, [result.parent.id]);
  return viewOf(result.draft, result.parent);
}
