import { requireSignedIn } from '../model/access.ts';
import { defaultAccess, defaultFiles, mergeAccess, mergeFiles, newDraft, newParent, type DraftInput } from '../model/record.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { viewOf } from './lookup.ts';
import { checkDraftInput, normalizeDraftMetadata } from './normalize-draft-metadata.ts';
import { projectCreated } from './project-search.ts';

/** Creates a first draft and its parent; the caller becomes the owner. Metadata problems are kept as draft issues. */
export async function createDraft(deps: CoreDeps, identity: Identity, kind: RecordKind, input: DraftInput): Promise<RecordView> {
  const ownerId = requireSignedIn(identity);
  checkDraftInput(deps, input);
  const { metadata, issues } = await normalizeDraftMetadata(deps, kind, input.metadata);
  const now = deps.clock.now();
  const parent = { ...newParent(deps.ids.recordId(), kind, ownerId, now) };
  const draft = newDraft({
    id: deps.ids.recordId(),
    kind,
    parentId: parent.id,
    bucketId: deps.ids.uuid(),
    versionIndex: 1,
    now,
    access: mergeAccess(defaultAccess(), input.access),
    files: mergeFiles(defaultFiles(kind), input.files),
    metadata,
    pids: kind === 'package' ? {} : (input.pids ?? {}),
    customFields: kind === 'package' ? (input.customFields ?? {}) : {},
    resources: [],
    issues,
  });
  parent.nextDraftId = draft.id;
  await deps.uow.run(async (tx) => {
    await tx.records.saveParent(parent, null);
    await tx.records.saveDraft(draft, null);
  });
  await projectCreated(deps, parent, draft);
  return viewOf(draft, parent);
}
