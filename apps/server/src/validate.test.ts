import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { z } from 'zod';
import { errorResponse } from './errors.ts';
import { MAX_JSON_BYTES } from './json-body.ts';
import { fieldIssues, validate } from './validate.ts';

const body = z.object({
  title: z.string(),
  creators: z.array(z.object({ person_or_org: z.object({ family_name: z.string() }) })).optional(),
});
const query = z.object({ size: z.coerce.number().int().min(1).max(1000).optional() });

function makeApp() {
  const app = new Hono();
  app.post('/things', validate('json', body), (c) => c.json({ got: c.req.valid('json') }, 201));
  app.get('/things', validate('query', query), (c) => c.json({ got: c.req.valid('query') }));
  app.post('/list', validate('json', z.array(z.object({ key: z.string() }))), (c) => c.json({ got: c.req.valid('json') }));
  app.onError((err, c) => errorResponse(err, c));
  return app;
}

const post = (app: Hono, path: string, text: string, type: string | null = 'application/json') =>
  app.request(path, { method: 'POST', body: text, headers: type === null ? {} : { 'content-type': type } });

describe('validate', () => {
  const app = makeApp();

  it('passes valid JSON through typed', async () => {
    const res = await post(app, '/things', JSON.stringify({ title: 'Flood maps' }), 'application/json; charset=utf-8');
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: { title: 'Flood maps' } });
  });

  it('answers bad JSON types 400 "A validation error occurred." with dotted field paths and numeric indexes', async () => {
    const res = await post(app, '/things', JSON.stringify({ title: 3, creators: [{ person_or_org: { family_name: 'A' } }, { person_or_org: {} }] }));
    expect(res.status).toBe(400);
    const json = (await res.json()) as { status: number; message: string; errors: { field: string; messages: string[] }[] };
    expect(json.status).toBe(400);
    expect(json.message).toBe('A validation error occurred.');
    expect(json.errors.map((e) => e.field)).toEqual(['title', 'creators.1.person_or_org.family_name']);
    expect(json.errors.every((e) => e.messages.length > 0)).toBe(true);
  });

  it('names the root _schema when the whole body has the wrong shape', async () => {
    const res = await post(app, '/list', JSON.stringify({ key: 'a' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['_schema']);
  });

  it('answers malformed JSON 400 "Unable to decode JSON data in request body."', async () => {
    const res = await post(app, '/things', '{"title": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 400, message: 'Unable to decode JSON data in request body.' });
  });

  it('answers a body that is not JSON 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const res = await post(app, '/things', 'title=x', type);
      expect(res.status, String(type)).toBe(415);
      expect(((await res.json()) as { status: number }).status).toBe(415);
    }
  });

  it('answers JSON bodies over 10 MiB 413, by declared length and by counting a chunked body', async () => {
    // Strings each within their own cap, so only the body's total size is over.
    const part = 'x'.repeat(1 << 20);
    const big = JSON.stringify({ parts: Array.from({ length: MAX_JSON_BYTES / part.length + 1 }, () => part) });
    const declared = await post(app, '/things', big);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { status: number }).status).toBe(413);
    // A stream body carries no Content-Length, so only the counted read can catch it.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1 << 20) controller.enqueue(bytes.subarray(i, i + (1 << 20)));
        controller.close();
      },
    });
    const chunked = await app.request('/things', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers bad query parameters 400 "Invalid querystring parameters."', async () => {
    expect(await (await app.request('/things?size=20')).json()).toEqual({ got: { size: 20 } });
    const res = await app.request('/things?size=0');
    expect(res.status).toBe(400);
    const json = (await res.json()) as { message: string; errors: { field: string }[] };
    expect(json.message).toBe('Invalid querystring parameters.');
    expect(json.errors.map((e) => e.field)).toEqual(['size']);
  });
});

describe('fieldIssues', () => {
  it('merges messages per field in first-seen order', () => {
    expect(
      fieldIssues([
        { path: ['metadata', 'creators', 0, 'name'], message: 'a' },
        { path: [], message: 'b' },
        { path: ['metadata', 'creators', 0, 'name'], message: 'c' },
        { path: ['metadata', 'creators', 0, 'name'], message: 'a' },
      ]),
    ).toEqual([
      { field: 'metadata.creators.0.name', messages: ['a', 'c'] },
      { field: '_schema', messages: ['b'] },
    ]);
  });
});
