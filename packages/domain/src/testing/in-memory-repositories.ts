/**
 * In-memory repositories with real transaction semantics: a unit of work edits a copy of the
 * state and swaps it in only when the work resolves. Values are cloned in and out so callers
 * can never change stored state by mutating what they hold.
 */
import { DomainError } from '../errors.ts';
import type { AnyRecord, ApiToken, DraftRecord, FileEntry, FileOwner, Parent, PublishedRecord, User, VocabularyEntry } from '../model/types.ts';
import type { Repositories, UnitOfWork } from '../ports.ts';

interface State {
  drafts: Map<string, DraftRecord>;
  published: Map<string, PublishedRecord>;
  parents: Map<string, Parent>;
  files: Map<string, Map<string, FileEntry>>;
  users: Map<string, User>;
  tokens: Map<string, ApiToken>;
  vocabularies: Map<string, VocabularyEntry>;
}

const emptyState = (): State => ({
  drafts: new Map(),
  published: new Map(),
  parents: new Map(),
  files: new Map(),
  users: new Map(),
  tokens: new Map(),
  vocabularies: new Map(),
});

const copy = <T>(value: T): T => structuredClone(value);
const ownerKey = (o: FileOwner) => `${o.state}:${o.recordId}`;
const mismatch = () => new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');

function checkRevision(current: { revisionId: number } | undefined, expected: number | null): void {
  if (expected === null ? current !== undefined : current?.revisionId !== expected) throw mismatch();
}

function repositoriesOver(get: () => State): Repositories {
  return {
    records: {
      async getDraft(id) {
        const d = get().drafts.get(id);
        return d ? copy(d) : null;
      },
      async getPublished(id) {
        const r = get().published.get(id);
        return r ? copy(r) : null;
      },
      async saveDraft(draft, expected) {
        checkRevision(get().drafts.get(draft.id), expected);
        get().drafts.set(draft.id, copy(draft));
      },
      async deleteDraft(id) {
        get().drafts.delete(id);
      },
      async savePublished(record, expected) {
        checkRevision(get().published.get(record.id), expected);
        get().published.set(record.id, copy(record));
      },
      async listPublishedVersions(parentId) {
        return [...get().published.values()].filter((r) => r.parentId === parentId).sort((a, b) => b.versionIndex - a.versionIndex).map(copy);
      },
      async listDrafts(parentId) {
        return [...get().drafts.values()].filter((d) => d.parentId === parentId).map(copy);
      },
      async getParent(id) {
        const p = get().parents.get(id);
        return p ? copy(p) : null;
      },
      async saveParent(parent, expected) {
        checkRevision(get().parents.get(parent.id), expected);
        get().parents.set(parent.id, copy(parent));
      },
      async listParentIds(kinds, updatedSince) {
        return [...get().parents.values()]
          .filter((p) => kinds.includes(p.kind) && (updatedSince === undefined || p.updated > updatedSince))
          .map((p) => p.id);
      },
    },
    files: {
      async list(owner) {
        return [...(get().files.get(ownerKey(owner))?.values() ?? [])].sort((a, b) => a.key.localeCompare(b.key)).map(copy);
      },
      async get(owner, key) {
        const e = get().files.get(ownerKey(owner))?.get(key);
        return e ? copy(e) : null;
      },
      async save(owner, entry) {
        const files = get().files;
        const k = ownerKey(owner);
        if (!files.has(k)) files.set(k, new Map());
        files.get(k)?.set(entry.key, copy(entry));
      },
      async delete(owner, key) {
        get().files.get(ownerKey(owner))?.delete(key);
      },
      async deleteAll(owner) {
        get().files.delete(ownerKey(owner));
      },
      async count(owner) {
        return get().files.get(ownerKey(owner))?.size ?? 0;
      },
    },
    users: {
      async create(user) {
        const state = get();
        if ([...state.users.values()].some((u) => u.email === user.email) || state.users.has(user.id)) {
          throw new DomainError('conflict', 'user.exists', `User ${user.email} already exists.`);
        }
        state.users.set(user.id, copy(user));
      },
      async getByEmail(email) {
        const u = [...get().users.values()].find((x) => x.email === email);
        return u ? copy(u) : null;
      },
      async getById(id) {
        const u = get().users.get(id);
        return u ? copy(u) : null;
      },
      async addToken(token) {
        get().tokens.set(token.hash, copy(token));
      },
      async findTokenByHash(hash) {
        const t = get().tokens.get(hash);
        return t ? copy(t) : null;
      },
    },
    vocabularies: {
      async get(type, ids) {
        const found = new Map<string, VocabularyEntry>();
        for (const id of ids) {
          const e = get().vocabularies.get(`${type}:${id}`);
          if (e) found.set(id, copy(e));
        }
        return found;
      },
      async upsert(entries) {
        for (const e of entries) get().vocabularies.set(`${e.type}:${e.id}`, copy(e));
        return entries.length;
      },
      async count(type) {
        return [...get().vocabularies.values()].filter((e) => e.type === type).length;
      },
    },
  };
}

function cloneState(s: State): State {
  return {
    drafts: new Map(s.drafts),
    published: new Map(s.published),
    parents: new Map(s.parents),
    files: new Map([...s.files].map(([k, v]) => [k, new Map(v)])),
    users: new Map(s.users),
    tokens: new Map(s.tokens),
    vocabularies: new Map(s.vocabularies),
  };
}

export function createInMemoryRepositories(): { repos: Repositories; uow: UnitOfWork; all(): AnyRecord[] } {
  let state = emptyState();
  let queue: Promise<unknown> = Promise.resolve();
  const repos = repositoriesOver(() => state);
  const uow: UnitOfWork = {
    run<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
      const attempt = queue.then(async () => {
        // Stored values are never mutated in place, so shallow map copies isolate the transaction.
        const working = cloneState(state);
        const result = await work(repositoriesOver(() => working));
        state = working;
        return result;
      });
      queue = attempt.catch(() => undefined);
      return attempt;
    },
  };
  return { repos, uow, all: () => [...state.drafts.values(), ...state.published.values()].map(copy) };
}
