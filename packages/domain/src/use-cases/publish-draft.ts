import { invalid, mergeIssues, type FieldIssue } from '../errors.ts';
import { requireLevel } from '../model/access.ts';
import { embargoIssues, liftedAt } from '../model/embargo.ts';
import { fileIssues } from '../model/files.ts';
import { publishIssues } from '../model/metadata/index.ts';
import { parentAfterPublish, publishedFrom, revisionMatches, type ExpectedRevision } from '../model/record.ts';
import type { DraftRecord, FileEntry, Identity, Parent, Pids, PublishedRecord, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { Repositories } from '../ports.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadParent, viewOf } from './lookup.ts';
import { projectAfterWrite } from './project-search.ts';
import { preconditionFailed } from './update-draft.ts';

/** Everything that stops a draft with these file entries from publishing, all at once. */
function problemsWith(draft: DraftRecord, files: FileEntry[]): FieldIssue[] {
  return mergeIssues([...draft.issues, ...publishIssues(draft.metadata, draft.kind), ...embargoIssues(draft.access), ...fileIssues(draft.files.enabled, files)]);
}

/** Problems of the draft resources attached to a package draft, named `resources.<id>.<field>`. */
async function attachedResourceProblems(tx: Repositories, draft: DraftRecord): Promise<{ issues: FieldIssue[]; drafts: { draft: DraftRecord; files: FileEntry[] }[] }> {
  const issues: FieldIssue[] = [];
  const drafts: { draft: DraftRecord; files: FileEntry[] }[] = [];
  for (const resourceId of draft.resources) {
    const resourceDraft = await tx.records.getDraft(resourceId);
    // A published resource without an open draft is attached as it is and never changed.
    if (!resourceDraft || resourceDraft.isEditOfPublished) continue;
    const files = await tx.files.list({ recordId: resourceDraft.id, state: 'draft' });
    drafts.push({ draft: resourceDraft, files });
    for (const issue of problemsWith(resourceDraft, files)) {
      issues.push({ field: `resources.${resourceId}.${issue.field}`, messages: issue.messages });
    }
  }
  return { issues, drafts };
}

/**
 * Turns one draft into its published version inside `tx`: files move with it, the parent advances.
 * `files` are the draft's entries and `parent` its parent, as read in this transaction.
 */
async function publishVersion(tx: Repositories, deps: CoreDeps, draft: DraftRecord, files: FileEntry[], parent: Parent, now: string): Promise<{ record: PublishedRecord; parent: Parent }> {
  const previous = await tx.records.getPublished(draft.id);
  const pids: Pids = { ...draft.pids, oai: { provider: 'oai', identifier: `oai:${deps.settings.oaiHost}:${draft.id}` } };
  // An embargo whose day has come is published lifted.
  const record = liftedAt(publishedFrom(draft, previous, now, pids), now);
  await tx.records.savePublished(record, previous?.revisionId ?? null);
  const publishedFiles = { recordId: draft.id, state: 'published' } as const;
  const draftFiles = { recordId: draft.id, state: 'draft' } as const;
  await tx.files.deleteAll(publishedFiles);
  for (const entry of files) await tx.files.save(publishedFiles, entry);
  if (files.length > 0) await tx.files.deleteAll(draftFiles);
  await tx.records.deleteDraft(draft.id);
  const published = parentAfterPublish(parent, record, now);
  await tx.records.saveParent(published, parent.revisionId);
  return { record, parent: published };
}

/**
 * Publishes a draft; a package publishes with it every attached draft resource, in the same
 * transaction. Any problem anywhere is one 400 listing them all, and nothing is published.
 */
export async function publishDraft(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, expectedRevision?: ExpectedRevision): Promise<RecordView> {
  const { record, parent, parents } = await deps.uow.run(async (tx) => {
    const draft = await loadDraft(tx, kind, id);
    const parent = await loadParent(tx, draft.parentId);
    const now = deps.clock.now();
    requireLevel(identity, await levelFor(tx, identity, parent, now), 'edit');
    if (!revisionMatches(draft.revisionId, expectedRevision)) throw preconditionFailed();
    const files = await tx.files.list({ recordId: draft.id, state: 'draft' });
    const own = problemsWith(draft, files);
    const attached = kind === 'package' ? await attachedResourceProblems(tx, draft) : { issues: [], drafts: [] };
    const issues = [...own, ...attached.issues];
    if (issues.length > 0) throw invalid('publish.invalid', 'A validation error occurred.', issues);
    const parents = [parent.id];
    for (const resource of attached.drafts) {
      await publishVersion(tx, deps, resource.draft, resource.files, await loadParent(tx, resource.draft.parentId), now);
      parents.push(resource.draft.parentId);
    }
    // Read again only if publishing a resource above advanced it too.
    const current = attached.drafts.some((r) => r.draft.parentId === parent.id) ? await loadParent(tx, parent.id) : parent;
    return { ...(await publishVersion(tx, deps, draft, files, current, now)), parents };
  });
  await projectAfterWrite(deps, parents);
  // What this unit committed, as a create answers what it wrote.
  return viewOf(record, parent);
}
