/**
 * The API reference in a real browser (the Chromium of @sparticuz/chromium, driven by
 * playwright-core) with every request to another origin refused: it must still render the
 * operations of the document, so it works offline and loads nothing from a CDN.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp } from './make-app.ts';
import { serverDir } from './real-server.ts';

let server: ServerType;
let browser: Browser;
let origin = '';

beforeAll(async () => {
  const { app } = await makeApp();
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('the API reference in a browser', () => {
  it('renders every tag and operation with other origins cut off, and no script errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const elsewhere: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${origin}/api/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    const tags = await page.locator('.opblock-tag').count();
    const doc = (await (await fetch(`${origin}/api/openapi.json`)).json()) as { tags: unknown[] };
    expect(tags).toBe(doc.tags.length);
    await expect.poll(() => page.locator('.opblock').count()).toBeGreaterThan(50);
    await expect.poll(() => page.locator('.info .title').innerText()).toContain('Knowledge Records Service API');
    mkdirSync(join(serverDir, 'test-output'), { recursive: true });
    await page.screenshot({ path: join(serverDir, 'test-output', 'api-docs.png') });
    // One operation opened: its request body schema and its answers, errors included, are shown.
    await page.locator('#operations-Knowledge_Resources-postApiRecords .opblock-summary').click();
    const opened = page.locator('#operations-Knowledge_Resources-postApiRecords');
    await expect.poll(() => opened.locator('.responses-table .response-col_status').allInnerTexts()).toEqual(expect.arrayContaining(['201', '400', '401', '415']));
    await expect.poll(() => opened.locator('.opblock-section-request-body').count()).toBe(1);
    await page.screenshot({ path: join(serverDir, 'test-output', 'api-docs-operation.png'), fullPage: false });
    // Swagger UI's own warnings and errors about the document (an unsupported field, a bad $ref).
    expect(await page.locator('.errors-wrapper, .version-pragma').count()).toBe(0);
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
