/**
 * `pnpm bench`: figures for this machine, printed with their targets. Not a test: nothing fails.
 *  1. The hot read paths (record GET, draft GET, file entry, small download, listing) measured
 *     with `wrk`, each next to a plain node:http server answering the same bytes (bench/http.ts).
 *  2. A 1 GiB upload through PUT .../content, taking turns with a plain fs write of the same bytes
 *     with fsync over three rounds (target >= 70% of its MiB/s, under 64 MiB of extra server RSS;
 *     bench/upload.ts).
 *  3. Search over HTTP on generated published records, per engine (bench/search.ts); then the
 *     PostgreSQL engine through its port at `BENCH_SEARCH_PG_RECORDS` (default 100,000, every kind
 *     held to 20 ms; 1,000,000 to 50 ms, about 40 minutes of loading here; bench/search-postgres.ts).
 *  4. The hostile mix: cheap GETs beside pathological searches and maximal bodies (bench/hostile.ts),
 *     on the embedded stack, then on a PostgreSQL + S3 node (`BENCH_HOSTILE_PG_RECORDS`, default
 *     100,000: storing them through the core by 8 writers and indexing them with `krs reindex`
 *     took 428 s here at load 3.5-6, the part 540 s in all).
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
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpBench } from './http.ts';
import { hostileBench } from './hostile.ts';
import { searchBench } from './search.ts';
import { searchPostgresBench } from './search-postgres.ts';
import { stacksBench } from './stacks.ts';
import { writesBench } from './writes.ts';
import { benchCommand, summaryText, thisMachine, type PartResult, type SummaryRow } from './summary-table.ts';
import { uploadBench } from './upload.ts';
import { releaseCores } from './wrk.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const UPLOAD_MIB = Number(process.env['BENCH_UPLOAD_MIB'] ?? 1024);
const SEARCH_RECORDS = Number(process.env['BENCH_SEARCH_RECORDS'] ?? 100000);
const SEARCH_ENGINES = (process.env['BENCH_SEARCH_ENGINES'] ?? 'sqlite,minisearch').split(',');
const SEARCH_PG_RECORDS = Number(process.env['BENCH_SEARCH_PG_RECORDS'] ?? 100000);
const HOSTILE_RECORDS = Number(process.env['BENCH_HOSTILE_RECORDS'] ?? 100000);
const HOSTILE_ENGINE = process.env['BENCH_HOSTILE_ENGINE'] ?? 'sqlite';
const HOSTILE_SECONDS = Number(process.env['BENCH_HOSTILE_SECONDS'] ?? 15);
const HOSTILE_PG_RECORDS = Number(process.env['BENCH_HOSTILE_PG_RECORDS'] ?? 100000);
const STACKS = process.env['BENCH_STACKS'] !== '0';
const STACKS_ROUNDS = Number(process.env['BENCH_STACKS_ROUNDS'] ?? 3);
const WRITES = process.env['BENCH_WRITES'] !== '0';
const TABLE_FILE = process.env['BENCH_TABLE'] ?? join(tmpdir(), 'krs-bench-results.md');

interface Part {
  name: string;
  /** The setting that turned the part off, if one did. */
  offBy: string | null;
  run: () => Promise<PartResult>;
}

const parts: Part[] = [
  { name: 'http', offBy: null, run: () => httpBench(SECONDS) },
  { name: 'writes', offBy: WRITES ? null : 'BENCH_WRITES=0', run: () => writesBench(SECONDS) },
  { name: 'upload', offBy: null, run: () => uploadBench(UPLOAD_MIB) },
  { name: 'search', offBy: SEARCH_RECORDS > 0 ? null : 'BENCH_SEARCH_RECORDS=0', run: () => searchBench(SEARCH_RECORDS, SEARCH_ENGINES) },
  {
    name: 'search, postgres',
    offBy: SEARCH_PG_RECORDS > 0 ? null : 'BENCH_SEARCH_PG_RECORDS=0',
    run: () => Promise.resolve(searchPostgresBench(SEARCH_PG_RECORDS)),
  },
  { name: 'hostile', offBy: HOSTILE_RECORDS > 0 ? null : 'BENCH_HOSTILE_RECORDS=0', run: () => hostileBench(HOSTILE_RECORDS, HOSTILE_ENGINE, HOSTILE_SECONDS) },
  {
    name: 'hostile, postgres',
    offBy: HOSTILE_PG_RECORDS > 0 ? null : 'BENCH_HOSTILE_PG_RECORDS=0',
    run: () => hostileBench(HOSTILE_PG_RECORDS, 'postgres', HOSTILE_SECONDS),
  },
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
    // Each part starts with the bench process on every core; a part that pins itself says so.
    releaseCores();
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
