import { describe, expect, it } from 'vitest';
import { createMetrics, type RecordCounts } from './metrics.ts';

describe('metrics while the database is away', () => {
  it('still renders every other metric when the record count fails or hangs, and counts again once it answers', async () => {
    let answer: () => Promise<RecordCounts> = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const metrics = createMetrics({ countRecords: () => answer(), countCacheMs: 0, countTimeoutMs: 50 });
    metrics.observeRequest({ method: 'GET', route: '/api/records', status: 503, seconds: 0.01, bytes: 100 });

    const refused = await metrics.render();
    expect(refused).toContain('krs_http_requests_total{method="GET",route="/api/records",status="503"} 1');
    expect(refused).toContain('process_resident_memory_bytes');
    expect(refused).not.toMatch(/^krs_records\{/m);

    answer = () => new Promise(() => undefined);
    const started = performance.now();
    expect(await metrics.render()).not.toMatch(/^krs_records\{/m);
    expect(performance.now() - started).toBeLessThan(2_000);

    answer = async () => [{ kind: 'resource', state: 'published', count: 7 }];
    expect(await metrics.render()).toContain('krs_records{kind="resource",state="published"} 7');
  });
});
