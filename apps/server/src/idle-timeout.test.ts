import { createServer } from 'node:http';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { idleLimited } from './idle-timeout.ts';
import { httpServerOptions } from './server-options.ts';

async function collect(source: AsyncIterable<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of source) out.push(...chunk);
  return out;
}

describe('idle-limited upload bodies', () => {
  it('passes every chunk through while they keep coming', async () => {
    async function* steady() {
      for (let i = 0; i < 4; i++) {
        await new Promise((ok) => setTimeout(ok, 5));
        yield new Uint8Array([i]);
      }
    }
    expect(await collect(idleLimited(steady(), 1000))).toEqual([0, 1, 2, 3]);
  });

  it('throws a 408 when the source goes silent', async () => {
    async function* stalls() {
      yield new Uint8Array([1]);
      await new Promise(() => undefined);
    }
    const failure = await collect(idleLimited(stalls(), 20)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HTTPException);
    expect((failure as HTTPException).status).toBe(408);
  });

  it('releases the source when the consumer stops early', async () => {
    let released = false;
    async function* endless() {
      try {
        for (;;) yield new Uint8Array([7]);
      } finally {
        released = true;
      }
    }
    for await (const _chunk of idleLimited(endless(), 1000)) break;
    expect(released).toBe(true);
  });
});

describe('HTTP server limits', () => {
  it('never cuts a request for its total duration, and still bounds slow headers', () => {
    const server = createServer(httpServerOptions());
    expect(server.requestTimeout).toBe(0);
    expect(server.headersTimeout).toBe(60_000);
    server.close();
  });
});
