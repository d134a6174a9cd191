import { DomainError, mergeIssues } from '../errors.ts';
import { requireLevel } from '../model/access.ts';
import { assertFilesUnlocked, filesOptionsAfterSave } from '../model/files.ts';
import { mergeAccess, mergeFiles, revisionMatches, type ExpectedRevision, touchParent, type DraftInput } from '../model/record.ts';
import type { DraftRecord, Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadDraftWithoutMetadata, loadParent, viewOf } from './lookup.ts';
import { checkDraftInput, normalizeDraftMetadata } from './normalize-draft-metadata.ts';
import { projectAfterWrite } from './project-search.ts';

export const preconditionFailed = () =>
  new DomainError('precondition_failed', 'revision.mismatch', 'The record has changed since it was read (If-Match does not match its revision).');

/**
 * Members present in the body replace the stored ones; absent members are kept. Metadata
 * problems never fail the save: they are stored as the draft's issues.
 */
export async function updateDraft(
  deps: CoreDeps,
  identity: Identity,
  kind: RecordKind,
  id: string,
  input: DraftInput,
  expectedRevision?: ExpectedRevision,
): Promise<RecordView> {
  checkDraftInput(deps, input);
  const normalized = input.metadata === undefined ? null : await normalizeDraftMetadata(deps, kind, input.metadata);
  const result = await deps.uow.run(async (tx) => {
    // Metadata sent replaces the stored metadata, which is then not read: the largest legal
    // draft's would be megabytes parsed, and objects held through the write, for nothing.
    const draft: DraftRecord = normalized === null ? await loadDraft(tx, kind, id) : { ...(await loadDraftWithoutMetadata(tx, kind, id)), ...normalized };
    const parent = await loadParent(tx, draft.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    if (!revisionMatches(draft.revisionId, expectedRevision)) throw preconditionFailed();
    const requested = mergeFiles(draft.files, input.files);
    if (requested.enabled !== draft.files.enabled) assertFilesUnlocked(draft);
    const { files, issues: fileIssues } = filesOptionsAfterSave(draft.files, requested, await tx.files.count({ recordId: id, state: 'draft' }));
    const updated: DraftRecord = {
      ...draft,
      access: mergeAccess(draft.access, input.access),
      files,
      pids: kind === 'resource' && input.pids !== undefined ? input.pids : draft.pids,
      customFields: kind === 'package' && input.customFields !== undefined ? input.customFields : draft.customFields,
      updated: now,
      revisionId: draft.revisionId + 1,
    };
    await tx.records.saveDraft(updated, draft.revisionId);
    const touched = touchParent(parent, now);
    await tx.records.saveParent(touched, parent.revisionId);
    return { updated, parent: touched, fileIssues };
  });
  await projectAfterWrite(deps, [result.parent.id], [result.updated]);
  const view = viewOf(result.updated, result.parent);
  // Reported with this save only: files stayed enabled, so the stored draft has nothing to fix.
  return result.fileIssues.length > 0 ? { ...view, issues: mergeIssues([...view.issues, ...result.fileIssues]) } : view;
}
