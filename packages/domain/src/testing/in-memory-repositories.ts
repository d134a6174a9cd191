/**
 * In-memory repositories with real transaction semantics: a unit of work edits a copy of the
 * state and swaps it in only when the work resolves. Values are cloned in and out so callers
 * can never change stored state by mutating what they hold.
 */
import { DomainError } from '../errors.ts';
import type { AnyRecord, ApiToken, DraftRecord, FileEntry, FileOwner, Parent, PublishedRecord, User, VocabularyEntry } from '../model/types.ts';
import type { OwnedFileEntry, Repositories, UnitOfWork, UpdatePosition } from '../ports.ts';
import { keyedInOrder, pageOfKeyed } from '../vocabularies/vocabulary-listing.ts';

interface State {
  drafts: Map<string, DraftRecord>;
  published: Map<string, PublishedRecord>;
  parents: Map<string, Parent>;
  files: Map<string, Map<string, FileEntry>>;
  /** Blob id to when its upload was last marked alive. */
  blobUploads: Map<string, string>;
  users: Map<string, User>;
  tokens: Map<string, ApiToken>;
  vocabularies: Map<string, VocabularyEntry>;
}

const emptyState = (): State => ({
  drafts: new Map(),
  published: new Map(),
  parents: new Map(),
  files: new Map(),
  blobUploads: new Map(),
  users: new Map(),
  tokens: new Map(),
  vocabularies: new Map(),
});

/** Stored values are replaced, never mutated in place, so a transaction only needs fresh maps. */
function snapshot(s: State): State {
  return {
    drafts: new Map(s.drafts),
    published: new Map(s.published),
    parents: new Map(s.parents),
    files: new Map([...s.files].map(([k, v]) => [k, new Map(v)])),
    blobUploads: new Map(s.blobUploads),
    users: new Map(s.users),
    tokens: new Map(s.tokens),
    vocabularies: new Map(s.vocabularies),
  };
}

const copy = <T>(value: T): T => structuredClone(value);
const copyOrNull = <T>(value: T | undefined): T | null => (value === undefined ? null : copy(value));
const ownerKey = (o: FileOwner) => `${o.state}:${o.recordId}`;
// Code-unit order, as SQL's default BINARY collation sorts.
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const mismatch = () => new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');

function checkRevision(current: { revisionId: number } | undefined, expected: number | null): void {
  if (expected === null ? current !== undefined : current?.revisionId !== expected) throw mismatch();
}

type Writer = <T>(change: (state: State) => T) => Promise<T>;

/**
 * `read` sees the state to read; every change goes through `write`, which decides when it lands.
 * `changeStamp` counts the changes that landed (null inside a unit of work, as on SQL stores).
 */
