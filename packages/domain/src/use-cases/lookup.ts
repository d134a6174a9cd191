/** Loading helpers shared by the use cases: not-found and kind checks in one place. */
import { mergeIssues, notFound } from '../errors.ts';
import { embargoIssues } from '../model/embargo.ts';
import { levelOn, type AccessLevel } from '../model/access.ts';
import { withoutEmails } from '../model/metadata/privacy.ts';
import { versionsInfo } from '../model/record.ts';
import type { RecordView } from '../model/views.ts';
import type { AnyRecord, DraftRecord, Identity, Parent, PublishedRecord, RecordKind } from '../model/types.ts';
import type { Repositories } from '../ports.ts';

export async function loadDraft(repos: Repositories, kind: RecordKind, id: string): Promise<DraftRecord> {
  const draft = await repos.records.getDraft(id);
  if (!draft || draft.kind !== kind) throw notFound('draft.not_found');
  return draft;
}

/** The stored draft without its metadata (RecordRepository.getDraftWithoutMetadata), checked as `loadDraft` checks it. */
export async function loadDraftWithoutMetadata(repos: Repositories, kind: RecordKind, id: string): Promise<Omit<DraftRecord, 'metadata'>> {
  const draft = await repos.records.getDraftWithoutMetadata(id);
  if (!draft || draft.kind !== kind) throw notFound('draft.not_found');
  return draft;
}

export async function loadPublished(repos: Repositories, kind: RecordKind, id: string): Promise<PublishedRecord> {
  const record = await repos.records.getPublished(id);
  if (!record || record.kind !== kind) throw notFound('record.not_found');
  return record;
}

export async function loadParent(repos: Repositories, id: string): Promise<Parent> {
  const parent = await repos.records.getParent(id);
  if (!parent) throw notFound('parent.not_found');
  return parent;
}

/** The parent of a record id, whether the id names a draft, a published version, or both. */
export async function parentOfRecord(repos: Repositories, kind: RecordKind, id: string): Promise<Parent> {
  const record = (await repos.records.getPublished(id)) ?? (await repos.records.getDraft(id));
  if (!record || record.kind !== kind) throw notFound('record.not_found');
  return loadParent(repos, record.parentId);
}

/** The parent of the package whose context holds this resource, if any. */
async function managerOf(repos: Repositories, parent: Parent): Promise<Parent | null> {
  return parent.managedBy === null ? null : await repos.records.getParent(parent.managedBy);
}

/** Owner of the package whose context holds this resource; that owner may edit it. */
export async function managerOwnerOf(repos: Repositories, parent: Parent): Promise<string | null> {
  return (await managerOf(repos, parent))?.ownerId ?? null;
}

export async function levelFor(repos: Repositories, identity: Identity, parent: Parent, now: string): Promise<AccessLevel | null> {
  return levelOn(identity, parent, now, await managerOf(repos, parent));
}

/** Published versions are shown to anyone who may read them: without people's e-mail addresses. A draft's view lists what stops it from publishing: its stored metadata issues and its embargo's. */
export function viewOf(record: AnyRecord, parent: Parent): RecordView {
  const shown = record.state === 'published' ? { ...record, metadata: withoutEmails(record.metadata) } : record;
  const issues = record.state === 'draft' ? mergeIssues([...record.issues, ...embargoIssues(record.access)]) : [];
  return { record: shown, parent, versions: versionsInfo(record, parent), issues, emailsShown: record.state === 'draft' };
}

/** A draft as a reader below `edit` (a preview link holder) sees it. */
export function previewOf(view: RecordView): RecordView {
  return { ...view, record: { ...view.record, metadata: withoutEmails(view.record.metadata) }, emailsShown: false };
}
