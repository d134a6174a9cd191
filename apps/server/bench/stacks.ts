/**
 * Both stacks side by side: the embedded one (SQLite and files, one server) and PostgreSQL + S3
 * (one node, then two behind a round-robin balancer), on the same scenarios.
 *  1. `GET /api/records/{id}` (published, public) under `wrk`, with the CPU each process and each
 *     core used, and the balancer's own cost measured in front of a plain node:http server.
 *  2. A large upload through `PUT .../content` into files and into S3 (s3rver), MiB/s and the
 *     server's extra RSS.
 *   `tsx bench/stacks.ts [seconds]` runs it alone (`BENCH_UPLOAD_MIB`, default 1024, sizes the
 *   upload; `BENCH_STACKS_ROUNDS`, default 3, the rounds of GETs).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureCpu, type CpuUse } from './cpu.ts';
import { cpuQuotaFor, type CpuQuota } from './cpu-quota.ts';
import { seedHotPaths } from './http.ts';
import type { CapturedAnswer } from './plain-server.ts';
import { startPostgresS3Stack } from './postgres-s3-stack.ts';
import { serverDir, start, startCompiled, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';
import { measureUpload, type UploadResult } from './upload.ts';
import { hasWrk, keepOffGeneratorCore, pinned, pinToServerCores, placement, wrk, type WrkResult } from './wrk.ts';

const CONNECTIONS = 64;
/** Two nodes behind the balancer against one node alone. */
const SCALING_TARGET = 1.6;
/** The server's RSS over its start during the upload into S3. */
const UPLOAD_EXTRA_RSS_TARGET_MIB = 64;
/** Above this share of a core, the generator, not the servers, may be what limits a run. */
const GENERATOR_LIMIT = 0.9;
/**
 * The share of a core each node is held to when nodes are compared under CPU quotas: small enough
 * that two nodes and PostgreSQL's backends for them fit the servers' core(s) of a two-core machine.
 */
const NODE_QUOTA = 0.25;

interface Node {
  base: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
}

interface Run {
  name: string;
  result: WrkResult;
  cpu: CpuUse;
}

/** Undoes what was started, last first, whatever failed on the way. */
class Cleanup {
  private readonly steps: (() => Promise<void> | void)[] = [];
  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step();
  }
}

const pidOf = (child: ChildProcess): number => child.pid ?? 0;

/** What each half of the part reports: its lines, and its rows of the summary table. */
interface Report {
  lines: string[];
  rows: SummaryRow[];
}

/** A figure of the part beside its baseline as a summary row; `target` only where the part sets one. */
function ratioRow(scenario: string, krs: string, baseline: string, ratio: string | null, target?: { text: string; met: boolean }, note?: string): SummaryRow {
  return {
    part: 'stacks',
    scenario,
    krs,
    plain: baseline,
    ratio,
    target: target?.text ?? '-',
    met: target?.met ?? null,
    ...(note === undefined ? {} : { note }),
  };
}

async function startNode(port: number, shared: Record<string, string>, cleanup: Cleanup, pin: boolean): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bench-stacks-'));
  cleanup.add(() => rmSync(dataDir, { recursive: true, force: true }));
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, ...shared, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  const { child } = await startCompiled(env, pin ? pinned : undefined);
  cleanup.add(() => stop(child));
  return { base, env, child };
}

const createToken = (node: Node): string =>
  execFileSync(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'bench@example.org'], { cwd: serverDir, env: node.env, encoding: 'utf8' }).trim();

/** A bench script (the balancer, the plain server) as a process of its own on the servers' cores. */
async function startHelper(args: string[], cleanup: Cleanup): Promise<ChildProcess> {
  const { child } = await start(args, process.env);
  pinToServerCores(pidOf(child));
  cleanup.add(() => stop(child));
  return child;
}

/**
 * A wrk script giving each of wrk's threads one of the nodes in turn: the connections split over
 * the nodes as DNS round-robin or a balancer in front would split them, at no cost on the
 * servers' core(s).
 */
function spreadScript(dir: string, ports: number[]): string {
  const file = join(dir, `spread-${ports.join('-')}.lua`);
  writeFileSync(
    file,
    [
      `local ports = { ${ports.map((p) => `"${p}"`).join(', ')} }`,
      'local made = 0',
      'function setup(thread)',
      '  thread.addr = wrk.lookup("127.0.0.1", ports[made % #ports + 1])[1]',
      '  made = made + 1',
      'end',
      '',
    ].join('\n'),
  );
  return file;
}

