/**
 * A PostgreSQL that stalls with statements already sent on open connections (stopped with
 * SIGSTOP, a host that drops packets), and statements PostgreSQL itself must stop: every one
 * ends within its bound, a transaction cut this way rolls back whole, and the pool lends no
 * connection left waiting on an answer.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDb, type DbHandle } from '../src/index.ts';
import { startFreezableProxy, throughProxy, type FreezableProxy } from './freezable-proxy.ts';
import { freshDatabase, sessionSettings, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const opened: { handle: DbHandle; proxy?: FreezableProxy }[] = [];
afterEach(async () => {
  for (const { handle, proxy } of opened.splice(0)) {
    proxy?.thaw();
    await handle.close();
    await proxy?.close();
  }
});

async function behindProxy(bounds: Parameters<typeof createPgDb>[1]) {
  const url = await freshDatabase();
  const target = new URL(url);
  const proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port) });
  const handle = createPgDb(throughProxy(url, proxy), bounds);
  opened.push({ handle, proxy });
  await sql`create table note (id int primary key)`.execute(handle.db);
  return { handle, proxy };
}

const notes = async (handle: DbHandle) => (await sql<{ id: number }>`select id from note order by id`.execute(handle.db)).rows.map((r) => r.id);

describe('a PostgreSQL that stalls', () => {
  it('fails statements already sent within the query timeout, and serves right answers once it resumes', async () => {
    const { handle, proxy } = await behindProxy({ queryTimeoutMs: 300, connectTimeoutMs: 300, maxConnections: 3 });
    // Three connections open and idle in the pool, as on a busy node.
    await Promise.all([1, 2, 3].map((n) => sql`select pg_sleep(0.05), ${n}::int`.execute(handle.db)));
    proxy.freeze();
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 14 }, (_, n) => sql<{ n: number }>`select ${n}::int as n`.execute(handle.db)));
    const took = Date.now() - started;
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: unknown; message?: unknown }) : null));
    // The three sent on open connections time out; the others find no connection in time.
    expect(codes.filter((e) => e?.code === 'ETIMEDOUT')).toHaveLength(3);
    expect(codes.filter((e) => typeof e?.message === 'string' && /timeout exceeded when trying to connect/.test(e.message))).toHaveLength(11);
    // Waiting in the pool's queue, then each its own connect timeout: at most a few bounds in all.
    expect(took).toBeLessThan(3_000);
    proxy.thaw();
    // Held answers now arrive on connections that were closed: each statement gets its own answer.
    const after = await Promise.all(Array.from({ length: 9 }, (_, n) => sql<{ n: number }>`select ${n}::int as n`.execute(handle.db)));
    expect(after.map((r) => r.rows[0]?.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('rolls a transaction back whole when one of its statements times out', async () => {
    const { handle, proxy } = await behindProxy({ queryTimeoutMs: 300, maxConnections: 1 });
    const cut = handle.db.transaction().execute(async (trx) => {
      await sql`insert into note values (1)`.execute(trx);
      proxy.freeze();
      await sql`insert into note values (2)`.execute(trx);
    });
    await expect(cut).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    proxy.thaw();
    // The one connection the pool may hold was dropped, not lent again: this one is new.
    expect(await notes(handle)).toEqual([]);
    await sql`insert into note values (3)`.execute(handle.db);
    expect(await notes(handle)).toEqual([3]);
  });
});

describe('statements PostgreSQL stops itself', () => {
  it('cancels a statement that runs past the statement timeout and keeps its connection', async () => {
    const { handle } = await behindProxy({ statementTimeoutMs: 200, queryTimeoutMs: 5_000, maxConnections: 1 });
    const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0]?.pid;
    const before = await pid();
    const started = Date.now();
    await expect(sql`select pg_sleep(3)`.execute(handle.db)).rejects.toMatchObject({ code: '57014' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await pid()).toBe(before);
  });

  it('ends a transaction left waiting on its client past the bound, rolled back', async () => {
    const { handle } = await behindProxy({ statementTimeoutMs: 200, queryTimeoutMs: 5_000, maxConnections: 1 });
    const abandoned = handle.db.transaction().execute(async (trx) => {
      await sql`insert into note values (1)`.execute(trx);
      await new Promise((r) => setTimeout(r, 600));
      await sql`insert into note values (2)`.execute(trx);
    });
    await expect(abandoned).rejects.toThrow();
    expect(await notes(handle)).toEqual([]);
  });

  it('leaves statements unbounded when no bound is given (the operator commands)', async () => {
    const { handle } = await behindProxy({});
    expect(await sessionSettings(handle.db, ['statement_timeout', 'idle_in_transaction_session_timeout'])).toEqual(['0', '0']);
  });
});
