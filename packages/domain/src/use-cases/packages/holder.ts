/**
 * "Part of": the package whose context holds a resource, seen from the resource. A reader is
 * shown the package's latest published version they may read, and nothing at all (no id, no
 * title) of a package that has no such version: one still a draft, or restricted to others.
 */
import { atLeast, levelOn, type AccessLevel } from '../../model/access.ts';
import { liftedAt } from '../../model/embargo.ts';
import type { Identity, Parent, PublishedRecord } from '../../model/types.ts';
import type { PackageHolder, PartOf, RecordView } from '../../model/views.ts';
import type { Repositories } from '../../ports.ts';

const partOf = (manager: Parent, version: PublishedRecord): PartOf => {
  const title = version.metadata['title'];
  const doi = (version.pids['doi'] as { identifier?: unknown } | undefined)?.identifier;
  return { parentId: manager.id, id: version.id, title: typeof title === 'string' ? title : '', doi: typeof doi === 'string' && doi !== '' ? doi : null };
};

/**
 * The package holding resource parent `parent` as `identity` sees it at `now`; null when no
 * package manages it. A resource no package manages reads nothing more than its parent: the
 * package's parent, its latest version and (only when that one is closed to the reader) its
 * versions' heads are read for managed resources alone.
 */
export async function holderOf(repos: Repositories, identity: Identity, parent: Parent, now: string): Promise<PackageHolder | null> {
  if (parent.kind !== 'resource' || parent.managedBy === null) return null;
  const manager = await repos.records.getParent(parent.managedBy);
  if (manager === null) return null;
  const latest = manager.latestPublishedId === null ? null : await repos.records.getPublished(manager.latestPublishedId);
  if (latest === null) return { revisionId: manager.revisionId, lapses: false, shown: null };
  let level: AccessLevel | null | undefined;
  // A package's parent is managed by nothing: the reader's level on it is read from it alone.
  const mayRead = (access: PublishedRecord['access']) => access.record === 'public' || atLeast((level ??= levelOn(identity, manager, now)), 'view');
  let lapses = latest.access.embargo.active;
  if (mayRead(liftedAt(latest, now).access)) return { revisionId: manager.revisionId, lapses, shown: partOf(manager, latest) };
  // Versions are restricted one by one: an older one may still be open to this reader.
  for (const head of await repos.records.listVersionHeads(manager.id)) {
    lapses ||= head.access.embargo.active;
    if (head.id === latest.id || !mayRead(liftedAt(head, now).access)) continue;
    const version = await repos.records.getPublished(head.id);
    if (version !== null) return { revisionId: manager.revisionId, lapses, shown: partOf(manager, version) };
  }
  return { revisionId: manager.revisionId, lapses, shown: null };
}

/**
 * `holderOf` for the many records of one answer (a listing's page, a harvest's): the resources of
 * one package share one lookup.
 */
export function holdersOf(repos: Repositories, identity: Identity, now: string): (parent: Parent) => Promise<PackageHolder | null> {
  const holders = new Map<string, Promise<PackageHolder | null>>();
  return (parent) => {
    if (parent.kind !== 'resource' || parent.managedBy === null) return Promise.resolve(null);
    let holder = holders.get(parent.managedBy);
    if (holder === undefined) holders.set(parent.managedBy, (holder = holderOf(repos, identity, parent, now)));
    return holder;
  };
}

/**
 * The page's published versions with the package each is part of, as in a GET of each (drafts,
 * as in a GET of a draft, without it).
 */
export async function withHolders(repos: Repositories, identity: Identity, views: readonly RecordView[], now: string): Promise<RecordView[]> {
  const holderFor = holdersOf(repos, identity, now);
  return Promise.all(views.map(async (view) => (view.record.state === 'published' ? { ...view, holder: await holderFor(view.parent) } : view)));
}