/** A 1 s warm-up, then the measured run; `pids` is asked after the warm-up, once PostgreSQL has its backends. */
async function load(s: Scenario, seconds: number): Promise<Run> {
  const options = { connections: CONNECTIONS, ...(s.spread === undefined ? {} : { script: s.spread, threads: 2 }) };
  s.quotas?.forEach((q) => q.set(NODE_QUOTA));
  try {
    await wrk(s.url, { ...options, seconds: 1 });
    // The bench process itself reads every server's log lines (one per request) from a pipe.
    const cpuSpan = measureCpu({ ...s.pids(), 'bench (log reader)': [process.pid] });
    const result = await wrk(s.url, { ...options, seconds });
    return { name: s.name, result, cpu: cpuSpan() };
  } finally {
    s.quotas?.forEach((q) => q.set(null));
  }
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function describeRun(r: Run): string[] {
  const { perSecond, p50, p99, errors, generatorCpu } = r.result;
  const processes = Object.entries(r.cpu.groups).map(([name, share]) => `${name} ${pct(share)}`);
  // Whatever the cores did beyond the processes named: the kernel's share of the loopback
  // traffic, and anything else running on the machine meanwhile.
  const named = Object.values(r.cpu.groups).reduce((sum, share) => sum + share, generatorCpu);
  const other = Math.max(0, r.cpu.cores.reduce((sum, c) => sum + c, 0) - named);
  const flag = generatorCpu > GENERATOR_LIMIT ? '  FLAGGED: the generator may be the limit' : '';
  return [
    `  ${r.name.padEnd(47)} ${perSecond.toFixed(0).padStart(6)} req/s  p50 ${p50.toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  errors ${errors}`,
    `    CPU: ${[...processes, `generator ${pct(generatorCpu)}`, `other ${pct(other)}`].join(', ')}; cores ${r.cpu.cores.map((c, i) => `${i}: ${pct(c)}`).join(', ')}${flag}`,
  ];
}

interface Scenario {
  name: string;
  url: string;
  /** Asked after each warm-up, once PostgreSQL has its backends. */
  pids: () => Record<string, number[]>;
  /** A wrk script spreading the connections over nodes, with a thread per node. */
  spread?: string;
  /** Quotas held at NODE_QUOTA for the scenario's runs. */
  quotas?: CpuQuota[];
}

/** What the cores do over a second while nothing of the bench runs: other work on the machine. */
async function backgroundLoad(): Promise<number> {
  const idle = measureCpu({});
  await new Promise((r) => setTimeout(r, 1000));
  return idle().cores.reduce((sum, c) => sum + c, 0);
}

/** The run with the median rate of a scenario's rounds, with the range of all of them. */
function median(runs: Run[]): { run: Run; low: number; high: number } {
  const sorted = [...runs].sort((x, y) => x.result.perSecond - y.result.perSecond);
  return { run: sorted[Math.floor((sorted.length - 1) / 2)] as Run, low: sorted[0]?.result.perSecond ?? 0, high: sorted[sorted.length - 1]?.result.perSecond ?? 0 };
}

/**
 * Every set-up is started first and left running, then the scenarios take turns for `rounds`
 * rounds, and each reports its median round: work elsewhere on the machine then weighs on all of
 * them alike instead of on whichever ran while it did. Before each round the cores are measured
 * for a second with nothing of the bench running, so a busy machine shows in the figures.
 */
async function recordGets(seconds: number, rounds: number, cleanup: Cleanup): Promise<Report> {
  // (a) The embedded stack.
  const embedded = await startNode(3920, {}, cleanup, true);
  const { record } = await seedHotPaths(embedded.base, createToken(embedded));
  const path = `/api/records/${record}`;
  const answer = await fetch(`${embedded.base}${path}`);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
  const captured: CapturedAnswer = { type: answer.headers.get('content-type') ?? 'application/json', body: Buffer.from(await answer.arrayBuffer()).toString('base64') };

  // (b) and (c): PostgreSQL + S3, one node alone, one node behind the balancer, two behind it.
  const stack = await startPostgresS3Stack();
  cleanup.add(() => stack.stop());
  const a = await startNode(3921, stack.env, cleanup, true);
  const b = await startNode(3922, stack.env, cleanup, true);
  const { record: shared } = await seedHotPaths(a.base, createToken(a));
  const sharedPath = `/api/records/${shared}`;
  const soloBalancer = await startHelper(['bench/round-robin-balancer.ts', '3923', '3921'], cleanup);
  const pairBalancer = await startHelper(['bench/round-robin-balancer.ts', '3924', '3921', '3922'], cleanup);

  // The balancer's own cost, in front of a server that does nothing else.
  const answersDir = mkdtempSync(join(tmpdir(), 'krs-bench-stacks-plain-'));
  cleanup.add(() => rmSync(answersDir, { recursive: true, force: true }));
  const answersFile = join(answersDir, 'answers.json');
  writeFileSync(answersFile, JSON.stringify({ [path]: captured }));
  const plain = await startHelper(['bench/plain-server.ts', '3925', answersFile], cleanup);
  const plainBalancer = await startHelper(['bench/round-robin-balancer.ts', '3926', '3925'], cleanup);
  // Each node in a cgroup of its own, unlimited but for the quota scenarios' runs.
  const quotas = [a, b].flatMap((node, i) => {
    const quota = cpuQuotaFor(pidOf(node.child), `krs-bench-${process.pid}-node-${i}`);
    if (quota !== null) cleanup.add(() => quota.remove());
    return quota === null ? [] : [quota];
  });
  const [quotaA, quotaB] = quotas;
  const held = quotaA !== undefined && quotaB !== undefined ? { a: quotaA, b: quotaB } : null;
  const quarter = `${NODE_QUOTA} of a core`;

  const scenarios: Scenario[] = [
    { name: 'embedded (SQLite + files), one server', url: `${embedded.base}${path}`, pids: () => ({ server: [pidOf(embedded.child)] }) },
    { name: 'PostgreSQL + S3, one node', url: `${a.base}${sharedPath}`, pids: () => ({ node: [pidOf(a.child)], postgres: stack.postgresPids() }) },
    {
      name: 'PostgreSQL + S3, one node behind the balancer',
      url: `http://127.0.0.1:3923${sharedPath}`,
      pids: () => ({ node: [pidOf(a.child)], balancer: [pidOf(soloBalancer)], postgres: stack.postgresPids() }),
    },
    {
      name: 'PostgreSQL + S3, two nodes behind the balancer',
      url: `http://127.0.0.1:3924${sharedPath}`,
      pids: () => ({ 'node A': [pidOf(a.child)], 'node B': [pidOf(b.child)], balancer: [pidOf(pairBalancer)], postgres: stack.postgresPids() }),
    },
    { name: 'plain node:http server', url: `http://127.0.0.1:3925${path}`, pids: () => ({ plain: [pidOf(plain)] }) },
    { name: 'plain node:http server behind the balancer', url: `http://127.0.0.1:3926${path}`, pids: () => ({ plain: [pidOf(plain)], balancer: [pidOf(plainBalancer)] }) },
    ...(held === null
      ? []
      : [
          {
            name: `PostgreSQL + S3, one node held to ${quarter}`,
            url: `${a.base}${sharedPath}`,
            pids: () => ({ node: [pidOf(a.child)], postgres: stack.postgresPids() }),
            spread: spreadScript(answersDir, [3921]),
            quotas: [held.a],
          },
          {
            name: `PostgreSQL + S3, two nodes held to ${quarter} each`,
            url: `${a.base}${sharedPath}`,
            pids: () => ({ 'node A': [pidOf(a.child)], 'node B': [pidOf(b.child)], postgres: stack.postgresPids() }),
            spread: spreadScript(answersDir, [3921, 3922]),
            quotas: [held.a, held.b],
          },
        ]),
  ];
  const byScenario: Run[][] = scenarios.map(() => []);
  const background: number[] = [];
  for (let round = 0; round < rounds; round++) {
    background.push(await backgroundLoad());
    for (const [i, s] of scenarios.entries()) byScenario[i]?.push(await load(s, seconds));
  }

  const medians = byScenario.map(median);
  const rate = (i: number) => medians[i]?.run.result.perSecond ?? Number.NaN;
  const [embeddedRate, oneRate, behindOneRate, twoRate, plainRate, plainBehindRate] = [rate(0), rate(1), rate(2), rate(3), rate(4), rate(5)];
  const sharedScaling = twoRate / oneRate;
  // Under quotas, the nodes are what limits each run, not the core they share; without quotas the
  // target falls back to the nodes on shared cores, which needs a core per node to mean anything.
  const [oneHeldRate, twoHeldRate] = [rate(6), rate(7)];
  const targetRuns = held === null ? [1, 3] : [6, 7];
  const scaling = held === null ? sharedScaling : twoHeldRate / oneHeldRate;
  const where = placement ? `servers, balancers and PostgreSQL on core(s) ${placement.servers}, wrk on core ${placement.generator}` : 'nothing pinned (one core, or no taskset)';
  const scalingNotes = targetRuns.flatMap((i) => {
    const run = medians[i]?.run;
    const name = scenarios[i]?.name ?? '';
    const nodeShares = Object.entries(run?.cpu.groups ?? {}).filter(([group]) => group.startsWith('node'));
    return [
      ...((run?.result.errors ?? 0) > 0 ? [`${name}: ${run?.result.errors} errors`] : []),
      ...((run?.result.generatorCpu ?? 0) > GENERATOR_LIMIT ? [`${name}: the generator may be the limit`] : []),
      // A node short of its quota was held back by something else (PostgreSQL, the shared core).
      ...(held !== null && nodeShares.some(([, share]) => share < NODE_QUOTA * 0.9) ? [`${name}: a node used less than 90% of its quota`] : []),
    ];
  });
  const perSecond = (rate: number, what: string) => `${rate.toFixed(0)} req/s ${what}`;
  const target = { text: `>= ${SCALING_TARGET}x`, met: scaling >= SCALING_TARGET };
  const notes = scalingNotes.length > 0 ? scalingNotes.join('; ') : undefined;
  const rows = [
    held === null
      ? ratioRow('record GET: two nodes / one node (PostgreSQL + S3), no CPU quota here', perSecond(twoRate, 'two nodes'), perSecond(oneRate, 'one node'), `${scaling.toFixed(2)}x`, target, notes)
      : ratioRow(
          `record GET: two nodes / one node, each held to ${quarter} (PostgreSQL + S3)`,
          perSecond(twoHeldRate, 'two nodes'),
          perSecond(oneHeldRate, 'one node'),
          `${scaling.toFixed(2)}x`,
          target,
          notes,
        ),
    ...(held === null ? [] : [ratioRow('record GET: two nodes / one node on shared core(s), no quota', perSecond(twoRate, 'two nodes'), perSecond(oneRate, 'one node'), `${sharedScaling.toFixed(2)}x`)]),
    ratioRow('record GET: two nodes / one node, both behind the balancer', perSecond(twoRate, 'two nodes'), perSecond(behindOneRate, 'one node'), `${(twoRate / behindOneRate).toFixed(2)}x`),
    ratioRow('record GET: PostgreSQL + S3 one node / embedded', perSecond(oneRate, 'PostgreSQL + S3'), perSecond(embeddedRate, 'embedded'), `${(oneRate / embeddedRate).toFixed(2)}x`),
    ratioRow('record GET: plain server behind the balancer / alone', perSecond(plainBehindRate, 'behind'), perSecond(plainRate, 'alone'), pct(plainBehindRate / plainRate)),
  ];
  const lines = [
    `GET /api/records/{id} on both stacks (wrk -t1 -c${CONNECTIONS} -d${seconds}s, -t2 where a script spreads connections over nodes; median of ${rounds} rounds taken in turn; servers from dist/; ${where})`,
    `  background, nothing of the bench running: ${background.map(pct).join(', ')} of a core before each round`,
    ...medians.flatMap(({ run, low, high }) => [...describeRun(run), `    rounds ${low.toFixed(0)}-${high.toFixed(0)} req/s`]),
    `  PostgreSQL + S3 one node / embedded: ${(oneRate / embeddedRate).toFixed(2)}x`,
    held === null
      ? `  no CPU quota could be set (cgroups need root and a writable cgroup file system): the target compares nodes sharing core(s) ${placement?.servers ?? '0'}`
      : `  two nodes / one node, each held to ${quarter}, connections spread by wrk: ${scaling.toFixed(2)}x (target >= ${SCALING_TARGET}x: ${target.met ? 'met' : 'NOT met'})`,
    `  two nodes / one node on shared core(s): ${sharedScaling.toFixed(2)}x${held === null ? ` (target >= ${SCALING_TARGET}x: ${target.met ? 'met' : 'NOT met'})` : ''}; both behind the balancer: ${(twoRate / behindOneRate).toFixed(2)}x`,
    ...(notes === undefined ? [] : [`  ${notes}`]),
    `  the balancer alone keeps ${pct(plainBehindRate / plainRate)} of a plain server's rate`,
  ];
  return { lines, rows };
}

interface UploadRun {
  name: string;
  upload: UploadResult;
  cpu: CpuUse;
}

async function uploads(mib: number, cleanup: Cleanup): Promise<Report> {
  const total = mib * 1024 * 1024;
  // Not pinned, as bench/run.ts measures the upload: the client, the server and s3rver share both cores.
  const fs = await startNode(3927, {}, cleanup, false);
  const fsToken = createToken(fs);
  const fsBackground = await backgroundLoad();
  const fsSpan = measureCpu({ server: [pidOf(fs.child)], 'bench (client)': [process.pid] });
  const onFiles: UploadRun = { name: 'files (embedded)', upload: await measureUpload(fs.base, fsToken, pidOf(fs.child), total), cpu: fsSpan() };
  await stop(fs.child);

  const stack = await startPostgresS3Stack('krs-bench-upload');
  cleanup.add(() => stack.stop());
  const s3 = await startNode(3928, stack.env, cleanup, false);
  const s3Token = createToken(s3);
  const s3Background = await backgroundLoad();
  const s3Span = measureCpu({ server: [pidOf(s3.child)], s3rver: stack.s3Pids(), postgres: stack.postgresPids(), 'bench (client)': [process.pid] });
  const onS3: UploadRun = { name: 'S3 (s3rver, PostgreSQL)', upload: await measureUpload(s3.base, s3Token, pidOf(s3.child), total), cpu: s3Span() };
  await stop(s3.child);

  const line = (r: UploadRun) => {
    const { mibPerSecond, rssBefore, rssPeak } = r.upload;
    const cpu = Object.entries(r.cpu.groups).map(([name, share]) => `${name} ${pct(share)}`);
    return `  ${r.name.padEnd(24)} ${mibPerSecond.toFixed(0).padStart(4)} MiB/s  server RSS ${rssBefore.toFixed(0)} MiB before, peak ${rssPeak.toFixed(0)} MiB (+${(rssPeak - rssBefore).toFixed(0)} MiB)  CPU: ${cpu.join(', ')}`;
  };
  const extra = (r: UploadRun) => r.upload.rssPeak - r.upload.rssBefore;
  const rows = [
    ratioRow(
      `upload ${mib} MiB: S3 / files`,
      `${onS3.upload.mibPerSecond.toFixed(0)} MiB/s S3`,
      `${onFiles.upload.mibPerSecond.toFixed(0)} MiB/s files`,
      pct(onS3.upload.mibPerSecond / onFiles.upload.mibPerSecond),
    ),
    ratioRow(`upload ${mib} MiB into S3: extra server RSS`, `+${extra(onS3).toFixed(0)} MiB`, `+${extra(onFiles).toFixed(0)} MiB files`, null, {
      text: `< ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB`,
      met: extra(onS3) < UPLOAD_EXTRA_RSS_TARGET_MIB,
    }),
  ];
  const lines = [
    `Upload of ${mib} MiB through PUT .../content, streamed (nothing pinned; background before each: ${pct(fsBackground)}, ${pct(s3Background)} of a core)`,
    line(onFiles),
    line(onS3),
    `  ratio S3/files ${pct(onS3.upload.mibPerSecond / onFiles.upload.mibPerSecond)}; extra RSS S3 ${extra(onS3).toFixed(0)} MiB against ${extra(onFiles).toFixed(0)} MiB (target < ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB: ${extra(onS3) < UPLOAD_EXTRA_RSS_TARGET_MIB ? 'met' : 'NOT met'})`,
  ];
  return { lines, rows };
}

export async function stacksBench(seconds: number, uploadMib: number, rounds = 3): Promise<PartResult> {
  if (!hasWrk()) {
    const skipped = '`wrk` is not installed (Debian: apt-get install wrk)';
    return { text: `Both stacks: skipped, ${skipped}.`, rows: [], skipped };
  }
  keepOffGeneratorCore();
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: serverDir, stdio: 'inherit' });
  const cleanup = new Cleanup();
  try {
    const gets = await recordGets(seconds, rounds, cleanup);
    await cleanup.run();
    const upload = await uploads(uploadMib, cleanup);
    return { text: [...gets.lines, ...upload.lines].join('\n'), rows: [...gets.rows, ...upload.rows] };
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await stacksBench(Number(process.argv[2] ?? 5), Number(process.env['BENCH_UPLOAD_MIB'] ?? 1024), Number(process.env['BENCH_STACKS_ROUNDS'] ?? 3))).text);
}
