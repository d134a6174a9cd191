/**
 * The baseline for writes: a bare node:http server that, per request, reads the body, parses it
 * as JSON when there is one, inserts one row holding it into a SQLite file and answers only once
 * that row is durable, with the very bytes krs answered for the same kind of request. Durability
 * is krs's own: WAL, synchronous=NORMAL, and before each answer an fdatasync of the WAL file on
 * the thread pool, coalesced by the same code (`walSyncer`), so concurrent requests share
 * fsyncs. Each request is its own autocommit INSERT: no batching beyond what the fsync shares.
 * `tsx bench/plain-write-server.ts <port> <db file> <answers.json>` prints `listening on <port>`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Sqlite } from '../../../packages/adapters/src/sql/sqlite-driver.ts';
import { walSyncer } from '../../../packages/adapters/src/sql/wal-syncer.ts';

export interface WriteAnswer {
  status: number;
  type: string;
  /** base64 */
  body: string;
}

/** What krs answered to a create and to a publish, captured once before the runs. */
export interface WriteAnswers {
  create: WriteAnswer;
  publish: WriteAnswer;
}

export function startPlainWriteServer(port: number, dbFile: string, answers: WriteAnswers): Promise<http.Server> {
  const db = new Sqlite(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('create table if not exists write (id integer primary key, path text not null, body text)');
  const insert = db.prepare('insert into write (path, body) values (?, ?)');
  const { sync } = walSyncer(`${dbFile}-wal`);
  const bytes = (a: WriteAnswer) => ({ status: a.status, type: a.type, body: Buffer.from(a.body, 'base64') });
  const create = bytes(answers.create);
  const publish = bytes(answers.publish);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? null : JSON.parse(text);
      insert.run(req.url ?? '', body === null ? null : text);
      const answer = req.url?.endsWith('/actions/publish') ? publish : create;
      sync().then(
        () => {
          res.writeHead(answer.status, { 'content-type': answer.type, 'content-length': answer.body.length });
          res.end(answer.body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, dbFile, answersFile] = process.argv.slice(2);
  if (dbFile === undefined || answersFile === undefined) throw new Error('usage: plain-write-server.ts <port> <db file> <answers.json>');
  const answers = JSON.parse(readFileSync(answersFile, 'utf8')) as WriteAnswers;
  const server = await startPlainWriteServer(Number(port), dbFile, answers);
  console.log(`listening on ${(server.address() as AddressInfo).port}`);
}
