/**
 * What an operator's tools see: probes, request log lines and metrics, through `app.request()`;
 * readiness also on the real adapters, broken on disk.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createCore, type Core } from '@krs/domain';
import { createFixedClock, createInMemoryFileStorage, createInMemoryRepositories, createInMemorySearchIndex, createSequentialIds } from '@krs/domain/testing';
import { createApp } from '../src/app.ts';
import { compose } from '../src/compose.ts';
import { readConfig } from '../src/config.ts';
import { createLogger } from '../src/ops/logger.ts';
import { createMetrics, type Metrics } from '../src/ops/metrics.ts';
import { BASE, metadata } from './make-app.ts';

type LogLine = { [field: string]: unknown };

async function opsApp(options: { metricsToken?: string; breakCore?: (core: Core) => Core; level?: 'info' | 'warn' } = {}) {
  const raw: string[] = [];
  const logger = createLogger(options.level ?? 'info', { write: (line: string) => void raw.push(line) });
  const metrics: Metrics = createMetrics({ countRecords: async () => [{ kind: 'resource', state: 'draft', count: 2 }] });
  const { repos, uow } = createInMemoryRepositories();
  const core = createCore({
    repos,
    uow,
    storage: metrics.instrumentStorage(createInMemoryFileStorage()),
    search: metrics.instrumentSearch(createInMemorySearchIndex()),
    clock: createFixedClock('2026-03-01T10:00:00.000Z'),
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 5, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
  const app = createApp(options.breakCore ? options.breakCore(core) : core, {
    baseUrl: BASE,
    ops: { logger, metrics, metricsToken: options.metricsToken ?? null },
  });
  const token = (await core.users.createToken('alice@example.org')).token;
  const lines = (): LogLine[] => raw.map((l) => JSON.parse(l) as LogLine);
  return { app, core, token, raw, lines, metrics };
}

const family = (families: ParsedFamily[], name: string) => families.find((f) => f.name === name);

describe('probes', () => {
  it('says the process is alive and its stores ready', async () => {
    const { app } = await opsApp();
    const alive = await app.request('/healthz');
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: 'ok' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', failing: [], checks: { database: 'ok', storage: 'ok', search: 'ok' } });
  });

  it('answers probes without authentication, even when a client sends a token it made up', async () => {
    const { app } = await opsApp();
    const res = await app.request('/readyz', { headers: { authorization: 'Bearer not-a-user' } });
    expect(res.status).toBe(200);
  });

  describe('on the real stores, broken on disk', () => {
    async function deployment() {
      const dataDir = mkdtempSync(join(tmpdir(), 'krs-ready-'));
      const composed = await compose(readConfig({ KRS_DATA_DIR: dataDir }));
      await composed.warmSearch();
      const app = createApp(composed.core, { baseUrl: BASE });
      return { dataDir, composed, app };
    }

    it('is 503 naming file storage when the data directory cannot hold files', async () => {
      const { dataDir, composed, app } = await deployment();
      try {
        expect((await app.request('/readyz')).status).toBe(200);
        rmSync(join(dataDir, 'files'), { recursive: true, force: true });
        writeFileSync(join(dataDir, 'files'), 'a file where the directory was');
        const res = await app.request('/readyz');
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({ status: 'not ready', failing: ['storage'], checks: { database: 'ok', storage: 'failing', search: 'ok' } });
        expect((await app.request('/healthz')).status).toBe(200);
      } finally {
        await composed.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('is 503 naming the search index when its file is corrupted under the running process', async () => {
      const { dataDir, composed, app } = await deployment();
      try {
        const fd = openSync(join(dataDir, 'search.sqlite'), 'r+');
        writeSync(fd, new Uint8Array(100).fill(0xff), 0, 100, 0);
        closeSync(fd);
        const res = await app.request('/readyz');
        expect(res.status).toBe(503);
        expect(((await res.json()) as { failing: string[] }).failing).toEqual(['search']);
      } finally {
        await composed.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});

describe('request log', () => {
  it('writes one JSON line per request with method, route pattern, status, duration, bytes and the request id, echoed back', async () => {
    const { app, lines } = await opsApp();
    // Over a real socket: the byte count is what went out on it.
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((ok) => server.once('listening', ok));
    try {
      const address = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${address.port}/api/records/abcde-12345`, { headers: { 'x-request-id': 'lb-7f3a.1' } });
      const body = await res.text();
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe('lb-7f3a.1');
      while (lines().length === 0) await new Promise((ok) => setImmediate(ok));
      const [line] = lines();
      expect(line).toMatchObject({ level: 30, service: 'krs', msg: 'request', req_id: 'lb-7f3a.1', method: 'GET', route: '/api/records/:id', path: '/api/records/abcde-12345', status: 404 });
      // Headers included (the cross-origin ones among them), as nginx's bytes_sent.
      expect(line?.['bytes']).toBeGreaterThan(Buffer.byteLength(body) + 'HTTP/1.1 404 Not Found\r\n'.length);
      expect(line?.['bytes']).toBeLessThan(Buffer.byteLength(body) + 700);
      expect(typeof line?.['time']).toBe('string');
      expect(line?.['duration_ms']).toBeGreaterThanOrEqual(0);
      expect(lines()).toHaveLength(1);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });

  it('generates a request id when the client sends none or an unusable one', async () => {
    const { app, lines } = await opsApp();
    const none = await app.request('/healthz');
    const bad = await app.request('/healthz', { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    const ids = [none.headers.get('x-request-id'), bad.headers.get('x-request-id')];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(lines().map((l) => l['req_id'])).toEqual(ids);
  });

  it('never logs the bearer token nor a ?token= access-link secret, even on a refused request', async () => {
    const { app, token, raw, lines } = await opsApp();
    await app.request('/api/records?token=LINKSECRET123&q=flood', { headers: { authorization: `Bearer ${token}` } });
    await app.request('/api/records/abcde-12345?token=LINKSECRET123', { headers: { authorization: 'Bearer WRONGTOKEN999' } });
    expect(lines().map((l) => [l['route'], l['status']])).toEqual([
      ['/api/records', 200],
      ['/api/records/:id', 401],
    ]);
    const text = raw.join('');
    for (const secret of [token, 'LINKSECRET123', 'WRONGTOKEN999', 'flood']) expect(text).not.toContain(secret);
  });

  it('logs a failure the client only sees as a 500 at error level, with its stack, at KRS_LOG_LEVEL=info and warn alike', async () => {
    for (const level of ['info', 'warn'] as const) {
      const { app, lines } = await opsApp({
        level,
        breakCore: (core) => ({ ...core, records: { ...core.records, get: async () => Promise.reject(new Error('disk on fire')) } }),
      });
      const res = await app.request('/api/records/abcde-12345');
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('disk on fire');
      const [line] = lines();
      expect(line).toMatchObject({ level: 50, status: 500, route: '/api/records/:id', err: { message: 'disk on fire' } });
      expect(String((line?.['err'] as { stack?: unknown }).stack)).toContain('disk on fire');
    }
  });

  it('writes no request lines at KRS_LOG_LEVEL=warn, while metrics still count the requests', async () => {
    const { app, lines, metrics } = await opsApp({ level: 'warn' });
    const res = await app.request('/healthz');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines()).toEqual([]);
    expect(await metrics.render()).toMatch(/krs_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/);
  });

  it('labels requests no route matches as unmatched, whatever their path', async () => {
    const { app, lines } = await opsApp();
    await app.request('/wp-admin/setup.php');
    expect(lines()[0]).toMatchObject({ route: 'unmatched', status: 404 });
  });
});

describe('metrics', () => {
  async function scrape(app: Awaited<ReturnType<typeof opsApp>>['app'], headers: Record<string, string> = {}) {
    const res = await app.request('/metrics', { headers });
    return { res, families: res.status === 200 ? parsePrometheusTextFormat(await res.text()) : [] };
  }

  it('exposes request counts and latency by route pattern and status, process and store figures, in the text format', async () => {
    const { app, token, metrics } = await opsApp();
    const auth = { authorization: `Bearer ${token}` };
    const created = await app.request('/api/records', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ metadata }) });
    const id = ((await created.json()) as { id: string }).id;
    await app.request(`/api/records/${id}/draft/files`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify([{ key: 'a.txt' }]) });
    const upload = await app.request(`/api/records/${id}/draft/files/a.txt/content`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: 'twelve bytes' });
    expect(upload.status).toBe(200);
    for (const n of ['aaaaa-00001', 'bbbbb-00002']) await app.request(`/api/records/${n}`);
    await app.request('/api/records?q=heat');

    const { res, families } = await scrape(app);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const requests = family(families, 'krs_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    const sample = (labels: Record<string, string>) => requests?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    expect(sample({ method: 'GET', route: '/api/records/:id', status: '404' })?.value).toBe('2');
    expect(sample({ method: 'POST', route: '/api/records', status: '201' })?.value).toBe('1');
    // Label values are patterns, never raw ids.
    expect(requests?.metrics.some((m) => m.labels?.['route']?.includes('aaaaa'))).toBe(false);
    expect(family(families, 'krs_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    // The text parser folds labelled histogram series together; prom-client reads its own back per series.
    const latency = await metrics.registry.getSingleMetric('krs_http_request_duration_seconds')?.get();
    const countOf = (route: string, method: string) =>
      latency?.values.find((v) => (v as { metricName?: string }).metricName === 'krs_http_request_duration_seconds_count' && v.labels['route'] === route && v.labels['method'] === method)?.value;
    expect(countOf('/api/records', 'GET')).toBe(1);
    expect(countOf('/api/records/:id', 'GET')).toBe(2);
    expect(res.headers.get('content-type')).toContain('version=0.0.4');
    expect(Number(family(families, 'krs_upload_bytes_total')?.metrics[0]?.value)).toBe('twelve bytes'.length);
    expect(family(families, 'krs_records')?.metrics).toEqual([{ labels: { kind: 'resource', state: 'draft' }, value: '2' }]);
    const searchOps = (await metrics.registry.getSingleMetric('krs_search_duration_seconds')?.get())?.values.map((v) => v.labels['operation']);
    expect(searchOps).toEqual(expect.arrayContaining(['search', 'upsert']));
    expect(family(families, 'krs_search_index_lag_seconds')?.metrics[0]?.value).toBe('0');
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'process_resident_memory_bytes', 'krs_db_query_duration_seconds']) {
      expect(family(families, name), name).toBeDefined();
    }
  });

  it('asks for its own bearer token when KRS_METRICS_TOKEN is set, which is not a user token', async () => {
    const { app, token } = await opsApp({ metricsToken: 'scrape-secret' });
    expect((await scrape(app)).res.status).toBe(401);
    expect((await scrape(app, { authorization: `Bearer ${token}` })).res.status).toBe(401);
    expect((await scrape(app, { authorization: 'Bearer scrape-secre' })).res.status).toBe(401);
    const ok = await scrape(app, { authorization: 'Bearer scrape-secret' });
    expect(ok.res.status).toBe(200);
    expect(family(ok.families, 'krs_http_requests_total')).toBeDefined();
  });
});

describe('verify on the real stores', () => {
  it('finds a flipped byte, a truncated blob and a missing blob on disk, after a clean first pass', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krs-verify-'));
    const composed = await compose(readConfig({ KRS_DATA_DIR: dataDir }));
    try {
      const { core } = composed;
      const alice = { userId: (await core.users.create('alice@example.org')).id, linkIds: [] };
      const { record } = await core.records.createDraft(alice, 'resource', { metadata });
      const keys = ['flip.bin', 'short.bin', 'gone.bin', 'fine.bin'];
      await core.files.start(alice, 'resource', record.id, keys);
      for (const key of keys) {
        const body = `content of ${key} `.repeat(50);
        await core.files.upload(alice, 'resource', record.id, key, (async function* () {
          yield new TextEncoder().encode(body);
        })(), body.length);
        await core.files.commit(alice, 'resource', record.id, key);
      }
      const entries = (await core.files.list(alice, 'resource', record.id, 'draft')).entries;
      const fileOf = (key: string) => {
        const id = entries.find((e) => e.key === key)?.blob?.id ?? '';
        return join(dataDir, 'files', 'blobs', id.slice(0, 2), id);
      };
      expect((await core.operations.verify()).ok).toBe(true);
      const flipped = readFileSync(fileOf('flip.bin'));
      flipped[100] = flipped[100]! ^ 0x01;
      writeFileSync(fileOf('flip.bin'), flipped);
      truncateSync(fileOf('short.bin'), 10);
      rmSync(fileOf('gone.bin'));
      const report = await core.operations.verify();
      expect(report.ok).toBe(false);
      expect(report.files.problems.map((p) => `${p.key} ${p.kind}`).sort()).toEqual(['flip.bin md5', 'gone.bin missing', 'short.bin size']);
    } finally {
      await composed.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

