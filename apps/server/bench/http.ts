/**
 * The hot read paths over HTTP, each next to a plain node:http server answering the very bytes
 * krs answered for the same path (captured once before the runs), both measured with `wrk` in
 * the same run. The server runs from compiled JavaScript, as in production.
 *   `tsx bench/http.ts [seconds]` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuTicks, TICKS_PER_SECOND } from './cpu.ts';
import type { CapturedAnswer } from './plain-server.ts';
import { serverDir, start, startCompiled, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';
import { hasWrk, keepOffGeneratorCore, pinned, wrk, type WrkResult } from './wrk.ts';

const CONNECTIONS = 64;
/** Record GET, draft GET, file entry, small download and listing: at least this share of plain. */
const TARGET = 0.4;
/** Above this share of a core, the generator, not the server, may be what limits a run. */
const GENERATOR_LIMIT = 0.9;

interface Scenario {
  name: string;
  path: string;
  headers: Record<string, string>;
}

async function call(method: string, url: string, token: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

/** A published record with a 1 KiB file, nine more published, and an open draft: the paths' subjects. */
export async function seedHotPaths(base: string, token: string): Promise<{ record: string; draft: string }> {
  const metadata = {
    title: 'Benchmark record about flood extent in the Niger delta',
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    description: '<p>Flood extent maps derived from Sentinel-1 backscatter, 2019-2023.</p>',
    creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' }, affiliations: [{ name: 'University of Lagos' }] }],
    subjects: [{ subject: 'flood' }, { subject: 'SAR' }],
  };
  const draft = await call('POST', `${base}/api/records`, token, { metadata });
  await call('POST', `${base}/api/records/${draft['id']}/draft/files`, token, [{ key: 'readme.txt' }]);
  const put = await fetch(`${base}/api/records/${draft['id']}/draft/files/readme.txt/content`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: 'Flood extent, Niger delta. '.repeat(40),
  });
  if (!put.ok) throw new Error(`upload answered ${put.status}`);
  await call('POST', `${base}/api/records/${draft['id']}/draft/files/readme.txt/commit`, token);
  await call('POST', `${base}/api/records/${draft['id']}/draft/actions/publish`, token);
  // Nine more published records, so the listing has a page of ten.
  for (let i = 0; i < 9; i++) {
    const d = await call('POST', `${base}/api/records`, token, { metadata: { ...metadata, title: `${metadata.title} ${i}` }, files: { enabled: false } });
    await call('POST', `${base}/api/records/${d['id']}/draft/actions/publish`, token);
  }
  const open = await call('POST', `${base}/api/records`, token, { metadata, files: { enabled: false } });
  return { record: String(draft['id']), draft: String(open['id']) };
}

