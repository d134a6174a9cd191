/**
 * A TCP proxy in front of a real server (PostgreSQL, s3rver) that the test can freeze: it keeps
 * every connection open and takes new ones, but forwards nothing either way until thawed, as a
 * server stopped with SIGSTOP or a host that drops packets does. Bytes held while frozen are
 * forwarded on thaw, as a stalled server answers once it resumes.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface FreezableProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  host: string;
  port: number;
  freeze(): void;
  thaw(): void;
  /** Connections the proxy has taken so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startFreezableProxy(target: { host: string; port: number }, listenPort = 0): Promise<FreezableProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  let accepted = 0;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
    // Paused while frozen: nothing is read, so the sender's writes back up as on a dead link.
    if (frozen) s.pause();
  };
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    // pipe() would resume a paused source on its own; forwarding by hand keeps a frozen side still.
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!to.write(chunk)) from.pause();
      });
      to.on('drain', () => {
        if (!frozen) from.resume();
      });
      from.on('end', () => to.end());
      from.on('close', () => to.destroy());
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((ok) => server.listen(listenPort, '127.0.0.1', ok));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host: '127.0.0.1',
    port,
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw() {
      frozen = false;
      for (const s of sockets) s.resume();
    },
    accepted: () => accepted,
    close() {
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      for (const s of sockets) s.destroy();
      return closed;
    },
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: FreezableProxy): string {
  const through = new URL(url);
  through.hostname = proxy.host;
  through.port = String(proxy.port);
  return through.toString();
}
