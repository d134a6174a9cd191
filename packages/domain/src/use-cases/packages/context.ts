/**
 * The context: resources associated with a package's parent, shared by all its versions.
 */
import { forbidden, invalid, type FieldIssue } from '../../errors.ts';
import { atLeast, requireLevel } from '../../model/access.ts';
import { touchParent } from '../../model/record.ts';
import type { Identity, Parent } from '../../model/types.ts';
import type { Repositories } from '../../ports.ts';
import type { CoreDeps } from '../deps.ts';
import { levelFor, parentOfRecord } from '../lookup.ts';
import { projectAfterWrite } from '../project-search.ts';
import { packageParent } from './package-target.ts';

/**
 * All or nothing: each id must be a resource draft that was never published, not managed by
 * another package, and owned by the caller. Association hands the package's owners edit rights on
 * the resource, so only ownership may give it: an access link's rights are not enough (its holder
 * would keep them after the link is gone). The same id twice in one body is one item.
 */
export async function associate(deps: CoreDeps, identity: Identity, packageId: string, recordIds: string[]): Promise<void> {
  const touched = await deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const parent = await packageParent(tx, identity, packageId, 'edit', now);
    const issues: FieldIssue[] = [];
    const resourceParents = [];
    // A body may name up to hundreds of thousands of ids: repeats are found by a set, not by a scan per id.
    const seen = new Set<string>();
    for (const [i, id] of recordIds.entries()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const fail = (message: string) => issues.push({ field: `records.${i}.id`, messages: [message] });
      const draft = await tx.records.getDraft(id);
      if (!draft || draft.kind !== 'resource') {
        const published = await tx.records.getPublished(id);
        fail(published?.kind === 'resource' ? 'Only draft resources can be associated.' : `Resource ${id} does not exist.`);
        continue;
      }
      if (draft.isEditOfPublished || (await tx.records.getPublished(id))) {
        fail('Only draft resources can be associated; this resource is published.');
        continue;
      }
      const resourceParent = await tx.records.getParent(draft.parentId);
      if (!resourceParent) {
        fail(`Resource ${id} does not exist.`);
        continue;
      }
      if (resourceParent.managedBy !== null && resourceParent.managedBy !== parent.id) {
        fail('The resource is managed by another package.');
        continue;
      }
      if (identity.userId === null || resourceParent.ownerId !== identity.userId) {
        fail('Only the owner of a resource can associate it with a package.');
        continue;
      }
      resourceParents.push(resourceParent);
    }
    if (issues.length > 0) throw invalid('context.associate', 'A validation error occurred.', issues);
    for (const rp of resourceParents) {
      if (rp.managedBy !== parent.id) await tx.records.saveParent(touchParent(rp, now, { managedBy: parent.id }), rp.revisionId);
    }
    const context = [...new Set([...parent.context, ...recordIds])];
    await tx.records.saveParent(touchParent(parent, now, { context }), parent.revisionId);
    return [parent.id, ...resourceParents.map((rp) => rp.id)];
  });
  await projectAfterWrite(deps, touched);
}

/**
 * Whether the caller may take these resources out of the package: its editors may take any, and a
 * resource's own owner may always take theirs back, whoever manages the package.
 */
async function requireDissociation(tx: Repositories, identity: Identity, parent: Parent, recordIds: string[], now: string): Promise<void> {
  const level = await levelFor(tx, identity, parent, now);
  if (atLeast(level, 'edit')) return;
  if (identity.userId !== null && recordIds.length > 0) {
    let ownsAll = true;
    for (const id of recordIds) {
      const record = (await tx.records.getDraft(id)) ?? (await tx.records.getPublished(id));
      const rp = record?.kind === 'resource' ? await tx.records.getParent(record.parentId) : null;
      if (rp?.ownerId !== identity.userId) ownsAll = false;
    }
    if (ownsAll) return;
    throw forbidden();
  }
  requireLevel(identity, level, 'edit');
}

/** The parent id of a record id, draft or published; null for an id that names nothing now. */
async function parentIdOf(tx: Repositories, id: string): Promise<string | null> {
  return ((await tx.records.getDraft(id)) ?? (await tx.records.getPublished(id)))?.parentId ?? null;
}

/**
 * Removes resources from the context and from the package's drafts; ids not in the context are
 * ignored. The package manages a resource, not one version of it: naming any version takes every
 * version the context holds out with it, so none is left in a package that no longer manages it.
 */
export async function dissociate(deps: CoreDeps, identity: Identity, packageId: string, recordIds: string[]): Promise<void> {
  const touched = await deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const parent = await parentOfRecord(tx, 'package', packageId);
    await requireDissociation(tx, identity, parent, recordIds, now);
    const inContext = new Set(parent.context);
    const named = recordIds.filter((id) => inContext.has(id));
    const leavingParents = new Set<string>();
    for (const id of named) {
      const parentId = await parentIdOf(tx, id);
      if (parentId !== null) leavingParents.add(parentId);
    }
    const leaving = new Set(named);
    for (const id of leavingParents.size > 0 ? parent.context : []) {
      if (leaving.has(id)) continue;
      const parentId = await parentIdOf(tx, id);
      if (parentId !== null && leavingParents.has(parentId)) leaving.add(id);
    }
    const touchedIds = [parent.id];
    for (const parentId of leavingParents) {
      const rp = await tx.records.getParent(parentId);
      if (rp && rp.managedBy === parent.id) {
        await tx.records.saveParent(touchParent(rp, now, { managedBy: null }), rp.revisionId);
        touchedIds.push(rp.id);
      }
    }
    for (const draft of await tx.records.listDrafts(parent.id)) {
      const resources = draft.resources.filter((r) => !leaving.has(r));
      if (resources.length !== draft.resources.length) {
        await tx.records.saveDraft({ ...draft, resources, updated: now, revisionId: draft.revisionId + 1 }, draft.revisionId);
      }
    }
    await tx.records.saveParent(touchParent(parent, now, { context: parent.context.filter((r) => !leaving.has(r)) }), parent.revisionId);
    return touchedIds;
  });
  await projectAfterWrite(deps, touched);
}
