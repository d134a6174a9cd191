/**
 * PostgreSQL's text cannot hold U+0000: a statement given a parameter holding one fails as a
 * whole ("invalid byte sequence for encoding UTF8: 0x00"), and the server answered a request
 * naming a record, file, link or vocabulary entry with %00 in its path 500. No id, key or name
 * krs stores holds one (SQLite keeps such a value and simply finds nothing by it), so such a
 * statement is not sent: a read is answered as finding nothing there (not_found, 404), anything
 * else as input the store cannot keep (invalid, 400).
 */
import { DomainError } from '@krs/domain';
import type { PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { BoundedPgPool } from './bounded-pg-pool.ts';

const holdsNul = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes('\u0000') : Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\u0000'));

function refusal(sql: string): DomainError {
  return /^\s*select\b/i.test(sql)
    ? new DomainError('not_found', 'store.nul_character', 'Nothing here is named with a NUL character (U+0000).')
    : new DomainError('invalid', 'store.nul_character', 'Text holding a NUL character (U+0000) cannot be stored.');
}

export function nulFreePgPool(pool: BoundedPgPool): BoundedPgPool {
  const guarded = <R>(sql: string, parameters: readonly unknown[], run: () => Promise<PostgresQueryResult<R>>): Promise<PostgresQueryResult<R>> =>
    parameters.some(holdsNul) ? Promise.reject(refusal(sql)) : run();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = <R>(sql: string, parameters: readonly unknown[]) => guarded<R>(sql, parameters, () => client.query<R>(sql, parameters));
      return { query: query as PostgresPoolClient['query'], release: () => client.release() };
    },
    end: () => pool.end(),
    query: <R>(sql: string, parameters: readonly unknown[] = []) => guarded<R>(sql, parameters, () => pool.query<R>(sql, parameters)),
  };
}
