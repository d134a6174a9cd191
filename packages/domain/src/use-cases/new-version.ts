import { requireLevel } from '../model/access.ts';
import { metadataForNewVersion } from '../model/metadata/index.ts';
import { newDraft, touchParent } from '../model/record.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadParent, loadPublished, viewOf } from './lookup.ts';
import { projectAfterWrite } from './project-search.ts';

/**
 * Starts the next version from the latest published one: metadata without publication date and
 * version, same access, no pids, no files (files-import copies them), no package resources
 * (resources-import copies them). Returns the open next-version draft if there is one.
 */
export async function newVersion(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<RecordView> {
  const result = await deps.uow.run(async (tx) => {
    const record = await loadPublished(tx, kind, id);
    const parent = await loadParent(tx, record.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    if (parent.nextDraftId !== null) {
      const open = await tx.records.getDraft(parent.nextDraftId);
      if (open) return { draft: open, parent, created: false };
    }
    const latest = parent.latestPublishedId === null ? record : ((await tx.records.getPublished(parent.latestPublishedId)) ?? record);
    const draft = newDraft({
      id: deps.ids.recordId(),
      kind,
      parentId: parent.id,
      bucketId: deps.ids.uuid(),
      versionIndex: parent.latestPublishedIndex + 1,
      now,
      access: latest.access,
      files: { ...latest.files, defaultPreview: null, order: [] },
      metadata: metadataForNewVersion(latest.metadata),
      pids: {},
      customFields: latest.customFields,
      resources: [],
      issues: [],
    });
    await tx.records.saveDraft(draft, null);
    const touched = touchParent(parent, now, { nextDraftId: draft.id });
    await tx.records.saveParent(touched, parent.revisionId);
    return { draft, parent: touched, created: true };
  });
  if (result.created) await projectAfterWrite(deps, [result.parent.id]);
  return viewOf(result.draft, result.parent);
}
