/**
 * A bounded HTTP load generator on loopback: N keep-alive connections (an Agent with
 * maxSockets = N), each sending GETs back to back until the time or the request budget runs out.
 * `tsx bench/load.ts <url> [connections=64] [seconds=5] [maxRequests]` prints the figures as JSON.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export interface LoadResult {
  /** Requests answered 200 (the only ones timed). */
  requests: number;
  seconds: number;
  perSecond: number;
  /** Latency percentiles in milliseconds (NaN when nothing succeeded). */
  p50: number;
  p95: number;
  p99: number;
  /** Non-200 answers and socket errors. */
  errors: number;
}

export interface LoadOptions {
  headers?: Record<string, string>;
  /** Stop after this many requests in all (default: no limit, time alone bounds the run). */
  maxRequests?: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `url` may be a function of the request's number, for a URL of its own per request. */
export async function load(url: string | ((n: number) => string), connections: number, seconds: number, options: LoadOptions = {}): Promise<LoadResult> {
  const urlOf = typeof url === 'string' ? () => url : url;
  // A load generator aimed elsewhere would be a nuisance to someone; this one measures our own box.
  if (!LOOPBACK.has(new URL(urlOf(0)).hostname)) throw new Error(`load() only targets loopback, not ${urlOf(0)}`);
  if (!Number.isInteger(connections) || connections < 1) throw new Error('connections must be a positive integer');
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const headers = options.headers ?? {};
  const budget = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = (n: number) =>
    new Promise<void>((done) => {
      const t0 = performance.now();
      const req = http.get(urlOf(n), { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else errors++;
          done();
        });
      });
      req.on('error', () => {
        errors++;
        done();
      });
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline && sent < budget) {
        await one(sent++);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { requests: latencies.length, seconds: elapsed, perSecond: latencies.length / elapsed, p50: at(0.5), p95: at(0.95), p99: at(0.99), errors };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [url, connections = '64', seconds = '5', maxRequests] = process.argv.slice(2);
  if (url === undefined) {
    console.error('usage: tsx bench/load.ts <url> [connections=64] [seconds=5] [maxRequests]');
    process.exit(2);
  }
  const result = await load(url, Number(connections), Number(seconds), maxRequests === undefined ? {} : { maxRequests: Number(maxRequests) });
  console.log(JSON.stringify(result));
}