async function capture(base: string, scenario: Scenario): Promise<CapturedAnswer> {
  const res = await fetch(`${base}${scenario.path}`, { headers: scenario.headers });
  if (res.status !== 200) throw new Error(`${scenario.path} answered ${res.status}`);
  return { type: res.headers.get('content-type') ?? 'application/octet-stream', body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

const fmt = (r: WrkResult) => `${r.perSecond.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`;

interface Measured {
  result: WrkResult;
  /** The server's own CPU time (user + system, all its threads) per request answered, in µs. */
  cpuPerRequest: number;
}

/**
 * A wrk run with the server's CPU time read from `/proc` around it: unlike requests/s, CPU per
 * request hardly moves with what else loads the machine.
 */
async function measured(pid: number, url: string, seconds: number, headers: Record<string, string>): Promise<Measured> {
  const before = cpuTicks(pid);
  const result = await wrk(url, { connections: CONNECTIONS, seconds, headers });
  const used = (cpuTicks(pid) - before) / TICKS_PER_SECOND;
  return { result, cpuPerRequest: (used / (result.perSecond * seconds)) * 1e6 };
}

const cpuFmt = (m: Measured) => `  CPU ${m.cpuPerRequest.toFixed(0)} µs/request`;

export async function httpBench(seconds: number): Promise<PartResult> {
  if (!hasWrk()) {
    const skipped = '`wrk` is not installed (Debian: apt-get install wrk)';
    return { text: `HTTP hot paths: skipped, ${skipped}.`, rows: [], skipped };
  }
  keepOffGeneratorCore();
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bench-http-'));
  // Another bench on the same machine can take other ports: BENCH_HTTP_PORT and the one after it.
  const port = Number(process.env['BENCH_HTTP_PORT'] ?? 3910);
  const plainPort = port + 1;
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: serverDir, stdio: 'inherit' });
  const token = execFileSync(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'bench@example.org'], { cwd: serverDir, env, encoding: 'utf8' }).trim();
  const auth = { authorization: `Bearer ${token}` };
  const { child: server } = await startCompiled(env, pinned);
  const lines: string[] = [];
  const rows: SummaryRow[] = [];
  try {
    const { record, draft } = await seedHotPaths(base, token);
    const scenarios: Scenario[] = [
      { name: 'GET /api/records/{id}', path: `/api/records/${record}`, headers: {} },
      { name: 'GET /api/records/{id}/draft', path: `/api/records/${draft}/draft`, headers: auth },
      { name: 'GET .../files/{key}', path: `/api/records/${record}/files/readme.txt`, headers: {} },
      { name: 'GET .../files/{key}/content (1 KiB)', path: `/api/records/${record}/files/readme.txt/content`, headers: {} },
      { name: 'GET /api/records?size=10', path: '/api/records?size=10', headers: {} },
    ];
    const answers: Record<string, CapturedAnswer> = {};
    for (const s of scenarios) answers[s.path] = await capture(base, s);
    const krs: Measured[] = [];
    for (const s of scenarios) {
      await wrk(`${base}${s.path}`, { connections: CONNECTIONS, seconds: 1, headers: s.headers }); // warm-up
      krs.push(await measured(server.pid as number, `${base}${s.path}`, seconds, s.headers));
    }
    const pages: { name: string; measured: Measured; target: boolean }[] = [];
    for (const [name, path, target] of [
      ['GET /records/{id} (landing page)', `/records/${record}`, true],
      ['GET /search?q=flood (search page)', '/search?q=flood', false],
    ] as const) {
      await wrk(`${base}${path}`, { connections: CONNECTIONS, seconds: 1 });
      pages.push({ name, measured: await measured(server.pid as number, `${base}${path}`, seconds, {}), target });
    }
    await stop(server);
    const answersFile = join(dataDir, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const { child: plain } = await start(['bench/plain-server.ts', String(plainPort), answersFile], env);
    const plainResults: Measured[] = [];
    try {
      for (const s of scenarios) plainResults.push(await measured(plain.pid as number, `http://127.0.0.1:${plainPort}${s.path}`, seconds, s.headers));
    } finally {
      await stop(plain);
    }
    lines.push(`HTTP hot paths (wrk -t1 -c${CONNECTIONS} -d${seconds}s; server from dist/, pinned away from the generator where there are cores to spare)`);
    scenarios.forEach((s, i) => {
      const km = krs[i] as Measured;
      const pm = plainResults[i] as Measured;
      const [k, p] = [km.result, pm.result];
      const ratio = k.perSecond / p.perSecond;
      const bound = p.generatorCpu > GENERATOR_LIMIT ? `  FLAGGED: the generator used ${(p.generatorCpu * 100).toFixed(0)}% of a core, the plain figure may be its own` : '';
      lines.push(`${s.name}`);
      lines.push(`  krs    ${fmt(k)}  errors ${k.errors}${cpuFmt(km)}`);
      lines.push(`  plain  ${fmt(p)}${cpuFmt(pm)}  (generator ${(p.generatorCpu * 100).toFixed(0)}% of a core)${bound}`);
      lines.push(`  ratio ${(ratio * 100).toFixed(1)}% (target >= ${TARGET * 100}%: ${ratio >= TARGET ? 'met' : 'NOT met'}); by CPU per request ${((pm.cpuPerRequest / km.cpuPerRequest) * 100).toFixed(1)}%`);
      const notes = [
        ...(k.errors > 0 ? [`krs: ${k.errors} errors`] : []),
        ...(p.generatorCpu > GENERATOR_LIMIT ? [`generator at ${(p.generatorCpu * 100).toFixed(0)}% of a core in the plain run`] : []),
      ];
      rows.push({
        part: 'http',
        scenario: s.name,
        krs: `${k.perSecond.toFixed(0)} req/s`,
        plain: `${p.perSecond.toFixed(0)} req/s`,
        ratio: `${(ratio * 100).toFixed(1)}%`,
        target: `>= ${TARGET * 100}% of plain`,
        met: ratio >= TARGET,
        ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      });
    });
    const jsonGet = (krs[0] as Measured).result;
    lines.push('Pages, against the JSON record GET of the same run (target: a landing page costs at most 3x)');
    for (const p of pages) {
      const cost = jsonGet.perSecond / p.measured.result.perSecond;
      lines.push(`  ${p.name.padEnd(34)} ${fmt(p.measured.result)}${cpuFmt(p.measured)}  ${cost.toFixed(1)}x the JSON GET${p.target ? ` (target <= 3x: ${cost <= 3 ? 'met' : 'NOT met'})` : ''}`);
      rows.push({
        part: 'http',
        scenario: p.name,
        krs: `${p.measured.result.perSecond.toFixed(0)} req/s`,
        plain: null,
        ratio: `${cost.toFixed(1)}x the JSON GET`,
        target: p.target ? '<= 3x the JSON GET' : '-',
        met: p.target ? cost <= 3 : null,
      });
    }
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { text: lines.join('\n'), rows };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await httpBench(Number(process.argv[2] ?? 5))).text);
}
