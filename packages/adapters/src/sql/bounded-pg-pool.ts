/**
 * PostgreSQL connections whose statements each get an answer, or an error, within a bound on
 * the client's side: what PostgreSQL's own `statement_timeout` cannot give when the server
 * stalls (stopped, or a host that drops packets) with a statement already sent on an open
 * connection.
 *
 * node-postgres' own `query_timeout` was not used: it fails the query but leaves the statement
 * running on the connection, and Kysely gives the connection back to the pool as healthy; the
 * next statement lent it queues behind the unanswered one and fails in turn (a `select 1` after
 * a `pg_sleep(3)` cut at 0.5 s failed 0.5 s later too). Here the connection is destroyed when its
 * statement times out, every later statement on it fails at once (a transaction's rollback
 * included), and the pool drops it when it is released. PostgreSQL rolls back a transaction
 * whose connection went before its COMMIT was read.
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * A statement that had no answer within the bound; `ETIMEDOUT` like Node's own network timeouts,
 * so the server answers it as a store that did not answer (503). Its connection is gone: the
 * statement's outcome is unknown only when it was a COMMIT.
 */
export class StatementTimedOut extends Error {
  override name = 'StatementTimedOut';
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`PostgreSQL did not answer a statement within ${timeoutMs} ms; its connection was closed.`);
  }
}

export interface BoundedPgPool extends PostgresPool {
  /** One statement on a connection of the pool, bounded as Kysely's are. */
  query<R>(sql: string, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>>;
}

function boundedClient(client: pg.PoolClient, timeoutMs: number): PostgresPoolClient {
  let broken: StatementTimedOut | null = null;
  const query = <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
    if (broken !== null) return Promise.reject(broken);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        broken = new StatementTimedOut(timeoutMs);
        reject(broken);
        // Not `end()`: its goodbye would wait on the same stalled socket.
        client.connection.stream.destroy();
      }, timeoutMs);
      client.query(sql, [...parameters]).then(
        (result) => {
          clearTimeout(timer);
          resolve(result as unknown as PostgresQueryResult<R>);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
  return {
    query: query as PostgresPoolClient['query'],
    // An error given back makes the pool drop the connection rather than lend it again.
    release: () => client.release(broken ?? undefined),
  };
}

/** `timeoutMs` null: the pool as it is, unbounded (the operator's commands, migrations). */
export function boundedPgPool(pool: pg.Pool, timeoutMs: number | null): BoundedPgPool {
  const connect = async (): Promise<PostgresPoolClient> => {
    const client = await pool.connect();
    return timeoutMs === null ? (client as unknown as PostgresPoolClient) : boundedClient(client, timeoutMs);
  };
  return {
    connect,
    end: () => pool.end(),
    async query<R>(sql: string, parameters: readonly unknown[] = []) {
      const client = await connect();
      try {
        return await client.query<R>(sql, parameters);
      } finally {
        client.release();
      }
    },
  };
}
