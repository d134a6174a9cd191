import { DomainError } from '../errors.ts';
import { requireLevel } from '../model/access.ts';
import { touchParent } from '../model/record.ts';
import type { DraftRecord, Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadParent, viewOf } from './lookup.ts';
import { projectAfterWrite } from './project-search.ts';

/**
 * `POST /{id}/draft/pids/doi` (the `reserve_doi` link): puts `pids.doi` on the draft as
 * `<doiPrefix>/<record id>`, kept by publish. The service registers nothing with a DOI agency:
 * without a configured prefix it reserves nothing and says so (400), rather than answer a DOI
 * nobody will resolve. Reserving again answers the DOI already reserved.
 */
export async function reserveDoi(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<RecordView> {
  const prefix = deps.settings.doiPrefix;
  const result = await deps.uow.run(async (tx) => {
    const draft = await loadDraft(tx, kind, id);
    const parent = await loadParent(tx, draft.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    if (draft.pids['doi'] !== undefined) return { record: draft, parent };
    if (!prefix) throw new DomainError('invalid', 'pids.doi_not_configured', 'This service reserves no DOIs: no DOI prefix is configured.');
    const updated: DraftRecord = {
      ...draft,
      pids: { ...draft.pids, doi: { identifier: `${prefix}/${draft.id}`, provider: 'krs' } },
      updated: now,
      revisionId: draft.revisionId + 1,
    };
    await tx.records.saveDraft(updated, draft.revisionId);
    const touched = touchParent(parent, now);
    await tx.records.saveParent(touched, parent.revisionId);
    return { record: updated, parent: touched };
  });
  await projectAfterWrite(deps, [result.parent.id]);
  return viewOf(result.record, result.parent);
}
