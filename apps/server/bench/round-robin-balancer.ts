/**
 * A TCP round-robin balancer: each accepted connection goes to the next backend in turn and its
 * bytes are piped both ways, unread. wrk connects to one host only, so two server nodes need
 * something in front; at the TCP level, with keep-alive connections, the balancer's work is
 * two socket copies per request and no HTTP parsing, the least any balancer can do.
 *   `tsx bench/round-robin-balancer.ts <port> <backend port>...` listens on 127.0.0.1 and prints
 *   `listening on <port>`.
 */
import net from 'node:net';
import { pathToFileURL } from 'node:url';

export function startRoundRobinBalancer(port: number, backendPorts: number[]): Promise<net.Server> {
  if (backendPorts.length === 0) throw new Error('a balancer needs at least one backend');
  let next = 0;
  const server = net.createServer((client) => {
    const backendPort = backendPorts[next++ % backendPorts.length] as number;
    const backend = net.connect({ host: '127.0.0.1', port: backendPort });
    client.setNoDelay(true);
    backend.setNoDelay(true);
    client.pipe(backend).pipe(client);
    // One side failing ends the other, as a client would see a dropped connection.
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, ...backends] = process.argv.slice(2).map(Number);
  const server = await startRoundRobinBalancer(port ?? 0, backends);
  const address = server.address() as net.AddressInfo;
  console.log(`listening on ${address.port}`);
}
