import { DomainError, projectParents, type Repositories, type SearchIndex, type UnitOfWork } from '@krs/domain';
import { CompiledQuery, sql, type ControlledTransaction, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { commitSyncs } from './create-db.ts';
import { isPostgres } from './dialect.ts';
import { createSqlRepositories } from './repositories.ts';
import type { RowReader } from './vocabulary-repository.ts';

/** Most units of work sharing one commit: bounds how long one batch holds the connection. */
const MAX_BATCH = 64;

// A batch's savepoints, per unit: their text never changes, so it is not built each time.
const SAVEPOINT = CompiledQuery.raw('savepoint unit');
const RELEASE = CompiledQuery.raw('release savepoint unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint unit');

interface Pending {
  work: (tx: Repositories) => Promise<unknown>;
  settle: (outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => void;
}

/**
 * `repos` work on the database handle; `uow.run` hands `work` repositories bound to a real
 * transaction, committed when `work` resolves and rolled back when it throws.
 *
 * Group commit: the units of work that queue up while one transaction runs, or while the fsync
 * after it runs, go together in the next transaction, each inside a savepoint of its own; a unit
 * that throws is rolled back to its savepoint alone. On a database from createDb, each caller
 * hears back only once an fsync that began after its commit has ended (see create-db.ts), so an
 * answer never promises more than the disk holds, and concurrent writers share commits and
 * fsyncs instead of queueing one each. Alone, a unit of work is one transaction and one fsync.
 */
/**
 * A search index whose writes can join a transaction (PostgreSQL's). Give the unit of work the
 * very object the core searches with: what it projects after commit is reported in that
 * object's projection health.
 */
export interface TransactionalSearch extends SearchIndex {
  withTransaction<T>(trx: Kysely<T>): SearchIndex;
}

export function createSqlUnitOfWork(db: Kysely<Database>, options: { search?: TransactionalSearch; reader?: RowReader } = {}): { uow: UnitOfWork; repos: Repositories } {
  if (isPostgres(db)) return createPgUnitOfWork(db, options.search ?? null);
  const sync = commitSyncs.get(db);
  const queue: Pending[] = [];
  let draining = false;
  /** The latest fsync asked for, settled either way. */
  let syncing: Promise<void> | null = null;

  async function runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Parameters<Pending['settle']>[0][] = [];
    let trx: ControlledTransaction<Database>;
    try {
      trx = await db.startTransaction().execute();
    } catch (error) {
      // No transaction began (the database locked or gone): every unit hears why, none waits on.
      for (const item of batch) item.settle({ ok: false, error });
      return;
    }
    try {
      const repos = createSqlRepositories(trx);
      // Alone in its transaction, a unit that throws rolls the whole transaction back: the
      // savepoint would only cost two more statements.
      if (batch.length === 1) {
        outcomes.push({ ok: true, value: await (batch[0] as Pending).work(repos) });
      } else {
        for (const item of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await item.work(repos);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            // Should the savepoint have gone with the whole transaction, this unit's error ended
            // the batch, and it is what every unit hears (below).
            await trx.executeQuery(ROLLBACK_TO).then(() => trx.executeQuery(RELEASE), () => Promise.reject(error));
            outcomes.push({ ok: false, error });
          }
        }
      }
      await trx.commit().execute();
    } catch (error) {
      // A unit alone in its transaction threw, or the commit itself failed: nothing of the batch
      // is kept, and every unit says so. SQLite rolls a transaction back by itself on some
      // failures (a full disk, writing its pages), and the ROLLBACK then fails with "no
      // transaction is active": the error to report is the one that ended it.
      await trx.rollback().execute().catch(() => undefined);
      for (const item of batch) item.settle({ ok: false, error });
      return;
    }
    const settleAll = () => batch.forEach((item, i) => item.settle(outcomes[i] as Parameters<Pending['settle']>[0]));
    if (sync === undefined) return settleAll();
    const synced = sync();
    syncing = synced.then(
      () => undefined,
      () => undefined,
    );
    synced.then(settleAll, (error: unknown) => {
      for (const item of batch) item.settle({ ok: false, error });
    });
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) {
        // Units that arrive while an fsync runs would be answered after the next one anyway:
        // waiting for it to end lets them share one transaction (one commit, each page written
        // to the WAL once) as well as that next fsync.
        if (syncing !== null) await syncing;
        // The fsync ends in the loop's poll phase, among the reads of requests that came in
        // meanwhile: waiting for the end of that phase lets the units those requests ask for
        // join this batch instead of waiting for the next commit and fsync.
        await new Promise((resolve) => setImmediate(resolve));
        await runBatch(queue.splice(0, MAX_BATCH));
      }
    } finally {
      draining = false;
    }
  }

  return {
    repos: createSqlRepositories(db, options.reader ? { reader: options.reader } : {}),
    uow: {
      run: <T>(work: (tx: Repositories) => Promise<T>) =>
        new Promise<T>((resolve, reject) => {
          queue.push({ work, settle: (o) => (o.ok ? resolve(o.value as T) : reject(o.error)) });
          if (!draining) void drain();
        }),
      async check() {
        await db.selectFrom('parent').select('id').limit(1).execute();
      },
    },
  };
}

