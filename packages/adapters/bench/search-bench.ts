/**
 * Search engines side by side on N generated published records (argv[2], default 100000):
 * build time, snapshot/start-up time, memory, and query latencies through the SearchIndex port.
 * Run: pnpm bench:search 100000 [minisearch|sqlite|postgres]
 *
 * `postgres`: an embedded PostgreSQL 17 (the tests' server: default settings, but fsync and
 * synchronous commits off, so the load does not wait on the disk), on `KRS_BENCH_PG_PORT` or any
 * free port; documents loaded through the port by `KRS_BENCH_PG_WRITERS` concurrent callers (1);
 * `KRS_BENCH_PG_KEEP=1` keeps the server up after the queries, until interrupted;
 * `KRS_BENCH_PG_URL=<its database's url>` then queries that index again without loading.
 * `KRS_BENCH_FIGURES=<file>` also writes the PostgreSQL figures there as JSON (`PostgresFigures`),
 * for `pnpm bench` (apps/server/bench/search-postgres.ts), which runs this file as a child process.
 *
 * `sqlite`: `KRS_BENCH_SQLITE_DIR` names a directory where the index is built and kept
 * (`search-<n>.sqlite`); a later run finding that file queries it without rebuilding, so the
 * queries can be measured again (or profiled) on the same index after a change.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import type { SearchDocument, SearchIndex, SearchRequest } from '@krs/domain';
import { createMiniSearchIndex, createPgDb, type DbHandle, createPostgresSearchIndex, createPostgresSearchSchema, createSqliteSearchIndex } from '../src/index.ts';
import { startPostgres } from '../test/embedded-postgres-server.ts';
import Database from 'better-sqlite3';
import { LAYOUT as SQLITE_LAYOUT } from '../src/search/sqlite-search-index.ts';
import { generateDocs } from './search-corpus.ts';

const base: SearchRequest = {
  filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
  q: null,
  bbox: null,
  sort: 'bestmatch',
  page: 1,
  size: 10,
  aggregations: ['resource_type', 'access_status', 'record_type'],
};
const QUERIES: [string, Partial<SearchRequest>][] = [
  ['one term', { q: 'glacier' }],
  ['common term', { q: 'sentinel' }],
  ['common (a fifth)', { q: 'mapping' }],
  ['three terms', { q: 'flood mapping sentinel' }],
  ['phrase', { q: '"sea ice"' }],
  // A signed-in reader sees their own restricted records beside the public ones (u7 owns a
  // five-hundredth of the corpus, a twentieth of it restricted).
  ['signed-in term', { q: 'glacier', filter: { ...base.filter, viewerId: 'u7' } }],
  ['signed-in phrase', { q: '"sea ice"', filter: { ...base.filter, viewerId: 'u7' } }],
  ['field query', { q: 'metadata.title:drought' }],
  // Fields other than the title, as InvenioRDM clients search authors and descriptions.
  ['field: every doc', { q: 'metadata.description:the' }],
  ['field: creator', { q: 'metadata.creators.person_or_org.name:kumar' }],
  ['field: phrase', { q: 'metadata.description:"sea ice"' }],
  ['field: prefix', { q: 'metadata.description:defor*' }],
  ['prefix', { q: 'defor*' }],
  ['fuzzy', { q: 'glacer~' }],
  ['_exists_', { q: '_exists_:metadata.creators' }],
  ['range', { q: 'metadata.publication_date:[2022 TO 2023]' }],
  ['range + word', { q: 'glacier AND metadata.publication_date:[2022-06 TO *]' }],
  ['NOT range', { q: 'NOT metadata.publication_date:[2021 TO *]' }],
  ['bbox', { bbox: [0, 40, 20, 55], sort: 'newest' }],
  ['bbox + facet', { bbox: [0, 40, 20, 55], sort: 'newest', filter: { ...base.filter, facets: { resource_type: ['dataset'] } } }],
  ['newest, page 50', { sort: 'newest', page: 50 }],
];

const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

const CALLS = 30;
/**
 * Calls of each query before the measured ones: the first query to score words waits for the
 * documents' lengths, read by a reader thread after open (seconds at 1M documents), which is
 * start-up, not the query.
 */
const WARM_CALLS = 2;

/** CPU milliseconds this process (all its threads) has used so far. */
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * `cpu`: milliseconds of CPU used so far by something other than this process, whose share per
 * call is printed beside this process's (PostgreSQL's processes).
 */
/** One query's figures over its measured calls. */
export interface QueryFigures {
  name: string;
  p50: number;
  p95: number;
  p99: number;
  /** CPU milliseconds a call in this process (all its threads). */
  ownCpu: number;
  /** CPU milliseconds a call in the server (PostgreSQL's processes), where there is one. */
  serverCpu: number | null;
  hits: number;
}

