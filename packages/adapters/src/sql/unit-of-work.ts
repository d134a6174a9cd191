import type { Repositories, UnitOfWork } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { createSqlRepositories } from './repositories.ts';

/** `repos` read through the database handle; `uow.run` gives repositories bound to one real transaction. */
export function createSqlUnitOfWork(db: Kysely<Database>): { repos: Repositories; uow: UnitOfWork } {
  return {
    repos: createSqlRepositories(db),
    uow: { run: (work) => db.transaction().execute((trx) => work(createSqlRepositories(trx))) },
  };
}
