import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientErrors } from './client-errors.ts';

let server: Server | null = null;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A server answering every request after `delayMs`, as a handler awaiting its store does. */
async function listening(delayMs: number): Promise<number> {
  server = createServer((_req, res) => setTimeout(() => res.end('{"ok":true}'), delayMs));
  answerClientErrors(server);
  await new Promise<void>((ok) => server?.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

/** Writes `raw` on a connection of its own and reads until the server closes it. */
const exchange = (port: number, raw: string) =>
  new Promise<string>((ok, fail) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('close', () => ok(text));
    socket.on('error', fail);
    socket.write(raw);
  });

describe('answerClientErrors', () => {
  it('answers a request followed on its connection by bytes that are not HTTP, then closes the connection', async () => {
    // A DELETE whose body was sent without Content-Length: the body parses as a second request.
    const port = await listening(30);
    const text = await exchange(port, 'DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n{"resources":[]}');
    expect(text.slice(0, 15)).toBe('HTTP/1.1 200 OK');
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text.endsWith('{"ok":true}')).toBe(true);
  });

  it('answers bytes that are not HTTP alone 400 in JSON', async () => {
    const port = await listening(0);
    const text = await exchange(port, 'HELLO THERE\r\n\r\n');
    expect(text.slice(0, 12)).toBe('HTTP/1.1 400');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ status: 400, message: 'The request is not valid HTTP/1.1.' });
  });
});
