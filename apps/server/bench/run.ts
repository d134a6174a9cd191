/**
 * `pnpm bench`: figures for this machine, printed with their targets. Not a test: nothing fails.
 *  1. The hot read paths (record GET, draft GET, file entry, small download, listing) measured
 *     with `wrk`, each next to a plain node:http server answering the same bytes (bench/http.ts).
 *  2. A 1 GiB upload through PUT .../content, next to a plain fs write of the same bytes with
 *     fsync (target >= 70% of its MiB/s, under 64 MiB of extra server RSS).
 *  3. Search over HTTP on generated published records, per engine (bench/search.ts).
 *  4. The hostile mix: cheap GETs beside pathological searches and maximal bodies (bench/hostile.ts).
 *  5. Both stacks side by side: the record GET on SQLite + files, on PostgreSQL + S3 with one node
 *     and with two behind a round-robin balancer, and the upload into files and into S3
 *     (bench/stacks.ts; `BENCH_STACKS=0` skips it).
 *  6. Writes: draft creates and publishes with 16 concurrent writers, measured with `wrk`, each
 *     next to a plain node:http server doing one equally durable SQLite insert per request
 *     (bench/writes.ts; targets >= 1000 creates/s, >= 300 publishes/s; `BENCH_WRITES=0` skips it).
 * Each part prints its figures as it finishes; at the end one table gathers every part's figures
 * with their targets (bench/summary-table.ts), printed and written to `BENCH_TABLE` (default
 * krs-bench-results.md in the temp dir), ready to paste into docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpBench } from './http.ts';
import { hostileBench } from './hostile.ts';
import { searchBench } from './search.ts';
import { stacksBench } from './stacks.ts';
import { writesBench } from './writes.ts';
import { serverDir, startCompiled, tsx } from './server-process.ts';
import { benchCommand, summaryText, thisMachine, type PartResult, type SummaryRow } from './summary-table.ts';
import { measureUpload } from './upload.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const UPLOAD_MIB = Number(process.env['BENCH_UPLOAD_MIB'] ?? 1024);
const SEARCH_RECORDS = Number(process.env['BENCH_SEARCH_RECORDS'] ?? 100000);
const SEARCH_ENGINES = (process.env['BENCH_SEARCH_ENGINES'] ?? 'sqlite,minisearch').split(',');
const HOSTILE_RECORDS = Number(process.env['BENCH_HOSTILE_RECORDS'] ?? 100000);
const HOSTILE_ENGINE = process.env['BENCH_HOSTILE_ENGINE'] ?? 'sqlite';
const HOSTILE_SECONDS = Number(process.env['BENCH_HOSTILE_SECONDS'] ?? 15);
const STACKS = process.env['BENCH_STACKS'] !== '0';
const STACKS_ROUNDS = Number(process.env['BENCH_STACKS_ROUNDS'] ?? 3);
const WRITES = process.env['BENCH_WRITES'] !== '0';
const TABLE_FILE = process.env['BENCH_TABLE'] ?? join(tmpdir(), 'krs-bench-results.md');
const UPLOAD_TARGET = 0.7;
const UPLOAD_EXTRA_RSS_TARGET_MIB = 64;

function mib(n: number) {
  return n / 1024 / 1024;
}

async function plainWrite(dir: string, total: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const file = join(dir, 'plain.bin');
  const t0 = performance.now();
  const out = createWriteStream(file);
  for (let sent = 0; sent < total; sent += chunk.length) {
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  const handle = await open(file, 'r+');
  await handle.sync();
  await handle.close();
  const seconds = (performance.now() - t0) / 1000;
  rmSync(file);
  return seconds;
}

async function uploadBench(): Promise<PartResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bench-'));
  const port = 3900;
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), KRS_DATA_DIR: dataDir, KRS_BASE_URL: base, INIT_CWD: serverDir };
  const token = execFileSync(tsx, ['src/cli.ts', 'tokens', 'create', '--user', 'bench@example.org'], { cwd: serverDir, env, encoding: 'utf8' }).trim();

  // From dist/, built by httpBench above.
  const { child: server } = await startCompiled(env);
  const total = UPLOAD_MIB * 1024 * 1024;
  const upload = await measureUpload(base, token, server.pid ?? 0, total);
  server.kill('SIGTERM');
  const plainSeconds = await plainWrite(dataDir, total);
  rmSync(dataDir, { recursive: true, force: true });

  const uploadRate = upload.mibPerSecond;
  const plainRate = mib(total) / plainSeconds;
  const extraRss = upload.rssPeak - upload.rssBefore;
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const ratio = uploadRate / plainRate;
  const text = [
    `upload ${UPLOAD_MIB} MiB            ${uploadRate.toFixed(0)} MiB/s, server RSS ${upload.rssBefore.toFixed(0)} MiB before, peak ${upload.rssPeak.toFixed(0)} MiB (+${extraRss.toFixed(0)} MiB)`,
    `plain fs write + fsync  ${plainRate.toFixed(0)} MiB/s`,
    `  ratio ${pct(ratio)} of the plain write (target >= ${pct(UPLOAD_TARGET)}: ${ratio >= UPLOAD_TARGET ? 'met' : 'NOT met'}); extra RSS target < ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB: ${extraRss < UPLOAD_EXTRA_RSS_TARGET_MIB ? 'met' : 'NOT met'}`,
  ].join('\n');
  const scenario = `PUT .../content, ${UPLOAD_MIB} MiB`;
  const rows: SummaryRow[] = [
    { part: 'upload', scenario, krs: `${uploadRate.toFixed(0)} MiB/s`, plain: `${plainRate.toFixed(0)} MiB/s`, ratio: pct(ratio), target: `>= ${pct(UPLOAD_TARGET)} of plain`, met: ratio >= UPLOAD_TARGET },
    {
      part: 'upload',
      scenario: `${scenario}: extra server RSS`,
      krs: `+${extraRss.toFixed(0)} MiB`,
      plain: null,
      ratio: null,
      target: `< ${UPLOAD_EXTRA_RSS_TARGET_MIB} MiB`,
      met: extraRss < UPLOAD_EXTRA_RSS_TARGET_MIB,
    },
  ];
  return { text, rows };
}

interface Part {
  name: string;
  /** The setting that turned the part off, if one did. */
  offBy: string | null;
  run: () => Promise<PartResult>;
}

