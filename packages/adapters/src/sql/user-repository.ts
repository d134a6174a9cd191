import { DomainError, type UserRepository } from '@krs/domain';
import type { CompiledQuery, Kysely } from 'kysely';
import { committedReads } from './create-db.ts';
import type { ApiTokenTable, Database } from './database.ts';
import { rowToToken, rowToUser, tokenToRow, userToRow } from './rows.ts';

export function createSqlUserRepository(db: Kysely<Database>): UserRepository {
  // Run on every request with a bearer token: built and compiled once, only the digest changes.
  let tokenQuery: CompiledQuery<ApiTokenTable> | null = null;
  // On SQLite, outside a unit of work, on the connection that sees committed rows only (create-db.ts).
  const committedRead = committedReads.get(db);
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
      tokenQuery ??= db.selectFrom('api_token').selectAll().where('hash', '=', '').compile();
      const row =
        committedRead !== undefined
          ? committedRead<ApiTokenTable>({ sql: tokenQuery.sql, parameters: [hash] })
          : (await db.executeQuery<ApiTokenTable>({ ...tokenQuery, parameters: [hash] })).rows[0];
      return row ? rowToToken(row) : null;
    },
    async listTokens(userId) {
      const rows = await db.selectFrom('api_token').selectAll().where('user_id', '=', userId).orderBy('created').orderBy('id').execute();
      return rows.map(rowToToken);
    },
    async removeTokens(userId, ids) {
      if (ids.length === 0) return 0;
      const result = await db.deleteFrom('api_token').where('user_id', '=', userId).where('id', 'in', [...ids]).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
