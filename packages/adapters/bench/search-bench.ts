/**
 * Search engines side by side on N generated published records (argv[2], default 100000):
 * build time, snapshot/start-up time, memory, and query latencies through the SearchIndex port.
 * Run: pnpm --filter @krs/server exec tsx ../../packages/adapters/bench/search-bench.ts 100000 [minisearch|sqlite]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SearchIndex, SearchRequest } from '@krs/domain';
import { createMiniSearchIndex, createSqliteSearchIndex } from '../src/index.ts';
import { generateDocs } from './search-corpus.ts';

const n = Number(process.argv[2] ?? 100000);
const engines = (process.argv[3] ?? 'minisearch,sqlite').split(',');
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
  ['three terms', { q: 'flood mapping sentinel' }],
  ['phrase', { q: '"sea ice"' }],
  ['field query', { q: 'metadata.title:drought' }],
  ['prefix', { q: 'defor*' }],
  ['bbox', { bbox: [0, 40, 20, 55], sort: 'newest' }],
  ['bbox + facet', { bbox: [0, 40, 20, 55], sort: 'newest', filter: { ...base.filter, facets: { resource_type: ['dataset'] } } }],
  ['newest, page 50', { sort: 'newest', page: 50 }],
];

const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

async function measure(index: SearchIndex, label: string) {
  const rows: string[] = [];
  for (const [name, over] of QUERIES) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      total = (await index.search({ ...base, ...over })).total;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    rows.push(`  ${name.padEnd(16)} p50 ${pct(times, 0.5).toFixed(1).padStart(7)} ms  p95 ${pct(times, 0.95).toFixed(1).padStart(7)} ms  p99 ${pct(times, 0.99).toFixed(1).padStart(7)} ms  hits ${total}`);
  }
  console.log(`${label}\n${rows.join('\n')}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'krs-search-bench-'));
  console.log(`search benchmark: ${n} published records, Node ${process.version}`);
  for (const engine of engines) {
    const docs = generateDocs(n);
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    if (engine === 'minisearch') {
      const index = createMiniSearchIndex();
      for (let i = 0; i < docs.length; i += 1000) await index.upsert(docs.slice(i, i + 1000));
      const build = performance.now() - t0;
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
      console.log(`\nminisearch: build ${(build / 1000).toFixed(1)} s, snapshot save ${(save / 1000).toFixed(1)} s (${mib(statSync(file).size)} MiB), start-up from snapshot ${(load / 1000).toFixed(1)} s, RSS +${mib(mem.rss - rss0)} MiB (heap ${mib(mem.heapUsed)} MiB)`);
      await measure(loaded, 'minisearch queries');
    } else {
      const file = join(dir, 'search.sqlite');
      const index = createSqliteSearchIndex(file);
      for (let i = 0; i < docs.length; i += 1000) await index.upsert(docs.slice(i, i + 1000));
      const build = performance.now() - t0;
      index.close();
      const l0 = performance.now();
      const reopened = createSqliteSearchIndex(file);
      const open = performance.now() - l0;
      const mem = process.memoryUsage();
      console.log(`\nsqlite fts5: build ${(build / 1000).toFixed(1)} s, file ${mib(statSync(file).size)} MiB, start-up (open) ${(open / 1000).toFixed(2)} s, RSS +${mib(mem.rss - rss0)} MiB (heap ${mib(mem.heapUsed)} MiB)`);
      await measure(reopened, 'sqlite fts5 queries');
      reopened.close();
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
