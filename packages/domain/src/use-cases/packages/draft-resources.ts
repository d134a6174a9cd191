/**
 * Resources attached to one package draft (`relationship.resources`). Each item succeeds or is
 * reported in `errors`; the others are applied.
 */
import { notFound } from '../../errors.ts';
import { liftedAt } from '../../model/embargo.ts';
import { touchParent } from '../../model/record.ts';
import type { DraftRecord, Identity, Parent } from '../../model/types.ts';
import type { Repositories } from '../../ports.ts';
import type { CoreDeps } from '../deps.ts';
import { canRead } from '../get-record.ts';
import { levelFor, loadParent } from '../lookup.ts';
import { projectAfterWrite } from '../project-search.ts';
import { packageParent } from './package-target.ts';

export interface ItemError {
  record: string;
  message: string;
}

/** The package's parent, and its context as a set: a body may name hundreds of thousands of ids. */
interface Target {
  parent: Parent;
  context: ReadonlySet<string>;
}

async function packageDraft(tx: Repositories, id: string): Promise<DraftRecord> {
  const draft = await tx.records.getDraft(id);
  if (!draft || draft.kind !== 'package') throw notFound('draft.not_found', 'The package has no draft.');
  return draft;
}

/**
 * Whether a draft resource is in the package's context: associated itself, or a new version of a
 * resource the package manages (the context holds the resource, whichever version is being written).
 */
async function inContext(tx: Repositories, target: Target, draft: DraftRecord): Promise<boolean> {
  if (target.context.has(draft.id)) return true;
  return (await tx.records.getParent(draft.parentId))?.managedBy === target.parent.id;
}

/** A published resource is attached as it is, by anyone who may read it: a package shows its resources to its readers. */
async function attachProblem(tx: Repositories, identity: Identity, target: Target, id: string, now: string): Promise<string | null> {
  const draft = await tx.records.getDraft(id);
  const published = await tx.records.getPublished(id);
  if (published?.kind === 'resource') {
    const readable = canRead(liftedAt(published, now), await levelFor(tx, identity, await loadParent(tx, published.parentId), now));
    return readable ? null : `You may not read resource ${id}.`;
  }
  if (draft?.kind === 'resource') return (await inContext(tx, target, draft)) ? null : 'The draft resource is not in the package context; associate it first.';
  return `Resource ${id} does not exist.`;
}

/** `apply` changes the attached set and says whether it did; a body may name hundreds of thousands of ids, so nothing here scans a list per id. */
async function changeResources(
  deps: CoreDeps,
  identity: Identity,
  packageId: string,
  ids: string[],
  change: (tx: Repositories, attached: ReadonlySet<string>, target: Target, id: string) => Promise<string | null>,
  apply: (attached: Set<string>, id: string) => boolean,
): Promise<ItemError[]> {
  const { errors, parentId } = await deps.uow.run(async (tx) => {
    const draft = await packageDraft(tx, packageId);
    const now = deps.clock.now();
    await packageParent(tx, identity, packageId, 'edit', now);
    const parent = await loadParent(tx, draft.parentId);
    const errors: ItemError[] = [];
    // A set keeps the order ids were attached in.
    const attached = new Set(draft.resources);
    const target: Target = { parent, context: new Set(parent.context) };
    let changed = false;
    for (const id of ids) {
      const problem = await change(tx, attached, target, id);
      if (problem) errors.push({ record: id, message: problem });
      else if (apply(attached, id)) changed = true;
    }
    if (changed) {
      await tx.records.saveDraft({ ...draft, resources: [...attached], updated: now, revisionId: draft.revisionId + 1 }, draft.revisionId);
      // A new version of a managed resource joins the context with its first attachment, so the
      // context lists it and dissociating it detaches it.
      const joining: string[] = [];
      for (const id of new Set(ids)) {
        if (attached.has(id) && !target.context.has(id) && (await tx.records.getPublished(id)) === null) joining.push(id);
      }
      await tx.records.saveParent(touchParent(parent, now, joining.length > 0 ? { context: [...parent.context, ...joining] } : {}), parent.revisionId);
    }
    return { errors, parentId: parent.id };
  });
  await projectAfterWrite(deps, [parentId]);
  return errors;
}

export function addDraftResources(deps: CoreDeps, identity: Identity, packageId: string, ids: string[]): Promise<ItemError[]> {
  return changeResources(
    deps,
    identity,
    packageId,
    ids,
    (tx, _attached, target, id) => attachProblem(tx, identity, target, id, deps.clock.now()),
    (attached, id) => {
      if (attached.has(id)) return false;
      attached.add(id);
      return true;
    },
  );
}

export function removeDraftResources(deps: CoreDeps, identity: Identity, packageId: string, ids: string[]): Promise<ItemError[]> {
  return changeResources(
    deps,
    identity,
    packageId,
    ids,
    async (_tx, attached, _target, id) => (attached.has(id) ? null : 'The resource is not attached to this package draft.'),
    (attached, id) => attached.delete(id),
  );
}

/** Copies the previous version's resources into a new-version draft. */
export async function importResources(deps: CoreDeps, identity: Identity, packageId: string): Promise<void> {
  const parentId = await deps.uow.run(async (tx) => {
    const draft = await packageDraft(tx, packageId);
    const now = deps.clock.now();
    const parent = await packageParent(tx, identity, packageId, 'edit', now);
    const previous = parent.latestPublishedId ? await tx.records.getPublished(parent.latestPublishedId) : null;
    if (!previous || previous.id === draft.id) return parent.id;
    const resources = [...new Set([...draft.resources, ...previous.resources])];
    await tx.records.saveDraft({ ...draft, resources, updated: now, revisionId: draft.revisionId + 1 }, draft.revisionId);
    await tx.records.saveParent(touchParent(parent, now), parent.revisionId);
    return parent.id;
  });
  await projectAfterWrite(deps, [parentId]);
}