/** PostgreSQL's codes for a transaction that lost a race: serialization failure, deadlock. */
const LOST_RACE = new Set(['40001', '40P01']);
/** A unique key another transaction took first (a save without ON CONFLICT). */
const TAKEN = '23505';
const ATTEMPTS = 3;

const pgCode = (e: unknown): string | undefined => (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : undefined);

/**
 * PostgreSQL: each unit of work is a transaction of its own, run concurrently on the pool, as
 * units on other nodes run. The records it reads are locked until it ends (`SELECT ... FOR
 * UPDATE`), so units that read the same parent or draft run one after the other, here or on
 * another node, and a read-decide-write never works from a stale value. Behind that, the writes
 * check revisions in the statement itself (an update of another revision, an insert of a taken
 * id, changes no row and the unit fails with a conflict): two concurrent publishes of one draft
 * leave exactly one published version. A deadlock (units locking rows in different orders) or a
 * serialization failure is retried, the unit reading afresh, then answered as a conflict.
 */
function createPgUnitOfWork(db: Kysely<Database>, search: TransactionalSearch | null): { uow: UnitOfWork; repos: Repositories } {
  /** `unprojected`: the parents whose documents the unit could not write, to project again after commit. */
  async function unit<T>(trx: Kysely<Database>, work: (tx: Repositories) => Promise<T>, unprojected: Set<string>): Promise<T> {
    const repos = createSqlRepositories(trx, { lockReads: true });
    if (search === null) return work(repos);
    const touched = new Set<string>();
    const records = repos.records;
    const tracked: Repositories = {
      ...repos,
      records: {
        ...records,
        saveParent: (p, expected) => (touched.add(p.id), records.saveParent(p, expected)),
        saveDraft: (d, expected) => (touched.add(d.parentId), records.saveDraft(d, expected)),
        savePublished: (r, expected) => (touched.add(r.parentId), records.savePublished(r, expected)),
        async deleteDraft(id) {
          const draft = await records.getDraft(id);
          if (draft) touched.add(draft.parentId);
          return records.deleteDraft(id);
        },
      },
    };
    const value = await work(tracked);
    if (touched.size > 0) {
      // The search documents commit with the write. A document the index cannot take must not
      // undo the write: its statements are rolled back alone, and its parent is projected again
      // after commit, where what is skipped is reported.
      await sql`savepoint projection`.execute(trx);
      const report = await projectParents(repos, search.withTransaction(trx), touched);
      try {
        await sql`release savepoint projection`.execute(trx);
        for (const skipped of report.skipped) unprojected.add(skipped.parentId);
      } catch {
        await sql`rollback to savepoint projection`.execute(trx);
        for (const parentId of touched) unprojected.add(parentId);
      }
    }
    return value;
  }
  const committed = createSqlRepositories(db);
  return {
    repos: committed,
    uow: {
      projectsSearch: search !== null,
      async run<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
        for (let attempt = 1; ; attempt++) {
          const unprojected = new Set<string>();
          try {
            const value = await db.transaction().execute((trx) => unit(trx, work, unprojected));
            if (search !== null && unprojected.size > 0) await projectParents(committed, search, unprojected);
            return value;
          } catch (e) {
            const code = pgCode(e);
            if (code !== undefined && LOST_RACE.has(code) && attempt < ATTEMPTS) continue;
            if (code !== undefined && (LOST_RACE.has(code) || code === TAKEN)) {
              throw new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else; reload it and try again.');
            }
            throw e;
          }
        }
      },
      async check() {
        await db.selectFrom('parent').select('id').limit(1).execute();
      },
    },
  };
}