function repositoriesOver(read: () => State, write: Writer, changeStamp: () => string | null): Repositories {
  /** Published versions past `after` in the order harvesters walk: `updated`, then id. */
  const walkByUpdate = (after: UpdatePosition | undefined) =>
    [...read().published.values()]
      .filter((r) => after === undefined || r.updated > after.updated || (r.updated === after.updated && byCodeUnits(r.id, after.id) > 0))
      .sort((a, b) => byCodeUnits(a.updated, b.updated) || byCodeUnits(a.id, b.id));
  const managerRevisionOf = (parent: Parent): number | null =>
    parent.managedBy === null ? null : (read().parents.get(parent.managedBy)?.revisionId ?? null);
  return {
    records: {
      getDraft: async (id) => copyOrNull(read().drafts.get(id)),
      getPublished: async (id) => copyOrNull(read().published.get(id)),
      getPublishedRevisions: async (id) => {
        const record = read().published.get(id);
        const parent = record && read().parents.get(record.parentId);
        return record && parent ? { kind: record.kind, revisionId: record.revisionId, parentRevisionId: parent.revisionId, managerRevisionId: managerRevisionOf(parent) } : null;
      },
      getDraftRevisions: async (id) => {
        const draft = read().drafts.get(id);
        const parent = draft && read().parents.get(draft.parentId);
        return draft && parent ? { kind: draft.kind, revisionId: draft.revisionId, parentRevisionId: parent.revisionId, managerRevisionId: managerRevisionOf(parent) } : null;
      },
      saveDraft: (draft, expected) =>
        write((s) => {
          checkRevision(s.drafts.get(draft.id), expected);
          s.drafts.set(draft.id, copy(draft));
        }),
      deleteDraft: (id) =>
        write((s) => {
          s.drafts.delete(id);
        }),
      savePublished: (record, expected) =>
        write((s) => {
          checkRevision(s.published.get(record.id), expected);
          s.published.set(record.id, copy(record));
        }),
      listPublishedVersions: async (parentId) =>
        [...read().published.values()].filter((r) => r.parentId === parentId).sort((a, b) => b.versionIndex - a.versionIndex).map(copy),
      listVersionHeads: async (parentId) =>
        [...read().published.values()]
          .filter((r) => r.parentId === parentId)
          .sort((a, b) => b.versionIndex - a.versionIndex)
          .map(({ id, versionIndex, created, updated, access }) => copy({ id, versionIndex, created, updated, access })),
      getDraftWithoutMetadata: async (id) => {
        const stored = read().drafts.get(id);
        if (stored === undefined) return null;
        const { metadata: _metadata, ...rest } = copy(stored);
        return rest;
      },
      listDrafts: async (parentId, known = []) =>
        [...read().drafts.values()]
          .filter((d) => d.parentId === parentId)
          .map((d) => known.find((k) => k.id === d.id && k.revisionId === d.revisionId) ?? copy(d)),
      getParent: async (id) => copyOrNull(read().parents.get(id)),
      saveParent: (parent, expected) =>
        write((s) => {
          checkRevision(s.parents.get(parent.id), expected);
          s.parents.set(parent.id, copy(parent));
        }),
      listParentIds: async (kinds, updatedSince) =>
        [...read().parents.values()]
          .filter((p) => kinds.includes(p.kind) && (updatedSince === undefined || p.updated > updatedSince))
          .map((p) => p.id)
          .sort(byCodeUnits),
      getDraftsByIds: async (ids) => [...new Set(ids)].flatMap((id) => (read().drafts.has(id) ? [copy(read().drafts.get(id) as DraftRecord)] : [])),
      getPublishedByIds: async (ids) => [...new Set(ids)].flatMap((id) => (read().published.has(id) ? [copy(read().published.get(id) as PublishedRecord)] : [])),
      storedSizes: async (state, ids) => {
        const table = state === 'draft' ? read().drafts : read().published;
        return new Map([...new Set(ids)].flatMap((id): [string, number][] => {
          const record = table.get(id);
          return record ? [[id, JSON.stringify(record).length]] : [];
        }));
      },
      getParentsByIds: async (ids) => [...new Set(ids)].flatMap((id) => (read().parents.has(id) ? [copy(read().parents.get(id) as Parent)] : [])),
      listLapsedEmbargoes: async (today, limit) =>
        [...read().published.values()]
          .filter((r) => r.access.embargo.active && r.access.embargo.until !== null && r.access.embargo.until <= today)
          .map((r) => r.id)
          .sort(byCodeUnits)
          .slice(0, limit),
      listPositionsByUpdate: async ({ from, until, after, limit }) =>
        walkByUpdate(after)
          .filter((r) => (from === undefined || r.updated >= from) && (until === undefined || r.updated <= until))
          .slice(0, limit)
          .map((r) => ({ updated: r.updated, id: r.id, bytes: JSON.stringify(r).length })),
      positionAfter: async (after, count) => {
        const walk = walkByUpdate(after);
        const at = walk[Math.min(Math.max(count, 1), walk.length) - 1];
        return at === undefined ? null : { position: { updated: at.updated, id: at.id }, full: walk.length >= count };
      },
      changeStamp: async () => changeStamp(),
    },
    files: {
      list: async (owner) => [...(read().files.get(ownerKey(owner))?.values() ?? [])].sort((a, b) => byCodeUnits(a.key, b.key)).map(copy),
      get: async (owner, key) => copyOrNull(read().files.get(ownerKey(owner))?.get(key)),
      save: (owner, entry) =>
        write((s) => {
          const k = ownerKey(owner);
          const entries = s.files.get(k) ?? new Map<string, FileEntry>();
          entries.set(entry.key, copy(entry));
          s.files.set(k, entries);
        }),
      delete: (owner, key) =>
        write((s) => {
          s.files.get(ownerKey(owner))?.delete(key);
        }),
      deleteAll: (owner) =>
        write((s) => {
          s.files.delete(ownerKey(owner));
        }),
      count: async (owner) => read().files.get(ownerKey(owner))?.size ?? 0,
      referencesBlob: async (blobId) => [...read().files.values()].some((entries) => [...entries.values()].some((e) => e.blob?.id === blobId)),
      referencedBlobIds: async () => {
        const ids = new Set<string>();
        for (const entries of read().files.values()) for (const e of entries.values()) if (e.blob !== null) ids.add(e.blob.id);
        return ids;
      },
      listAll: async ({ after, updatedSince, limit }) => {
        const all: OwnedFileEntry[] = [];
        for (const [k, entries] of read().files) {
          const at = k.indexOf(':');
          const owner: FileOwner = { state: k.slice(0, at) as FileOwner['state'], recordId: k.slice(at + 1) };
          for (const entry of entries.values()) all.push({ owner, entry });
        }
        const cursorOf = (o: OwnedFileEntry): string[] => [o.entry.updated, o.owner.state, o.owner.recordId, o.entry.key];
        const compare = (a: string[], b: string[]) => a.reduce((r, x, i) => r || byCodeUnits(x, b[i] ?? ''), 0);
        const from = after ? [after.updated, after.state, after.recordId, after.key] : null;
        return all
          .filter((o) => (updatedSince === undefined || o.entry.updated >= updatedSince) && (from === null || compare(cursorOf(o), from) > 0))
          .sort((a, b) => compare(cursorOf(a), cursorOf(b)))
          .slice(0, limit)
          .map(copy);
      },
    },
    blobUploads: {
      begin: (blobId, at) =>
        write((s) => {
          s.blobUploads.set(blobId, at);
        }),
      renew: (blobId, at) =>
        write((s) => {
          if (!s.blobUploads.has(blobId)) return false;
          s.blobUploads.set(blobId, at);
          return true;
        }),
      end: (blobId) => write((s) => s.blobUploads.delete(blobId)),
      endIfStale: (blobId, before) =>
        write((s) => {
          const touched = s.blobUploads.get(blobId);
          return touched !== undefined && touched < before && s.blobUploads.delete(blobId);
        }),
      list: async () => new Map(read().blobUploads),
    },
    users: {
      create: (user) =>
        write((s) => {
          if (s.users.has(user.id) || [...s.users.values()].some((u) => u.email === user.email)) {
            throw new DomainError('conflict', 'user.exists', `User ${user.email} already exists.`);
          }
          s.users.set(user.id, copy(user));
        }),
      getByEmail: async (email) => copyOrNull([...read().users.values()].find((u) => u.email === email)),
      getById: async (id) => copyOrNull(read().users.get(id)),
      addToken: (token) =>
        write((s) => {
          s.tokens.set(token.hash, copy(token));
        }),
      findTokenByHash: async (hash) => copyOrNull(read().tokens.get(hash)),
      listTokens: async (userId) =>
        [...read().tokens.values()]
          .filter((t) => t.userId === userId)
          .sort((a, b) => (a.created === b.created ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.created < b.created ? -1 : 1))
          .map(copy),
      removeTokens: (userId, ids) =>
        write((s) => {
          const wanted = new Set(ids);
          let removed = 0;
          for (const [hash, t] of s.tokens) {
            if (t.userId === userId && wanted.has(t.id) && s.tokens.delete(hash)) removed++;
          }
          return removed;
        }),
    },
    vocabularies: {
      async get(type, ids) {
        const found = new Map<string, VocabularyEntry>();
        for (const id of ids) {
          const e = read().vocabularies.get(`${type}:${id}`);
          if (e) found.set(id, copy(e));
        }
        return found;
      },
      upsert: (entries) =>
        write((s) => {
          for (const e of entries) s.vocabularies.set(`${e.type}:${e.id}`, copy(e));
          return entries.length;
        }),
      count: async (type) => [...read().vocabularies.values()].filter((e) => e.type === type).length,
      list: async (type) =>
        [...read().vocabularies.values()]
          .filter((e) => e.type === type)
          .sort((a, b) => byCodeUnits(a.id, b.id))
          .map(copy),
      remove: (type, ids) =>
        write((s) => {
          let removed = 0;
          for (const id of new Set(ids)) if (s.vocabularies.delete(`${type}:${id}`)) removed++;
          return removed;
        }),
      async page(type, query) {
        const page = pageOfKeyed(keyedInOrder([...read().vocabularies.values()].filter((e) => e.type === type)), query);
        return { entries: page.entries.map(copy), total: page.total };
      },
    },
  };
}

/**
 * `repos` reads the committed state; its writes wait for any open unit of work, as SQLite's
 * single writer does (so, as on SQLite, writing through `repos` inside `uow.run` never finishes).
 * Runs are serialised; each works on a snapshot that replaces the state only if `work` resolves.
 */
export function createInMemoryRepositories(): { repos: Repositories; uow: UnitOfWork; all(): AnyRecord[] } {
  let state = emptyState();
  /** Changes committed so far: the change stamp. */
  let changes = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const done = queue.then(task);
    queue = done.catch(() => undefined);
    return done;
  };
  const repos = repositoriesOver(
    () => state,
    // Every change checks before it mutates, so a single write needs no snapshot to be atomic.
    (change) =>
      exclusive(async () => {
        const result = change(state);
        changes++;
        return result;
      }),
    () => String(changes),
  );
  const uow: UnitOfWork = {
    run: (work) =>
      exclusive(async () => {
        const working = snapshot(state);
        const result = await work(repositoriesOver(() => working, async (change) => change(working), () => null));
        state = working;
        changes++;
        return result;
      }),
    check: async () => undefined,
  };
  return { repos, uow, all: () => [...state.drafts.values(), ...state.published.values()].map(copy) };
}
