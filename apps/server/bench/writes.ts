/**
 * Writes over HTTP with 16 concurrent writers, each next to a plain node:http server doing the
 * same durable work per request (bench/plain-write-server.ts), both driven by `wrk` with a Lua
 * script in the same run. The server runs from compiled JavaScript on a fresh data dir (SQLite +
 * files + FTS5), with the test vocabularies' resource types imported through the CLI.
 *   (a) POST /api/records: a metadata-only draft with a realistic body, a distinct title each.
 *   (b) POST /api/records/{id}/draft/actions/publish: each request publishes another of the
 *       drafts (a) created, so every publish does the full work once.
 * Both are measured after a warm-up (`WARM_CREATES`). Server CPU per request is the server's
 * utime+stime (/proc) over the run divided by the requests: unlike requests/s, it hardly moves
 * with other load on the machine.
 *   `tsx bench/writes.ts [seconds]` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuTicks, TICKS_PER_SECOND } from './cpu.ts';
import type { WriteAnswer, WriteAnswers } from './plain-write-server.ts';
import { serverDir, start, startCompiled, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';
import { hasWrk, keepOffGeneratorCore, pinned, wrk, type WrkResult } from './wrk.ts';

const WRITERS = 16;
const TARGETS = { create: 1000, publish: 300 } as const;
/**
 * Creates made before the measured ones. The server starts cold: for its first few thousand
 * requests V8 is still compiling the hot functions on threads of its own and runs them
 * unoptimised meanwhile, which a run measured after a second of warm-up counted as what a create
 * costs (about 1.45 against 1.0 ms of CPU per create measured after 12 s, load 18). Warmed for a
 * count, not a time, so a loaded machine, whose server makes fewer creates a second, is not
 * measured colder. Bounded in time all the same.
 */
const WARM_CREATES = 5_000;
const WARM_SECONDS_AT_MOST = 20;
/** Publishes have their own code beyond a create's, warmed by a sixth of the drafts for this long. */
const WARM_PUBLISH_SECONDS = 3;
/** Above this share of a core, the generator, not the server, may be what limits a run. */
const GENERATOR_LIMIT = 0.9;
const vocabularies = resolve(serverDir, '../../packages/domain/test/fixtures/vocabularies');

/** A deposit as the web form sends it; `__N__` becomes a number distinct per request. */
export const createBody = JSON.stringify({
  metadata: {
    title: 'Flood extent maps of the Niger delta from Sentinel-1, season __N__',
    publication_date: '2024-06-01',
    // From the imported test vocabulary, not the shipped defaults.
    resource_type: { id: 'user-story' },
    description:
      '<p>Flood extent maps derived from Sentinel-1 backscatter for the wet seasons 2019-2023, validated against field surveys by state emergency agencies. Each map marks open water and flooded vegetation at 20 m.</p>',
    creators: [
      {
        person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
        affiliations: [{ name: 'University of Lagos' }],
      },
      { person_or_org: { type: 'personal', given_name: 'Kwame', family_name: 'Mensah' }, affiliations: [{ name: 'University of Ghana' }] },
      { person_or_org: { type: 'organizational', name: 'Nigeria Hydrological Services Agency' } },
    ],
    subjects: [{ subject: 'flood' }, { subject: 'SAR' }, { subject: 'Sentinel-1' }],
    languages: [{ id: 'eng' }],
  },
  access: { record: 'public', files: 'public' },
  files: { enabled: false },
});

const lua = (text: string) => JSON.stringify(text);

/** Creates, each with its own title; every created id is appended to `idsFile`. */
export function createScript(token: string, idsFile: string): string {
  const [head, tail] = createBody.split('__N__') as [string, string];
  return `
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = ${lua(`Bearer ${token}`)}
local head, tail = ${lua(head)}, ${lua(tail)}
local n = 0
local out = io.open(${lua(idsFile)}, "a")
out:setvbuf("line")
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, head .. n .. tail)
end
response = function(status, headers, body)
  local id = status == 201 and body:match('^{"id":"([^"]+)"')
  if id then out:write(id, "\\n") end
end
`;
}

