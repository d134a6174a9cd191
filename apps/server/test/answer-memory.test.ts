import { describe, expect, it } from 'vitest';
import { createBodyBudget } from '../src/body-budget.ts';
import { makeApp, metadata } from './make-app.ts';

describe('answers share the memory budget of bodies and downloads', () => {
  async function withLargeRecords(total: number) {
    const budget = createBodyBudget({ total, perClient: null });
    const env = await makeApp({}, undefined, { bodyBudget: budget });
    // Twelve records of about 95 KB stored each: a page of them is answered in more than 1 MiB.
    const description = 'Sea ice extent from passive microwave. '.repeat(2_500);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = (await env.call('POST', '/api/records', { token: env.alice, json: { metadata: { ...metadata, title: `Ice ${i}`, description }, files: { enabled: false } } })).json.id as string;
      expect((await env.call('POST', `/api/records/${id}/draft/actions/publish`, { token: env.alice })).status).toBe(202);
      ids.push(id);
    }
    return { ...env, budget, ids };
  }

  it('refuses a large page while another is still being taken by its client (503, Retry-After, in JSON), and serves it once that one was read', async () => {
    const { app, budget } = await withLargeRecords(10 * 1024 * 1024);
    const page = () => app.request('/api/records?size=12&sort=newest');
    const first = await page();
    expect(first.status).toBe(200);
    expect(Number(first.headers.get('content-length'))).toBeGreaterThan(1024 * 1024);
    // Its answer is not read yet: what it holds is still taken.
    expect(budget.held()).toBeGreaterThan(6 * 1024 * 1024);
    const refused = await page();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ status: 503 });
    // A harvester's page of the same records waits too (OAI-PMH harvesters honour Retry-After).
    const harvest = () => app.request('/oai2d?verb=ListRecords&metadataPrefix=oai_dc');
    expect((await harvest()).status).toBe(503);
    const body = (await first.json()) as { hits: { hits: unknown[]; total: number } };
    expect(body.hits.hits).toHaveLength(12);
    expect(budget.held()).toBe(0);
    const harvested = await harvest();
    expect(harvested.status).toBe(200);
    expect((await harvested.text()).match(/<record>/g)).toHaveLength(12);
    expect(budget.held()).toBe(0);
    const again = await page();
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    expect(budget.held()).toBe(0);
  });

  it('gives back what small answers, record GETs, versions pages and refusals took', async () => {
    const { app, call, budget, ids, alice } = await withLargeRecords(64 * 1024 * 1024);
    const id = ids[0] as string;
    expect((await call('GET', '/api/records?size=2')).status).toBe(200);
    expect((await call('GET', `/api/records/${id}`)).status).toBe(200);
    expect((await app.request(`/api/records/${id}`, { method: 'HEAD' })).status).toBe(200);
    // A HEAD of a page large enough to be held: its body is never read, nothing stays held.
    expect((await app.request('/api/records?size=12', { method: 'HEAD' })).status).toBe(200);
    expect((await call('GET', `/api/records/${id}/versions`)).status).toBe(200);
    expect((await call('GET', `/api/user/records?size=4`, { token: alice })).status).toBe(200);
    // A page between 256 KiB and 1 MiB is written as one body, its share given back at once.
    const mid = await app.request('/api/records?size=5');
    expect(Number(mid.headers.get('content-length'))).toBeGreaterThan(256 * 1024);
    expect(budget.held()).toBe(0);
    await mid.arrayBuffer();
    expect((await call('GET', `/api/records/${id}/draft`, { token: alice })).status).toBe(404);
    expect((await call('GET', '/api/records/nope')).status).toBe(404);
    expect(budget.held()).toBe(0);
  });
});