const parts: Part[] = [
  { name: 'http', offBy: null, run: () => httpBench(SECONDS) },
  { name: 'writes', offBy: WRITES ? null : 'BENCH_WRITES=0', run: () => writesBench(SECONDS) },
  { name: 'upload', offBy: null, run: uploadBench },
  { name: 'search', offBy: SEARCH_RECORDS > 0 ? null : 'BENCH_SEARCH_RECORDS=0', run: () => searchBench(SEARCH_RECORDS, SEARCH_ENGINES) },
  { name: 'hostile', offBy: HOSTILE_RECORDS > 0 ? null : 'BENCH_HOSTILE_RECORDS=0', run: () => hostileBench(HOSTILE_RECORDS, HOSTILE_ENGINE, HOSTILE_SECONDS) },
  { name: 'stacks', offBy: STACKS ? null : 'BENCH_STACKS=0', run: () => stacksBench(SECONDS, UPLOAD_MIB, STACKS_ROUNDS) },
];

const rows: SummaryRow[] = [];
const skipped: string[] = [];
let failure: { part: string; error: unknown } | null = null;
for (const [i, part] of parts.entries()) {
  if (part.offBy !== null) {
    skipped.push(`${part.name} (${part.offBy})`);
    continue;
  }
  // The parts after a failure would run on a machine left in an unknown state; the table still shows what ran.
  if (failure !== null) {
    skipped.push(`${part.name} (not run, ${failure.part} failed)`);
    continue;
  }
  try {
    const result = await part.run();
    console.log(`${i === 0 ? '' : '\n'}${result.text}`);
    rows.push(...result.rows);
    if (result.skipped !== undefined) skipped.push(`${part.name} (${result.skipped})`);
  } catch (error) {
    skipped.push(`${part.name} (failed, the error follows the table)`);
    failure = { part: part.name, error };
  }
}

// BENCH_TABLE says where the table goes, not how anything was measured.
const { BENCH_TABLE: _, ...settings } = process.env;
const table = summaryText({ machine: thisMachine(), command: benchCommand(settings), rows, skipped });
writeFileSync(TABLE_FILE, `${table}\n`);
console.log(`\nSummary (also written to ${TABLE_FILE})\n\n${table}`);
if (failure !== null) throw failure.error;