/** One publish per id of `idsFile`, in order; past the last, ids that do not exist (404s). */
export function publishScript(token: string, idsFile: string): string {
  return `
wrk.method = "POST"
wrk.headers["Authorization"] = ${lua(`Bearer ${token}`)}
local ids = {}
for line in io.lines(${lua(idsFile)}) do ids[#ids + 1] = line end
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, "/api/records/" .. (ids[i] or "none") .. "/draft/actions/publish")
end
`;
}

interface Run {
  result: WrkResult;
  /** Server CPU milliseconds per request. */
  cpuPerRequest: number;
}

async function measured(pid: number, url: string, script: string, seconds: number): Promise<Run> {
  const before = cpuTicks(pid);
  const result = await wrk(url, { connections: WRITERS, seconds, script });
  const ms = ((cpuTicks(pid) - before) / TICKS_PER_SECOND) * 1000;
  return { result, cpuPerRequest: ms / result.requests };
}

async function answerOf(res: Response): Promise<WriteAnswer> {
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${body.toString()}`);
  return { status: res.status, type: res.headers.get('content-type') ?? 'application/json', body: body.toString('base64') };
}

/** Other benchmarks may hold the usual ports on a shared machine. */
function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => ok(port));
    });
  });
}

const readIds = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export async function writesBench(seconds: number): Promise<PartResult> {
  if (!hasWrk()) {
    const skipped = '`wrk` is not installed (Debian: apt-get install wrk)';
    return { text: `Writes: skipped, ${skipped}.`, rows: [], skipped };
  }
  keepOffGeneratorCore();
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bench-writes-'));
  // BENCH_WRITES_PORT and the one after it, when set; otherwise ports the system picks.
  const fixed = process.env['BENCH_WRITES_PORT'];
  const port = fixed !== undefined ? Number(fixed) : await freePort();
  const plainPort = fixed !== undefined ? port + 1 : await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: serverDir, stdio: 'inherit' });
  const cli = (...args: string[]) => execFileSync(tsx, ['src/cli.ts', ...args], { cwd: serverDir, env, encoding: 'utf8' }).trim();
  const token = cli('tokens', 'create', '--user', 'bench@example.org');
  cli('vocabularies', 'import', 'resource_types', join(vocabularies, 'resources/resource_types.yaml'));
  const auth = { authorization: `Bearer ${token}` };
  const file = (name: string, text: string) => (writeFileSync(join(dataDir, name), text), join(dataDir, name));
  const ids = file('ids.txt', '');
  const loadBefore = loadAverage();
  const { child: server } = await startCompiled(env, pinned);
  let krs: { create: Run; publish: Run; drafts: number };
  let answers: WriteAnswers;
  try {
    const created = await fetch(`${base}/api/records`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: createBody.replace('__N__', '0') });
    const create = await answerOf(created);
    const firstId = (JSON.parse(Buffer.from(create.body, 'base64').toString()) as { id: string }).id;
    answers = { create, publish: await answerOf(await fetch(`${base}/api/records/${firstId}/draft/actions/publish`, { method: 'POST', headers: auth })) };
    const creating = file('create.lua', createScript(token, ids));
    const warming = performance.now();
    while (readIds(ids).length < WARM_CREATES && performance.now() - warming < WARM_SECONDS_AT_MOST * 1000) {
      await wrk(`${base}/api/records`, { connections: WRITERS, seconds: 1, script: creating });
    }
    const createRun = await measured(server.pid ?? 0, `${base}/api/records`, creating, seconds);
    // As many drafts again, untimed: the publish run has about twice what the create run made
    // (and the warm-up's), enough while publishing is up to about 1.7 times as fast as creating.
    // The warm-up publishes a sixth of them.
    await wrk(`${base}/api/records`, { connections: WRITERS, seconds, script: creating });
    const drafts = readIds(ids);
    const warmCount = Math.floor(drafts.length / 6);
    const warm = file('publish-warm.lua', publishScript(token, file('ids-warm.txt', drafts.slice(0, warmCount).join('\n'))));
    await wrk(base, { connections: WRITERS, seconds: WARM_PUBLISH_SECONDS, script: warm });
    const publishing = file('publish.lua', publishScript(token, file('ids-run.txt', drafts.slice(warmCount).join('\n'))));
    const publishRun = await measured(server.pid ?? 0, base, publishing, seconds);
    krs = { create: createRun, publish: publishRun, drafts: drafts.length - warmCount };
  } finally {
    await stop(server);
  }
  const answersFile = file('answers.json', JSON.stringify(answers));
  const { child: plain } = await start(['bench/plain-write-server.ts', String(plainPort), join(dataDir, 'plain.sqlite'), answersFile], env);
  let plainRuns: { create: Run; publish: Run };
  try {
    const plainBase = `http://127.0.0.1:${plainPort}`;
    const creating = file('plain-create.lua', createScript(token, file('plain-ids.txt', '')));
    await wrk(`${plainBase}/api/records`, { connections: WRITERS, seconds: 1, script: creating });
    const create = await measured(plain.pid ?? 0, `${plainBase}/api/records`, creating, seconds);
    const publish = await measured(plain.pid ?? 0, plainBase, join(dataDir, 'publish.lua'), seconds);
    plainRuns = { create, publish };
  } finally {
    await stop(plain);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const loadAfter = loadAverage();

  const lines = [
    `Writes (wrk -t1 -c${WRITERS} -d${seconds}s with a Lua script; server from dist/, SQLite + files + FTS5, pinned away from the generator where there are cores to spare; load average ${loadBefore} before, ${loadAfter} after)`,
    `  plain: node:http, JSON.parse of the body, one INSERT into a WAL SQLite file, then the same coalesced WAL fdatasync before answering krs's captured bytes`,
    `  ${'scenario'.padEnd(20)} ${'krs req/s'.padStart(10)} ${'p50/p99 ms'.padStart(13)} ${'CPU/req'.padStart(8)} ${'plain req/s'.padStart(12)} ${'p50/p99 ms'.padStart(13)} ${'CPU/req'.padStart(8)} ${'ratio'.padStart(6)}  target`,
  ];
  const notes: string[] = [];
  const rows: SummaryRow[] = [];
  const row = (name: string, k: Run, p: Run, target: number, flags: string[] = []) => {
    const lat = (r: WrkResult) => `${r.p50.toFixed(1)}/${r.p99.toFixed(1)}`.padStart(13);
    const met = k.result.perSecond >= target && k.result.errors === 0;
    lines.push(
      `  ${name.padEnd(20)} ${k.result.perSecond.toFixed(0).padStart(10)} ${lat(k.result)} ${`${k.cpuPerRequest.toFixed(2)}ms`.padStart(8)} ${p.result.perSecond.toFixed(0).padStart(12)} ${lat(p.result)} ${`${p.cpuPerRequest.toFixed(2)}ms`.padStart(8)} ${`${((k.result.perSecond / p.result.perSecond) * 100).toFixed(0)}%`.padStart(6)}  >= ${target}/s: ${met ? 'met' : 'NOT met'}`,
    );
    for (const [who, r] of [['krs', k.result], ['plain', p.result]] as const) {
      if (r.errors > 0) {
        notes.push(`  FLAGGED: ${name}, ${who}: ${r.errors} answers outside 2xx or socket errors; the figure does not count`);
        flags.push(`${who}: ${r.errors} errors`);
      }
      if (r.generatorCpu > GENERATOR_LIMIT) {
        notes.push(`  FLAGGED: ${name}, ${who}: the generator used ${(r.generatorCpu * 100).toFixed(0)}% of a core, the figure may be its own`);
        flags.push(`${who}: generator at ${(r.generatorCpu * 100).toFixed(0)}% of a core`);
      }
    }
    rows.push({
      part: 'writes',
      scenario: name,
      krs: `${k.result.perSecond.toFixed(0)} req/s`,
      plain: `${p.result.perSecond.toFixed(0)} req/s`,
      ratio: `${((k.result.perSecond / p.result.perSecond) * 100).toFixed(0)}%`,
      target: `>= ${target}/s`,
      met,
      ...(flags.length > 0 ? { note: flags.join('; ') } : {}),
    });
  };
  row('POST /api/records', krs.create, plainRuns.create, TARGETS.create);
  const ranOut = krs.publish.result.requests > krs.drafts;
  row('POST .../publish', krs.publish, plainRuns.publish, TARGETS.publish, ranOut ? [`ran out of drafts (${krs.drafts})`] : []);
  if (ranOut) notes.push(`  FLAGGED: the publish run ran out of drafts (${krs.drafts}); its errors are publishes of ids that do not exist`);
  return { text: [...lines, ...notes].join('\n'), rows };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await writesBench(Number(process.argv[2] ?? 8))).text);
}
