import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { handlersInFlight } from './handlers-in-flight.ts';

const req = {} as IncomingMessage;
const res = {} as ServerResponse;

describe('handlers in flight', () => {
  it('settles only once every running handler has ended, whether it succeeded or failed', async () => {
    const finish: (() => void)[] = [];
    const fail: ((e: Error) => void)[] = [];
    const handlers = handlersInFlight(() => new Promise<void>((resolve, reject) => (finish.push(resolve), fail.push(reject))));
    handlers.listener(req, res);
    handlers.listener(req, res);
    let settled: boolean | null = null;
    const waiting = handlers.settled(60_000).then((all) => (settled = all));
    finish[0]?.();
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBeNull();
    fail[1]?.(new Error('the client hung up'));
    await waiting;
    expect(settled).toBe(true);
  });

  it('gives up after its timeout while a handler still runs', async () => {
    const handlers = handlersInFlight(() => new Promise<void>(() => undefined));
    handlers.listener(req, res);
    expect(await handlers.settled(20)).toBe(false);
  });

  it('is settled at once with nothing running, including after a handler that threw', async () => {
    const handlers = handlersInFlight(() => {
      throw new Error('broken');
    });
    expect(() => handlers.listener(req, res)).toThrow('broken');
    expect(await handlers.settled(60_000)).toBe(true);
  });
});