/** `settled`: what the index reads in the background after the warming calls, awaited before the measured ones. */
async function measure(index: SearchIndex, label: string, cpu?: () => number, settled?: () => Promise<void>): Promise<QueryFigures[]> {
  const rows: string[] = [];
  const figures: QueryFigures[] = [];
  for (const [name, over] of QUERIES) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < WARM_CALLS; i++) await index.search({ ...base, ...over });
    // The SQLite index reads every box once a query first asks for one (3 s of a reader thread
    // at a million documents): that is start-up, not the query.
    await settled?.();
    const own0 = ownCpu();
    const other0 = cpu?.() ?? 0;
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      total = (await index.search({ ...base, ...over })).total;
      times.push(performance.now() - t0);
    }
    const own = (ownCpu() - own0) / CALLS;
    const serverCpu = cpu === undefined ? null : (cpu() - other0) / CALLS;
    const other = serverCpu === null ? '' : `  server CPU/call ${serverCpu.toFixed(1).padStart(7)} ms`;
    times.sort((a, b) => a - b);
    figures.push({ name, p50: pct(times, 0.5), p95: pct(times, 0.95), p99: pct(times, 0.99), ownCpu: own, serverCpu, hits: total });
    rows.push(
      `  ${name.padEnd(16)} p50 ${pct(times, 0.5).toFixed(1).padStart(7)} ms  p95 ${pct(times, 0.95).toFixed(1).padStart(7)} ms  p99 ${pct(times, 0.99).toFixed(1).padStart(7)} ms  CPU/call ${own.toFixed(1).padStart(6)} ms${other}  hits ${total}`,
    );
  }
  console.log(`${label} (${CALLS} calls each after ${WARM_CALLS} to warm; load average ${loadAverage()})\n${rows.join('\n')}`);
  return figures;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** `/proc/<pid>/status` fields in MiB (VmRSS, RssAnon, RssShmem, VmHWM). */
function statusMiB(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN) / 1024;
}

const TICK_MS = 10;

/**
 * CPU milliseconds used so far by a postmaster, its live children (backends, autovacuum, the
 * checkpointer...) and those that have exited (a parallel worker, an autovacuum worker).
 */
function postgresCpu(postmaster: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const parent = Number(statFields(Number(name))[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      /* gone since the listing */
    }
  }
  const [utime, stime, cutime, cstime] = statFields(postmaster).slice(11, 15).map(Number) as [number, number, number, number];
  let ticks = utime + stime + cutime + cstime;
  for (const child of children.get(postmaster) ?? []) {
    try {
      const f = statFields(child);
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* exited: counted in cutime from now on */
    }
  }
  return ticks * TICK_MS;
}

/**
 * Loads `docs` through the port in calls of `batch` documents, `writers` calls at a time (each
 * on a connection of its own), printing progress every tenth.
 */
