import { connect } from 'node:net';

/** Writes `raw` on a connection of its own to `port` and reads until the server closes it. */
export const rawExchange = (port: number, raw: string) =>
  new Promise<string>((ok, fail) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('close', () => ok(text));
    socket.on('error', fail);
    socket.write(raw);
  });
