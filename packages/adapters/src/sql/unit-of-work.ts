import type { Repositories, UnitOfWork } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { createSqlRepositories } from './repositories.ts';

/**
 * `repos` work on the database handle; `uow.run` opens one real transaction and hands `work`
 * repositories bound to it, committed when `work` resolves and rolled back when it throws.
 */
export function createSqlUnitOfWork(db: Kysely<Database>): { uow: UnitOfWork; repos: Repositories } {
  return {
    repos: createSqlRepositories(db),
    uow: {
      run: (work) => db.transaction().execute((trx) => work(createSqlRepositories(trx))),
      async check() {
        await db.selectFrom('parent').select('id').limit(1).execute();
      },
    },
  };
}
