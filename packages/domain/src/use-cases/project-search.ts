/**
 * Keeps the search index a projection of the repositories: after each commit the use cases
 * re-project the parents they touched; start-up and `krs reindex` re-project everything.
 *
 * A write does not wait for its projection (see pending-projections.ts); the core's reads of the
 * index wait for the projections begun before them (`afterProjections`).
 *
 * Projecting never fails the caller. The write it follows has committed, and one record the index
 * cannot take must not stop the others from being served: such a record is left out of the index,
 * reported to the index's `ProjectionHealth` (which the service logs and shows), and projected
 * again whenever its parent is next re-projected: on its next write, at the next start's catch-up
 * (which re-projects every parent changed since the previous start) or by `krs reindex`.
 */
import { checkLargeNestingInTurns, searchDocuments } from '../model/search-document.ts';
import type { DraftRecord, Parent, RecordKind } from '../model/types.ts';
import type { Repositories, SearchDocument, SearchIndex, SearchIndexRebuild, UnitOfWork } from '../ports.ts';
import { managerOwnerOf } from './lookup.ts';
import { PendingProjections } from './pending-projections.ts';

/** A record the index is missing; `id` is the parent's id when its records could not even be read. */
export interface SkippedRecord {
  id: string;
  parentId: string;
  reason: string;
}

export interface SearchHealth {
  /** How many records the index is missing. */
  skipped: number;
  records: SkippedRecord[];
}

/** Records the index is missing, by parent, as the latest projection of each parent left them. */
export class ProjectionHealth {
  private readonly byParent = new Map<string, SkippedRecord[]>();
  private readonly listeners = new Set<(skipped: SkippedRecord) => void>();

  /** The outcome of projecting `parentIds`: their earlier skips are settled, `skipped` are the new ones. */
  settle(parentIds: Iterable<string>, skipped: readonly SkippedRecord[]): void {
    for (const id of parentIds) this.byParent.delete(id);
    for (const s of skipped) this.byParent.set(s.parentId, [...(this.byParent.get(s.parentId) ?? []), s]);
    for (const s of skipped) {
      for (const listener of this.listeners) {
        try {
          listener(s);
        } catch {
          // A failing log line must not undo the projection of everything else.
        }
      }
    }
  }

  clear(): void {
    this.byParent.clear();
  }

  report(): SearchHealth {
    const records = [...this.byParent.values()].flat();
    return { skipped: records.length, records };
  }

