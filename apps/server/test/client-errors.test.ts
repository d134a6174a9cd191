import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../src/client-errors.ts';
import { rawExchange } from './raw-exchange.ts';

let server: Server | null = null;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A server answering every request after `delayMs`, as a handler awaiting its store does. */
async function listening(delayMs: number): Promise<number> {
  server = createServer((_req, res) => setTimeout(() => res.end('{"ok":true}'), delayMs));
  answerClientErrors(server);
  await new Promise<void>((ok) => server?.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

describe('answerClientErrors', () => {
  it('answers a request followed on its connection by bytes that are not HTTP, then closes the connection', async () => {
    // A DELETE whose body was sent without Content-Length: the body parses as a second request.
    const port = await listening(30);
    const text = await rawExchange(port, 'DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n{"resources":[]}');
    expect(text.slice(0, 15)).toBe('HTTP/1.1 200 OK');
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text.endsWith('{"ok":true}')).toBe(true);
  });
});
