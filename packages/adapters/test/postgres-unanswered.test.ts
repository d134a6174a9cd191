/** A PostgreSQL that takes connections and never answers (a stalled server, a host dropping packets): queries fail in bounded time. */
import { createServer, type Socket } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createPgDb } from '../src/index.ts';

describe('a PostgreSQL that never answers', () => {
  it('fails a query once no connection could be had within the connect timeout, rather than waiting for ever', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    const port = await new Promise<number>((ok) =>
      silent.listen(0, '127.0.0.1', () => {
        const a = silent.address();
        ok(typeof a === 'object' && a ? a.port : 0);
      }),
    );
    const handle = createPgDb(`postgres://krs:krs@127.0.0.1:${port}/krs`, { connectTimeoutMs: 300 });
    try {
      const started = Date.now();
      await expect(sql`select 1`.execute(handle.db)).rejects.toThrow(/connection timeout|timeout exceeded when trying to connect/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      for (const s of held) s.destroy();
      silent.close();
      await handle.close();
    }
  });
});
