import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clientKey, defaultTotalBound, guardConnections, type ConnectionBounds, type RefusalReason } from './connection-guard.ts';

describe('clientKey', () => {
  it('counts IPv4 as itself, IPv4 written as IPv6 as the IPv4 address, and IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey(undefined)).toBe('');
  });
});

describe('defaultTotalBound', () => {
  const dir = mkdtempSync(join(tmpdir(), 'krs-limits-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const limits = (openFiles: string) => {
    const file = join(dir, `limits-${openFiles}`);
    writeFileSync(file, `Limit                     Soft Limit           Hard Limit           Units\nMax processes             1000                 1000                 processes\nMax open files            ${openFiles}                20000                files\n`);
    return file;
  };
  it('keeps descriptors for files and the database below the open-file limit', () => {
    expect(defaultTotalBound(limits('20000'))).toBe(20000 - 1024);
    expect(defaultTotalBound(limits('1024'))).toBe(64);
    expect(defaultTotalBound(limits('unlimited'))).toBeNull();
    expect(defaultTotalBound(join(dir, 'missing'))).toBeNull();
  });
});

describe('guardConnections', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok))));
  });

  async function start(bounds: ConnectionBounds) {
    const refusals: RefusalReason[] = [];
    let handled = 0;
    const server = createServer((_req, res) => {
      handled++;
      res.end('served');
    });
    guardConnections(server, bounds, (r) => refusals.push(r));
    servers.push(server);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    return { port: (server.address() as AddressInfo).port, refusals, handled: () => handled };
  }

  /** Opens a connection, sends one request, and reads what comes back until the server closes or answers. */
  function exchange(port: number, request = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
    return new Promise((ok, fail) => {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      const closed = new Promise<void>((done) => socket.on('close', () => done()));
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        socket.write(request);
        ok({ socket, text: () => text, closed });
      });
      socket.once('error', fail);
    });
  }

  const idle = (port: number) =>
    new Promise<Socket>((ok) => {
      const socket = connect(port, '127.0.0.1', () => ok(socket));
      sockets.push(socket);
    });

  /** The first answer a new connection gets, trying again while the server has yet to see a closed one go. */
  const answered = async (port: number) => {
    for (let attempt = 0; ; attempt++) {
      const c = await exchange(port);
      for (let i = 0; i < 250 && !c.text().includes('\r\n\r\n'); i++) await new Promise((r) => setTimeout(r, 20));
      if (!c.text().startsWith('HTTP/1.1 429') || attempt === 50) return c;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('answers a client over its bound 429 in JSON and closes, without reading its request, and serves it again once it closes one', async () => {
    const { port, refusals, handled } = await start({ perClient: 2, total: null });
    const held = [await idle(port), await idle(port)];
    const refused = await exchange(port);
    await refused.closed;
    expect(refused.text()).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(refused.text()).toContain('content-type: application/json');
    expect(JSON.parse(refused.text().split('\r\n\r\n')[1] ?? '')).toEqual({ status: 429, message: expect.stringContaining('at most 2') });
    expect(refusals).toEqual(['per_client']);
    expect(handled()).toBe(0);

    held[0]?.destroy();
    const served = await answered(port);
    expect(served.text()).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(handled()).toBe(1);
  });

  it('holds a trusted reverse proxy to no bound per address, only to the bound on all', async () => {
    const { port, refusals, handled } = await start({ perClient: 1, total: 4, exempt: (address) => address === '127.0.0.1' });
    await idle(port);
    await idle(port);
    const served = await exchange(port);
    for (let i = 0; i < 100 && !served.text().includes('served'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(served.text()).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(handled()).toBe(1);
    await idle(port);
    const refused = await exchange(port);
    await refused.closed;
    expect(refused.text()).toMatch(/^HTTP\/1\.1 503 /);
    expect(refusals).toEqual(['total']);
  });

  it('answers 503 past the bound on all connections', async () => {
    const { port, refusals } = await start({ perClient: null, total: 3 });
    for (let i = 0; i < 3; i++) await idle(port);
    const refused = await exchange(port);
    await refused.closed;
    expect(refused.text()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(JSON.parse(refused.text().split('\r\n\r\n')[1] ?? '')).toMatchObject({ status: 503 });
    expect(refusals).toEqual(['total']);
  });

  it('counts keep-alive requests on one connection once', async () => {
    const { port, handled } = await start({ perClient: 1, total: null });
    const c = await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 100 && c.text().split('served').length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(c.text().match(/HTTP\/1\.1 200 OK/g)).toHaveLength(3);
    expect(handled()).toBe(3);
  });
});
