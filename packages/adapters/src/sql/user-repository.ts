import { DomainError, type UserRepository } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { rowToToken, rowToUser, tokenToRow, userToRow } from './rows.ts';

export function createSqlUserRepository(db: Kysely<Database>): UserRepository {
  return {
    async create(user) {
      // DO NOTHING without a target covers both the id and the unique email, on any dialect.
      const result = await db.insertInto('user').values(userToRow(user)).onConflict((oc) => oc.doNothing()).executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) throw new DomainError('conflict', 'user.exists', `User ${user.email} already exists.`);
    },
    async getByEmail(email) {
      const row = await db.selectFrom('user').selectAll().where('email', '=', email).executeTakeFirst();
      return row ? rowToUser(row) : null;
    },
    async getById(id) {
      const row = await db.selectFrom('user').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? rowToUser(row) : null;
    },
    async addToken(token) {
      await db.insertInto('api_token').values(tokenToRow(token)).execute();
    },
    async findTokenByHash(hash) {
      const row = await db.selectFrom('api_token').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row ? rowToToken(row) : null;
    },
  };
}
