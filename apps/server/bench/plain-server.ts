/**
 * The baseline: a bare node:http server answering fixed bytes, so each ratio measures what krs
 * adds over Node itself. Given a JSON file of captured answers (`{ "<path>": { "type": ..., "body":
 * <base64> } }`), it answers each path with exactly the bytes krs gave for it: every scenario is
 * compared with its own plain equivalent. Without one, every path gets a JSON body the size of a
 * record.
 * `tsx bench/plain-server.ts [port] [answers.json]` serves on 127.0.0.1 and prints `listening on <port>`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface CapturedAnswer {
  type: string;
  /** base64 */
  body: string;
}

const fallback = { type: 'application/json', body: Buffer.from(JSON.stringify({ id: 'abcde-fghij', metadata: { title: 'x'.repeat(1500) }, links: {} })) };

/** Starts the server on loopback; port 0 picks a free one (read it from `server.address()`). */
export function startPlainServer(port: number, answers: Record<string, CapturedAnswer> = {}): Promise<http.Server> {
  const byPath = new Map(Object.entries(answers).map(([path, a]) => [path, { type: a.type, body: Buffer.from(a.body, 'base64') }]));
  const server = http.createServer((req, res) => {
    const answer = byPath.get(req.url ?? '') ?? fallback;
    res.writeHead(200, { 'content-type': answer.type, 'content-length': answer.body.length });
    res.end(answer.body);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[3];
  const answers = file === undefined ? {} : (JSON.parse(readFileSync(file, 'utf8')) as Record<string, CapturedAnswer>);
  const server = await startPlainServer(Number(process.argv[2] ?? 3901), answers);
  // bench/run.ts waits for this line before loading the server.
  console.log(`listening on ${(server.address() as AddressInfo).port}`);
}
