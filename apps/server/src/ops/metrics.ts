/**
 * Prometheus metrics. Everything a request touches is a pre-resolved child or a plain counter
 * bump; anything costly (counting records) runs at scrape time and is cached briefly, so a
 * scraper or a probe cannot load the database more than once per interval.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withinMs, type FileStorage, type SearchIndex } from '@krs/domain';
import type { RequestObserver } from './request-log.ts';

/** Records per kind and state, as the database counts them. */
export type RecordCounts = { kind: string; state: string; count: number }[];

export interface MetricsOptions {
  countRecords?: () => Promise<RecordCounts>;
  /** How long a record count is reused. */
  countCacheMs?: number;
  /** How long a scrape waits for a record count before it leaves the count out. */
  countTimeoutMs?: number;
  now?: () => number;
}

export interface Metrics {
  registry: Registry;
  observeRequest: RequestObserver;
  /** A connection refused for holding too many open (connection-guard.ts). */
  observeRefusedConnection(reason: 'per_client' | 'total'): void;
  /** A request body or upload refused for passing the body budget (body-budget.ts). */
  observeRefusedBody(reason: 'per_client' | 'total'): void;
  /** Reports the budget's bytes held at each scrape. */
  trackBodyMemory(held: () => number): void;
  /** A search refused for its address having as many waiting as it may (search-gate.ts). */
  observeRefusedSearch(): void;
  /** Reports the searches running and waiting for their turn at each scrape. */
  trackSearches(counts: () => { running: number; waiting: number }): void;
  /** For the database driver's query hook. */
  observeQuery(statement: string, seconds: number): void;
  instrumentSearch(index: SearchIndex): SearchIndex;
  instrumentStorage(storage: FileStorage): FileStorage;
  render(): Promise<string>;
  contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STATEMENTS = new Set(['select', 'insert', 'update', 'delete', 'with', 'begin', 'commit', 'rollback', 'pragma']);

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const now = options.now ?? (() => performance.now());
  // Event-loop delay, heap and RSS among others (nodejs_eventloop_lag_*, nodejs_heap_*, process_resident_memory_bytes).
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({ name: 'krs_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'krs_http_request_duration_seconds',
    help: 'Time from a request arriving to its response headers, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const queries = new Histogram({ name: 'krs_db_query_duration_seconds', help: 'Database statements, by kind.', labelNames: ['statement'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const searchOps = new Histogram({ name: 'krs_search_duration_seconds', help: 'Search index operations, by operation.', labelNames: ['operation'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const refused = new Counter({
    name: 'krs_http_connections_refused_total',
    help: 'Connections answered 429 (too many from one client address) or 503 (too many in all) and closed, by reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const refusedBodies = new Counter({
    name: 'krs_http_bodies_refused_total',
    help: 'Request bodies and uploads answered 429 (their address holds its share of body memory) or 503 (the server holds all it may), by reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  let bodyBytesHeld = () => 0;
  new Gauge({
    name: 'krs_http_body_bytes_held',
    help: 'Bytes that request bodies being read and uploads in progress hold from the body memory bound.',
    registers: [registry],
    collect() {
      this.set(bodyBytesHeld());
    },
  });
  const refusedSearches = new Counter({
    name: 'krs_http_searches_refused_total',
    help: 'Searches answered 429: their client address had as many searches waiting for their turn as it may.',
    registers: [registry],
  });
  let searchCounts = () => ({ running: 0, waiting: 0 });
  new Gauge({
    name: 'krs_searches',
    help: 'Searches running and waiting for their turn (searches take turns between client addresses), by state.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { running, waiting } = searchCounts();
      this.set({ state: 'running' }, running);
      this.set({ state: 'waiting' }, waiting);
    },
  });
  const uploaded = new Counter({ name: 'krs_upload_bytes_total', help: 'File content bytes stored.', registers: [registry] });
  const indexFailures = new Counter({
    name: 'krs_search_index_write_failures_total',
    help: 'Index writes that failed after their database commit; the index lags until `krs reindex` or a restart.',
    registers: [registry],
  });
  const inFlight = new Map<number, number>();
  let nextWrite = 0;
  new Gauge({
    name: 'krs_search_index_lag_seconds',
    help: 'Age of the oldest committed change still being written to the search index (0 when the index is current).',
    registers: [registry],
    collect() {
      const oldest = Math.min(...inFlight.values());
      this.set(inFlight.size === 0 ? 0 : (now() - oldest) / 1000);
    },
  });
  let counted: { at: number; value: RecordCounts } | null = null;
  const countRecords = options.countRecords;
  if (countRecords !== undefined) {
    new Gauge({
      name: 'krs_records',
      help: 'Records by kind (resource, package) and state (draft, published).',
      labelNames: ['kind', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        if (counted === null || now() - counted.at > (options.countCacheMs ?? 10_000)) {
          // The database away (or slower than a scrape may wait) must not take every other
          // metric with it, the 503s that show the outage among them: the series is left out
          // until a count succeeds again.
          const value = await withinMs(countRecords(), options.countTimeoutMs ?? 2_000).catch(() => null);
          if (value === null) return;
          counted = { at: now(), value };
        }
        for (const c of counted.value) this.set({ kind: c.kind, state: c.state }, c.count);
      },
    });
  }

  // Resolving a child hashes its labels; doing it once per combination keeps the hot path to two adds.
  const children = new Map<string, { count: ReturnType<typeof requests.labels>; latency: ReturnType<typeof latency.labels> }>();
  const childOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (child === undefined) {
      const labels = { method, route, status: String(status) };
      child = { count: requests.labels(labels), latency: latency.labels(labels) };
      children.set(key, child);
    }
    return child;
  };

