/**
 * Read stamps: a published version's answer to anonymous readers may be kept and reused for as
 * long as its stamp has not changed. That answer is made of the version and its parent alone
 * (metadata, access, files options; owner, links, which version is the latest), and for a
 * resource a package manages, of that package's parent too ("part of" names the package's latest
 * version, and every write to a version of it bumps its parent). Every write to any of these rows
 * bumps its revision, on this node or on any other sharing the database: the revisions, read
 * afresh on each request, say whether a kept answer still holds.
 */
import type { PublishedRevisions } from '../ports.ts';
import type { AnyRecord, Identity, Parent } from './types.ts';
import type { PackageHolder } from './views.ts';

export const readStampOf = (revisions: Pick<PublishedRevisions, 'revisionId' | 'parentRevisionId' | 'managerRevisionId'>): string =>
  revisions.managerRevisionId === null
    ? `${revisions.revisionId}.${revisions.parentRevisionId}`
    : `${revisions.revisionId}.${revisions.parentRevisionId}.${revisions.managerRevisionId}`;

/** What a stamp needs to know of the package holding a resource: its parent's revision, looked up (undefined: not). */
type Held = { holder?: Pick<PackageHolder, 'revisionId' | 'lapses'> | null };

/**
 * The stamp of a published version as it was read (a record view, or what a file read loaded),
 * or null when its answers may change without a write: a restricted version reads differently
 * to each caller, and an embargo reads as lifted from its day on, decided at read time (a view
 * of a lapsed embargo already reads lifted, and stays so until the lift is written down, which
 * bumps the revision); so does the embargo of a version of the package holding a resource. A
 * managed resource read without its holder looked up has no stamp. A published version's file
 * entries and their bytes change only with it.
 */
export function anonymousReadStamp(view: { record: AnyRecord; parent: Parent } & Held): string | null {
  const { record, parent, holder } = view;
  if (record.state !== 'published' || record.access.record !== 'public' || record.access.embargo.active) return null;
  if (parent.managedBy !== null && (holder === undefined || holder?.lapses === true)) return null;
  return readStampOf({ revisionId: record.revisionId, parentRevisionId: parent.revisionId, managerRevisionId: holder?.revisionId ?? null });
}

/**
 * A draft's answer to its owner is made of the draft and its parent alone, as a published
 * version's is: the owner reads every draft in full whatever else the parent says, and a draft's
 * view depends on no clock. Once the parent's revision is unchanged, its owner is too, so the
 * pair of revisions and the caller say whether an answer kept for that caller still holds. A
 * caller who reads by any other right (a package manager, a link) depends on more than these
 * rows, and presented link tokens may expire: their answers are not kept.
 */
export const draftReadStampOf = (userId: string, revisions: Pick<PublishedRevisions, 'revisionId' | 'parentRevisionId'>): string =>
  `${userId}:${revisions.revisionId}.${revisions.parentRevisionId}`;

/** The stamp of a draft as `identity` read it, or null when that answer must not be kept (see above). */
export function ownerDraftReadStamp(identity: Identity, view: { record: AnyRecord; parent: Parent }): string | null {
  const { record, parent } = view;
  if (record.state !== 'draft' || identity.userId === null || identity.linkIds.length > 0 || identity.userId !== parent.ownerId) return null;
  return draftReadStampOf(identity.userId, { revisionId: record.revisionId, parentRevisionId: parent.revisionId });
}

/**
 * The entity tag of a version's answer. A published version's answer is made of the version and
 * its parent (see above): its tag is the pair of revisions, so it changes when the version's own
 * row does and when the parent's does, as when a newer version is published and this one stops
 * being the latest, or an access link or owner changes; a managed resource's also when its
 * package's parent does, and it tells apart readers shown the package from readers who are not.
 * A draft's tag is its own revision, which is what `If-Match` names for the writes that take it
 * (`revisionMatches`).
 */
export function representationTag(view: { record: AnyRecord; parent: Parent; holder?: PackageHolder | null }): string {
  const { record, parent, holder } = view;
  if (record.state !== 'published') return String(record.revisionId);
  const stamp = readStampOf({ revisionId: record.revisionId, parentRevisionId: parent.revisionId, managerRevisionId: holder?.revisionId ?? null });
  // Readers who may and may not see the package get different bodies: different tags.
  return holder?.shown === null ? `${stamp}-` : stamp;
}
