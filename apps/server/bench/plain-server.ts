/**
 * The baseline: a bare node:http server answering a fixed JSON body of a similar size to a record,
 * so the benchmark's ratio measures what krs adds over Node itself.
 * `tsx bench/plain-server.ts [port]` serves on 127.0.0.1 and prints `listening on <port>`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

const body = JSON.stringify({ id: 'abcde-fghij', metadata: { title: 'x'.repeat(1500) }, links: {} });

/** Starts the server on loopback; port 0 picks a free one (read it from `server.address()`). */
export function startPlainServer(port: number): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startPlainServer(Number(process.argv[2] ?? 3901));
  // bench/run.ts waits for this line before loading the server.
  console.log(`listening on ${(server.address() as AddressInfo).port}`);
}