async function load(index: SearchIndex, docs: readonly SearchDocument[], batch: number, writers: number): Promise<void> {
  let next = 0;
  let reported = 0;
  const t0 = performance.now();
  const writer = async () => {
    while (next < docs.length) {
      const start = next;
      next += batch;
      await index.upsert(docs.slice(start, start + batch));
      if (start + batch - reported >= docs.length / 10) {
        reported = start + batch;
        console.error(`  ${Math.min(reported, docs.length)} loaded, ${((performance.now() - t0) / 1000).toFixed(0)} s, load average ${loadAverage()}`);
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
}

/** What the PostgreSQL engine's run measured. */
export interface PostgresFigures {
  records: number;
  /** Null when the index was already loaded (`KRS_BENCH_PG_URL`). */
  buildSeconds: number | null;
  /** All the index's tables with their indexes and TOAST (`pg_total_relation_size`). */
  sizeMiB: number;
  queries: QueryFigures[];
  /** The query backend's resident memory after the queries: its own, and the shared buffers it touched. */
  backendRssMiB: { private: number; shared: number };
  loadAverage: string;
}

const PG_TABLES = ['search_doc', 'search_box', 'search_range', 'search_range_count', 'search_vocab', 'search_path', 'search_count', 'search_count_year', 'search_title', 'search_repeat'];

/** The process serving a database connection. */
const backendOf = async (db: DbHandle['db']): Promise<number> => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid ?? 0;
/** The postmaster of the server a database connection is on: its CPU is the server's. */
async function postmasterOf(db: DbHandle['db']): Promise<number> {
  return Number(statFields(await backendOf(db))[1]);
}

/**
 * Starts an embedded PostgreSQL and loads `docs` into a fresh database through the port; or, with
 * `KRS_BENCH_PG_URL`, queries the index already in that database (on this machine: its server's
 * CPU is read from /proc), so the queries can be measured again, on a quieter machine or after a
 * change, without loading for most of an hour.
 */
async function postgresEngine(n: number, docs: readonly SearchDocument[], rss0: number): Promise<PostgresFigures> {
  const kept = process.env['KRS_BENCH_PG_URL'];
  if (kept !== undefined) {
    console.log(`\npostgres: the index kept in ${kept.replace(/\/\/[^@/]*@/, '//')}`);
    return queryPostgres(kept, n, null, rss0);
  }
  const port = process.env['KRS_BENCH_PG_PORT'];
  const writers = Number(process.env['KRS_BENCH_PG_WRITERS'] ?? 1);
  const server = await startPostgres({ durable: false, ...(port === undefined ? {} : { port: Number(port) }) });
  try {
    const url = await server.freshDatabase();
    const loader = createPgDb(url, { maxConnections: writers });
    await createPostgresSearchSchema(loader.db);
    const postmaster = await postmasterOf(loader.db);
    const cpu0 = postgresCpu(postmaster);
    const own0 = ownCpu();
    const t0 = performance.now();
    await load(createPostgresSearchIndex(loader.db), docs, 1000, writers);
    const build = (performance.now() - t0) / 1000;
    const buildCpu = [ownCpu() - own0, postgresCpu(postmaster) - cpu0] as const;
    // What autovacuum reaches on its own some time after a load: the visibility map set (for
    // index-only scans), the GIN pending list merged, statistics taken.
    const v0 = performance.now();
    for (const table of PG_TABLES) await sql.raw(`vacuum (analyze) ${table}`).execute(loader.db);
    const vacuum = performance.now() - v0;
    await loader.close();
    console.log(
      `\npostgres: build ${build.toFixed(1)} s through the port (${writers} caller(s), 1000 documents a call; CPU ${(buildCpu[0] / 1000).toFixed(0)} s in this process, ${(buildCpu[1] / 1000).toFixed(0)} s in PostgreSQL), then vacuum (analyze) ${(vacuum / 1000).toFixed(1)} s`,
    );
    const figures = await queryPostgres(url, n, build, rss0);
    if (process.env['KRS_BENCH_PG_KEEP'] === '1') {
      // For EXPLAIN, or KRS_BENCH_PG_URL: the server stays up until this process is interrupted.
      console.log(`  kept for inspection at ${url}; interrupt (SIGINT) to stop it`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
    return figures;
  } finally {
    await server.stop();
  }
}

/** The index's size, every query's figures and the query backend's memory, on one connection so one backend's CPU and memory are the server's. */
async function queryPostgres(url: string, n: number, buildSeconds: number | null, rss0: number): Promise<PostgresFigures> {
  const queries = createPgDb(url, { maxConnections: 1 });
  try {
    const postmaster = await postmasterOf(queries.db);
    const sizes = (
      await sql<{ name: string; total: string; heap: string; toast: string; indexes: string }>`select c.relname as name, pg_total_relation_size(c.oid) as total,
        pg_relation_size(c.oid) as heap, coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) as toast, pg_indexes_size(c.oid) as indexes
        from pg_class c where c.relname in (${sql.join(PG_TABLES)}) order by 2 desc`.execute(queries.db)
    ).rows;
    const indexSizes = (
      await sql<{ name: string; size: string }>`select i.indexrelid::regclass::text as name, pg_relation_size(i.indexrelid) as size from pg_index i
        where i.indrelid = 'search_doc'::regclass order by 2 desc`.execute(queries.db)
    ).rows;
    const total = sizes.reduce((sum, r) => sum + Number(r.total), 0);
    console.log(`  size (pg_total_relation_size) ${mib(total)} MiB in all:`);
    for (const r of sizes) console.log(`    ${r.name.padEnd(13)} ${mib(Number(r.total)).padStart(6)} MiB (heap ${mib(Number(r.heap))}, TOAST ${mib(Number(r.toast))}, indexes ${mib(Number(r.indexes))})`);
    console.log(`    search_doc's indexes (MiB): ${indexSizes.map((r) => `${r.name} ${mib(Number(r.size))}`).join(', ')}`);
    const index = createPostgresSearchIndex(queries.db);
    const backend = await backendOf(queries.db);
    const queryFigures = await measure(index, 'postgres queries', () => postgresCpu(postmaster));
    const mem = process.memoryUsage();
    console.log(
      `  RSS: this process ${mem.rss >= rss0 ? '+' : '-'}${mib(Math.abs(mem.rss - rss0))} MiB (heap ${mib(mem.heapUsed)} MiB${buildSeconds === null ? '' : ', the corpus included'}); the query backend ${statusMiB(backend, 'VmRSS').toFixed(0)} MiB (${statusMiB(backend, 'RssAnon').toFixed(0)} private, ${statusMiB(backend, 'RssShmem').toFixed(0)} of shared buffers; peak ${statusMiB(backend, 'VmHWM').toFixed(0)})`,
    );
    return {
      records: n,
      buildSeconds,
      sizeMiB: total / 1024 / 1024,
      queries: queryFigures,
      backendRssMiB: { private: statusMiB(backend, 'RssAnon'), shared: statusMiB(backend, 'RssShmem') },
      loadAverage: loadAverage(),
    };
  } finally {
    await queries.close();
  }
}

async function main(n: number, engines: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'krs-search-bench-'));
  console.log(`search benchmark: ${n} published records, Node ${process.version}`);
  const keptSqlite = process.env['KRS_BENCH_SQLITE_DIR'];
  if (keptSqlite !== undefined) dropOlderLayout(join(keptSqlite, `search-${n}.sqlite`));
  for (const engine of engines) {
    // A kept index is queried without the documents: a million of them held in this process's
    // heap (2.8 GiB) made the queries pay for its garbage collections.
    const reusing = (engine === 'sqlite' && keptSqlite !== undefined && existsSync(join(keptSqlite, `search-${n}.sqlite`))) || (engine === 'postgres' && process.env['KRS_BENCH_PG_URL'] !== undefined);
    const docs = reusing ? [] : generateDocs(n);
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const cpu0 = ownCpu();
    if (engine === 'minisearch') {
      const index = createMiniSearchIndex();
      for (let i = 0; i < docs.length; i += 1000) await index.upsert(docs.slice(i, i + 1000));
      const build = performance.now() - t0;
      const buildCpu = ownCpu() - cpu0;
      global.gc?.();
      const mem = process.memoryUsage();
      const file = join(dir, 'snapshot.json');
      const s0 = performance.now();
      await index.saveSnapshot(file, new Date().toISOString());
      const save = performance.now() - s0;
      const l0 = performance.now();
      const loaded = createMiniSearchIndex();
      await loaded.loadSnapshot(file);
      const load = performance.now() - l0;
      console.log(`\nminisearch: build ${(build / 1000).toFixed(1)} s (CPU ${((buildCpu * 1000) / n).toFixed(0)} us a document), snapshot save ${(save / 1000).toFixed(1)} s (${mib(statSync(file).size)} MiB), start-up from snapshot ${(load / 1000).toFixed(1)} s, RSS +${mib(mem.rss - rss0)} MiB (heap ${mib(mem.heapUsed)} MiB)`);
      await measure(loaded, 'minisearch queries');
    } else if (engine === 'postgres') {
      const figures = await postgresEngine(n, docs, rss0);
      const file = process.env['KRS_BENCH_FIGURES'];
      if (file !== undefined) writeFileSync(file, JSON.stringify(figures));
    } else {
      if (keptSqlite !== undefined) mkdirSync(keptSqlite, { recursive: true });
      const file = keptSqlite === undefined ? join(dir, 'search.sqlite') : join(keptSqlite, `search-${n}.sqlite`);
      if (!reusing) {
        const index = createSqliteSearchIndex(file);
        for (let i = 0; i < docs.length; i += 1000) await index.upsert(docs.slice(i, i + 1000));
        index.close();
      }
      const build = performance.now() - t0;
      // The writer thread's CPU is this process's too.
      const buildCpu = ownCpu() - cpu0;
      const l0 = performance.now();
      const reopened = createSqliteSearchIndex(file);
      const open = performance.now() - l0;
      const mem = process.memoryUsage();
      console.log(`\nsqlite fts5: ${reusing ? `kept index ${file} reused` : `build ${(build / 1000).toFixed(1)} s (CPU ${(buildCpu / 1000).toFixed(0)} s, ${((buildCpu * 1000) / n).toFixed(0)} us a document)`}, file ${mib(statSync(file).size)} MiB, start-up (open) ${(open / 1000).toFixed(2)} s, RSS +${mib(mem.rss - rss0)} MiB (heap ${mib(mem.heapUsed)} MiB)`);
      await measure(reopened, 'sqlite fts5 queries', undefined, () => reopened.settled());
      reopened.close();
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A kept index written by an older layout is removed, to be built again: the engine refuses to open it. */
function dropOlderLayout(file: string): void {
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true });
  const layout = db.pragma('user_version', { simple: true });
  db.close();
  if (layout === SQLITE_LAYOUT) return;
  console.log(`kept index ${file} has layout ${String(layout)}, not ${SQLITE_LAYOUT}: built again`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(Number(process.argv[2] ?? 100000), (process.argv[3] ?? 'minisearch,sqlite').split(','));
}