  /** Calls `listener` for each record left out from now on; returns the unsubscribe. */
  onSkip(listener: (skipped: SkippedRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

// Kept beside the index it describes, so the use cases keep calling projectParents(repos, search, ids).
const healthByIndex = new WeakMap<SearchIndex, ProjectionHealth>();

export function projectionHealth(search: SearchIndex): ProjectionHealth {
  let health = healthByIndex.get(search);
  if (!health) {
    health = new ProjectionHealth();
    healthByIndex.set(search, health);
  }
  return health;
}

const pendingByIndex = new WeakMap<SearchIndex, PendingProjections>();

function pendingProjections(search: SearchIndex): PendingProjections {
  let pending = pendingByIndex.get(search);
  if (!pending) {
    pending = new PendingProjections();
    pendingByIndex.set(search, pending);
  }
  return pending;
}

/**
 * Resolves once every projection begun before the call has ended: a read of the index after it
 * sees every write answered before it.
 */
export function afterProjections(search: SearchIndex): Promise<void> {
  return pendingProjections(search).settled();
}

const MAX_REASON = 300;
const reasonOf = (e: unknown): string => {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
};

interface ParentProjection {
  parentId: string;
  docs: SearchDocument[];
  /** Keys the index holds for the parent that it no longer has. */
  stale: string[];
}

/** `known`: drafts the caller has just saved, projected as they are unless changed since (RecordRepository.listDrafts). */
async function parentProjection(repos: Repositories, search: SearchIndex, parentId: string, indexIsEmpty: boolean, known: readonly DraftRecord[]): Promise<ParentProjection> {
  // Just cleared, the index holds nothing to replace: asking it per parent only costs time.
  const old = new Set(indexIsEmpty ? [] : await search.keysOfParent(parentId));
  const docs: SearchDocument[] = [];
  const parent = await repos.records.getParent(parentId);
  if (parent) {
    const [published, drafts, manager] = await Promise.all([
      repos.records.listPublishedVersions(parentId),
      repos.records.listDrafts(parentId, known),
      managerOwnerOf(repos, parent),
    ]);
    await checkLargeNestingInTurns([...published, ...drafts]);
    for (const doc of searchDocuments(parent, published, drafts, manager ? [manager] : [])) {
      docs.push(doc);
      old.delete(doc.key);
    }
  }
  return { parentId, docs, stale: [...old] };
}

/** One parent document by document, when its batch failed: the ones the index takes are written, the others skipped. */
async function writeEach(search: Pick<SearchIndex, 'upsert' | 'remove'>, p: ParentProjection, skipped: SkippedRecord[]): Promise<void> {
  try {
    if (p.stale.length > 0) await search.remove(p.stale);
  } catch (e) {
    skipped.push({ id: p.parentId, parentId: p.parentId, reason: reasonOf(e) });
    return;
  }
  for (const doc of p.docs) {
    try {
      await search.upsert([doc]);
    } catch (e) {
      skipped.push({ id: doc.id, parentId: p.parentId, reason: reasonOf(e) });
      // Its previous version must not stand in for it: the index answers "missing", not "stale".
      await search.remove([doc.key]).catch(() => undefined);
    }
  }
}

export interface ProjectionReport {
  parents: number;
  skipped: SkippedRecord[];
}

/**
 * Re-projects each parent: its current documents are upserted, documents it no longer has removed,
 * in one write each when all goes well. Never throws: what could not be projected is in the report.
 */
export async function projectParents(
  repos: Repositories,
  search: SearchIndex,
  parentIds: Iterable<string>,
  options: { indexIsEmpty?: boolean } = {},
): Promise<ProjectionReport> {
  return writeProjections(search, await buildProjections(repos, search, parentIds, options.indexIsEmpty ?? false));
}

/**
 * What a use case does after its unit of work: begin projecting the parents it changed, unless
 * the unit did. Resolves before the projection ends (see pending-projections.ts). `saved`: drafts
 * the unit has just saved, projected from these values rather than read back while they are
 * still what is stored.
 */
export function projectAfterWrite(
  deps: { repos: Repositories; search: SearchIndex; uow: UnitOfWork },
  parentIds: Iterable<string>,
  saved: readonly DraftRecord[] = [],
): Promise<void> {
  if (deps.uow.projectsSearch === true) return Promise.resolve();
  const ids = [...new Set(parentIds)];
  return pendingProjections(deps.search).start(
    ids,
    () => buildProjections(deps.repos, deps.search, ids, false, saved),
    (built) => writeProjections(deps.search, built),
  );
}

/**
 * What createDraft does after its unit of work: the parent is new, so its documents come from the
 * values just written, with nothing of it in the index to replace or remove and nothing to read
 * back (projecting through the repositories cost a create three reads and a round trip to the
 * index). A parent managed by a package names a manager to read: that one goes the general way.
 */
export function projectCreated(deps: { repos: Repositories; search: SearchIndex; uow: UnitOfWork }, parent: Parent, draft: DraftRecord): Promise<void> {
  if (deps.uow.projectsSearch === true) return Promise.resolve();
  if (parent.managedBy !== null) return projectAfterWrite(deps, [parent.id]);
  const build = (): BuiltBatch => {
    const batch: BuiltBatch = { ids: [parent.id], built: [], skipped: [] };
    try {
      batch.built.push({ parentId: parent.id, docs: searchDocuments(parent, [], [draft]), stale: [] });
    } catch (e) {
      batch.skipped.push({ id: parent.id, parentId: parent.id, reason: reasonOf(e) });
    }
    return batch;
  };
  return pendingProjections(deps.search).start([parent.id], build, (batch) => writeProjections(deps.search, batch));
}

interface BuiltBatch {
  ids: string[];
  built: ParentProjection[];
  skipped: SkippedRecord[];
}

/**
 * Parents whose records are read at the same time. A parent takes a few reads, one after another;
 * on a database across the network (PostgreSQL) each is a round trip, and reading one parent at a
 * time made a start that catches up on 100 000 parents last over three minutes, the connections
 * of the pool idle but one.
 */
const PARENTS_READ_TOGETHER = 8;

async function buildProjections(
  repos: Repositories,
  search: SearchIndex,
  parentIds: Iterable<string>,
  indexIsEmpty: boolean,
  known: readonly DraftRecord[] = [],
): Promise<BuiltBatch> {
  const ids = [...new Set(parentIds)];
  // By position, so the report lists parents in the order given whichever read ends first.
  const outcomes: (ParentProjection | SkippedRecord | undefined)[] = new Array(ids.length);
  let next = 0;
  const reader = async () => {
    while (next < ids.length) {
      const at = next++;
      const parentId = ids[at] ?? '';
      try {
        outcomes[at] = await parentProjection(repos, search, parentId, indexIsEmpty, known);
      } catch (e) {
        outcomes[at] = { id: parentId, parentId, reason: reasonOf(e) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARENTS_READ_TOGETHER, ids.length) }, reader));
  const built: ParentProjection[] = [];
  const skipped: SkippedRecord[] = [];
  for (const outcome of outcomes) {
    if (outcome === undefined) continue;
    if ('docs' in outcome) built.push(outcome);
    else skipped.push(outcome);
  }
  return { ids, built, skipped };
}

/** `writer`: where the documents go, `search` itself but during a rebuild (`SearchIndex.rebuild`). */
async function writeProjections(search: SearchIndex, { ids, built, skipped }: BuiltBatch, writer: Pick<SearchIndex, 'upsert' | 'remove'> = search): Promise<ProjectionReport> {
  try {
    const stale = built.flatMap((p) => p.stale);
    const docs = built.flatMap((p) => p.docs);
    // Both asked for at once, before any await, so a projection that follows asks after them
    // (pending-projections.ts). The stale keys are the ones `docs` do not hold, so neither
    // write can undo the other, whichever an index applies first.
    const outcomes = await Promise.allSettled([stale.length > 0 ? writer.remove(stale) : undefined, docs.length > 0 ? writer.upsert(docs) : undefined]);
    if (outcomes.some((o) => o.status === 'rejected')) throw new Error('an index write failed');
  } catch {
    // Some document in the batch is one the index cannot take: find it, keep the rest.
    for (const p of built) await writeEach(writer, p, skipped);
  }
  projectionHealth(search).settle(ids, skipped);
  return { parents: ids.length, skipped };
}

export interface ReindexProgress {
  done: number;
  total: number;
}

/** Rebuilds the whole index (or catches up on parents changed since `since`), reporting what it had to skip. */
export async function reindex(
  repos: Repositories,
  search: SearchIndex,
  options: { since?: string; onProgress?: (p: ReindexProgress) => void } = {},
): Promise<ProjectionReport> {
  const kinds: RecordKind[] = ['resource', 'package'];
  // A whole rebuild goes through the index's bulk writer where it has one.
  let rebuild: SearchIndexRebuild | null = null;
  if (options.since === undefined) {
    if (search.rebuild) rebuild = await search.rebuild();
    else await search.clear();
    projectionHealth(search).clear();
  }
  const ids = await repos.records.listParentIds(kinds, options.since);
  const skipped: SkippedRecord[] = [];
  const batch = 200;
  // The next batch is read and built while the previous one is written: an index that writes
  // on another thread (SQLite's) then works at the same time as the loop instead of in turn.
  let writing: Promise<void> = Promise.resolve();
  for (let i = 0; i < ids.length; i += batch) {
    const built = await buildProjections(repos, search, ids.slice(i, i + batch), options.since === undefined);
    await writing;
    const done = Math.min(i + batch, ids.length);
    writing = writeProjections(search, built, rebuild ?? search).then((report) => {
      skipped.push(...report.skipped);
      options.onProgress?.({ done, total: ids.length });
    });
  }
  await writing;
  await rebuild?.finish();
  return { parents: ids.length, skipped };
}
