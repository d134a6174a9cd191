/**
 * Bounds on open connections. Every connection holds a file descriptor for as long as its client
 * keeps it open, idle or sending its headers a byte at a time; a client opening enough of them
 * used up the process's descriptors, and past that the kernel refused every other client and no
 * file, upload or download could be opened. A connection over a bound is answered at once with a
 * JSON error and closed, before any request on it is read: 429 when its client holds too many,
 * 503 when the server as a whole does.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ConnectionBounds {
  /** Most connections open at once from one client address (IPv6: one /64); null, no bound. */
  perClient: number | null;
  /** Most connections open at once in all; null, no bound. */
  total: number | null;
  /** Addresses the per-client bound does not apply to: reverse proxies, whose connections carry many clients. */
  exempt?: (address: string) => boolean;
}

export type RefusalReason = 'per_client' | 'total';

/** Descriptors kept for the database, the search index, files being uploaded or read, and logs. */
const RESERVED_DESCRIPTORS = 1024;

/**
 * The total bound when none is configured: the process's open-file limit less a reserve, read
 * where the system shows it (Linux); null where it does not.
 */
export function defaultTotalBound(limitsFile = '/proc/self/limits'): number | null {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\d+|unlimited)/m.exec(text)?.[1];
  if (soft === undefined || soft === 'unlimited') return null;
  return Math.max(64, Number(soft) - RESERVED_DESCRIPTORS);
}

/**
 * The address a client is counted under. IPv6 addresses count by their first 64 bits, the
 * block one subscriber is usually given, so that cycling through its addresses gains nothing;
 * IPv4 addresses written as IPv6 (`::ffff:a.b.c.d`) count as themselves.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || !ipaddr.isValid(address)) return address ?? '';
  const parsed = ipaddr.process(address);
  if (parsed instanceof ipaddr.IPv4) return parsed.toString();
  const block = parsed.parts.slice(0, 4);
  return `${new ipaddr.IPv6([...block, 0, 0, 0, 0]).toString()}/64`;
}

function refuse(socket: Socket, status: 429 | 503, message: string): void {
  const body = JSON.stringify({ status, message });
  const reason = status === 429 ? 'Too Many Requests' : 'Service Unavailable';
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/** Counts `server`'s connections by client and refuses those over `bounds`. */
export function guardConnections(server: Server, bounds: ConnectionBounds, onRefused: (reason: RefusalReason) => void = () => undefined): void {
  if (bounds.perClient === null && bounds.total === null) return;
  const byClient = new Map<string, number>();
  let open = 0;
  // First among the listeners, so a refused socket is closed before the HTTP parser reads from it.
  server.prependListener('connection', (socket: Socket) => {
    if (bounds.total !== null && open >= bounds.total) {
      onRefused('total');
      return refuse(socket, 503, 'The server has as many connections open as it can serve; try again shortly.');
    }
    const key = clientKey(socket.remoteAddress);
    const held = byClient.get(key) ?? 0;
    const exempt = bounds.exempt !== undefined && socket.remoteAddress !== undefined && bounds.exempt(socket.remoteAddress);
    if (bounds.perClient !== null && held >= bounds.perClient && !exempt) {
      onRefused('per_client');
      return refuse(socket, 429, `Too many connections open from this address (at most ${bounds.perClient}); close some and try again.`);
    }
    open++;
    byClient.set(key, held + 1);
    socket.once('close', () => {
      open--;
      const left = (byClient.get(key) ?? 1) - 1;
      if (left === 0) byClient.delete(key);
      else byClient.set(key, left);
    });
  });
}
