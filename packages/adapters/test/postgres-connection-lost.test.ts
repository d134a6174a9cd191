/**
 * A PostgreSQL connection that drops while the pool has lent it out (PostgreSQL restarted,
 * failed over or stopped with `-m immediate` under load): the work on it fails, the process
 * goes on, and once PostgreSQL is back new work succeeds.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDb } from '../src/index.ts';
import { freshDatabase, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

/** A TCP proxy to PostgreSQL whose open connections the test can reset. */
async function proxyTo(url: string): Promise<{ url: string; reset(): void; close(): Promise<void> }> {
  const upstream = new URL(url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const db = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, db]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    client.pipe(db).pipe(client);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  const through = new URL(url);
  through.port = String(typeof address === 'object' && address ? address.port : 0);
  const reset = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: through.toString(),
    reset,
    close: () => {
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      reset();
      return closed;
    },
  };
}

describe('a PostgreSQL connection lost while lent out', () => {
  it('fails the work on it without an uncaught error, and serves new work on new connections', async () => {
    const proxy = await proxyTo(await freshDatabase());
    const handle = createPgDb(proxy.url);
    const uncaught: unknown[] = [];
    const note = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', note);
    try {
      const cut = handle.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        // The connection dies between two statements of the transaction, as in a restart.
        proxy.reset();
        await new Promise((r) => setTimeout(r, 200));
        await sql`select 2`.execute(trx);
      });
      await expect(cut).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      const { rows } = await sql<{ n: number }>`select 3 as n`.execute(handle.db);
      expect(rows).toEqual([{ n: 3 }]);
    } finally {
      process.off('uncaughtException', note);
      await handle.close();
      await proxy.close();
    }
  });
});