  async function timed<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const started = now();
    try {
      return await work();
    } finally {
      searchOps.observe({ operation }, (now() - started) / 1000);
    }
  }

  /** Index writes follow a commit: while one runs, the index is behind the database. */
  async function indexWrite(operation: string, work: () => Promise<void>): Promise<void> {
    const id = nextWrite++;
    inFlight.set(id, now());
    try {
      await timed(operation, work);
    } catch (e) {
      indexFailures.inc();
      throw e;
    } finally {
      inFlight.delete(id);
    }
  }

  return {
    registry,
    contentType: registry.contentType,
    observeRequest({ method, route, status, seconds }) {
      const child = childOf(method, route, status);
      child.count.inc();
      child.latency.observe(seconds);
    },
    observeRefusedConnection(reason) {
      refused.inc({ reason });
    },
    observeRefusedBody(reason) {
      refusedBodies.inc({ reason });
    },
    trackBodyMemory(held) {
      bodyBytesHeld = held;
    },
    observeRefusedSearch() {
      refusedSearches.inc();
    },
    trackSearches(counts) {
      searchCounts = counts;
    },
    observeQuery(statement, seconds) {
      const kind = statement.trimStart().slice(0, 8).split(/\s/, 1)[0]?.toLowerCase() ?? '';
      queries.observe({ statement: STATEMENTS.has(kind) ? kind : 'other' }, seconds);
    },
    instrumentSearch(index) {
      return {
        ...index,
        upsert: (docs) => indexWrite('upsert', () => index.upsert(docs)),
        remove: (keys) => indexWrite('remove', () => index.remove(keys)),
        search: (request) => timed('search', () => index.search(request)),
        keysOfParent: (parentId) => timed('keys_of_parent', () => index.keysOfParent(parentId)),
      };
    },
    instrumentStorage(storage) {
      return {
        ...storage,
        async write(blobId, body, limits) {
          const stored = await storage.write(blobId, body, limits);
          uploaded.inc(stored.size);
          return stored;
        },
      };
    },
    render: () => registry.metrics(),
  };
}
