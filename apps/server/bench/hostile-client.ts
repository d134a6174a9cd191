/**
 * The hostile mix's second client (bench/hostile.ts): pathological searches and, in the third
 * phase, the largest legal draft body and one near the 10 MiB limit, one after another.
 * Runs in the bench process, or as a process of its own (`tsx bench/hostile-client.ts <config>`:
 * prints `ready`, starts on a line from stdin, prints its calls as JSON when done), so it can be
 * given a lower priority than the generator measuring the cheap GETs beside it.
 */
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { largestLegalMetadata } from '@krs/domain/testing';

const nested = (levels: number) => {
  let q = 'glacier';
  for (let i = 0; i < levels; i++) q = `(${q} ${i % 2 === 0 ? 'OR' : 'AND'} flood)`;
  return q;
};
const COMMON = ['glacier', 'flood', 'mapping', 'sentinel', 'drought', 'monitoring', 'coastal', 'erosion', 'urban', 'heat', 'forest', 'deforestation', 'water', 'quality', 'soil', 'moisture'];

/**
 * GET /api/search for `q` at a URL no earlier request used: an anonymous listing is answered from
 * the kept answer until the next write (src/fast-path), and a client out to cost the server
 * varies its URLs, here with a parameter the server ignores, so every call does the query's work.
 */
let searches = 0;
export const searchUrl = (base: string, q: string) => `${base}/api/search?q=${encodeURIComponent(q)}&nonce=${searches++}`;

/** Each is a query string for GET /api/search. */
export const HOSTILE_QUERIES: [name: string, q: string][] = [
  ['20 unclosed groups', '(a '.repeat(20)],
  ['nesting, 20 levels', nested(20)],
  ['nesting, 8 levels', nested(8)],
  ['32 fuzzy terms', Array.from({ length: 32 }, (_, i) => `${(COMMON[i % COMMON.length] ?? 'x').slice(0, -1)}x~`).join(' OR ')],
  ['26 one-letter prefixes', Array.from({ length: 26 }, (_, i) => `${String.fromCharCode(97 + i)}*`).join(' OR ')],
  ['_exists_ on all', '_exists_:metadata.title OR _exists_:metadata.creators.person_or_org.name'],
  ['ranges', 'metadata.publication_date:[1900 TO 2100] OR created:[* TO *] OR versions.index:[1 TO 10]'],
  ['NOT a common word', '-data'],
  ['field query (evaluator)', 'metadata.description:the'],
  ['1000 characters', 'flood sentinel '.repeat(70)],
  ['special characters', '"(['.repeat(300)],
];

/** The costly ones of HOSTILE_QUERIES: each costs the engine tens of milliseconds to seconds at 100k records. */
const COSTLY = new Set(['32 fuzzy terms', '26 one-letter prefixes', '_exists_ on all', 'ranges', 'NOT a common word', 'field query (evaluator)']);

/** GET `url` from `localAddress` on `agent`'s kept connections: the answer's status, 0 for none. */
function statusOf(url: string, localAddress: string, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent, localAddress }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * A crowd of costly searches: `connections` at once, spread over the client `addresses` (as many
 * machines would send them), each sending them one after another until `stopAt`
 * (performance.now()). Answers by status.
 */
export async function searchCrowd(base: string, connections: number, stopAt: number, addresses: string[]): Promise<Record<string, number>> {
  const costly = HOSTILE_QUERIES.filter(([name]) => COSTLY.has(name));
  const statuses: Record<string, number> = {};
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const one = async (k: number) => {
    const address = addresses[k % addresses.length] as string;
    for (let i = k; performance.now() < stopAt; i++) {
      const [, q] = costly[i % costly.length] as [string, string];
      const status = await statusOf(searchUrl(base, q), address, agent);
      statuses[status] = (statuses[status] ?? 0) + 1;
      // A refusal (429) says to wait a second; the crowd keeps its connections busy at once instead.
      if (status === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, k) => one(k)));
  agent.destroy();
  return statuses;
}

/** The largest draft body the limits accept (docs/limits.md): stored, so its whole cost is paid. */
export const largestLegalBody = (): string => JSON.stringify({ metadata: largestLegalMetadata(), files: { enabled: false } });

/** A body just under the 10 MiB JSON limit with 20 000 creators and a long description: past the metadata limits, refused. */
export function oversizedBody(): string {
  const creators = Array.from({ length: 20_000 }, (_, i) => ({
    person_or_org: { type: 'personal', given_name: `Given${i}`, family_name: `Family name number ${i}` },
    affiliations: [{ name: `Institute of Earth Observation ${i % 97}` }],
  }));
  const metadata = { title: 'Maximal body', publication_date: '2024', resource_type: { id: 'dataset' }, creators, description: '' };
  const room = 10 * 1024 * 1024 - Buffer.byteLength(JSON.stringify({ metadata })) - 1024;
  metadata.description = '<p>Sentinel flood mapping over the delta. </p>'.repeat(Math.max(0, Math.floor(room / 46)));
  return JSON.stringify({ metadata });
}

export interface HostileCall {
  name: string;
  /** Answers by status (0: no answer). */
  statuses: Record<string, number>;
  slowestMs: number;
}

/** Sends the hostile calls one after another, round robin, until `stopAt` (performance.now()). */
export async function hostileClient(base: string, token: string, draftId: string | null, bodies: { legal: string; oversized: string }, stopAt: number): Promise<HostileCall[]> {
  const calls = new Map<string, HostileCall>();
  const record = (name: string, status: number, ms: number) => {
    const c = calls.get(name) ?? { name, statuses: {}, slowestMs: 0 };
    c.statuses[status] = (c.statuses[status] ?? 0) + 1;
    c.slowestMs = Math.max(c.slowestMs, ms);
    calls.set(name, c);
  };
  const steps: [string, () => Promise<Response>][] = HOSTILE_QUERIES.map(([name, q]) => [name, () => fetch(searchUrl(base, q))]);
  if (draftId !== null) {
    const put = (body: string) => (): Promise<Response> =>
      fetch(`${base}/api/records/${draftId}/draft`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
    // First in each round: the evaluator-only query takes seconds and would starve them.
    steps.unshift(['draft PUT, largest legal', put(bodies.legal)], ['draft PUT near 10 MiB (refused)', put(bodies.oversized)]);
  }
  for (let i = 0; performance.now() < stopAt; i++) {
    const [name, call] = steps[i % steps.length] as [string, () => Promise<Response>];
    const t0 = performance.now();
    try {
      const res = await call();
      await res.arrayBuffer();
      record(name, res.status, performance.now() - t0);
    } catch {
      record(name, 0, performance.now() - t0);
    }
  }
  return [...calls.values()];
}

/** What a client process is told: where to send, as whom, and for how long once started. */
export interface HostileClientConfig {
  base: string;
  token: string;
  draftId: string | null;
  seconds: number;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const config = JSON.parse(process.argv[2] ?? '{}') as HostileClientConfig;
  const bodies = { legal: largestLegalBody(), oversized: oversizedBody() };
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) => lines.once('line', () => resolve()));
  console.log('ready');
  await go;
  lines.close();
  console.log(JSON.stringify(await hostileClient(config.base, config.token, config.draftId, bodies, performance.now() + config.seconds * 1000)));
}
