/**
 * The client address a request is counted under behind trusted reverse proxies. Searches take
 * turns between client addresses, and request bodies and answers are held to a share per address
 * (search-gate.ts, body-budget.ts); behind a load balancer every request comes from the
 * balancer's address, which made every client one. When the connection comes from an address
 * the operator trusts (`KRS_TRUSTED_PROXIES`: addresses and CIDR blocks), the client is the
 * nearest address in `X-Forwarded-For` that is not itself trusted: read from the right, as each
 * proxy appends the address it was reached from, so a client cannot pass for another by writing
 * the header itself. From any other address the header is ignored.
 */
import ipaddr from 'ipaddr.js';

export type TrustedProxies = (address: string) => boolean;

/** Most hops read from `X-Forwarded-For`: a header of thousands of entries costs no more than this. */
const MOST_HOPS = 32;

/** Throws a message naming the entry that is neither an address nor a CIDR block. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const blocks = entries.map((entry) => {
    const text = entry.trim();
    try {
      if (text.includes('/')) return ipaddr.parseCIDR(text);
      const address = ipaddr.process(text);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
    } catch {
      throw new Error(`"${text}" is neither an IP address nor a CIDR block`);
    }
  });
  return (address) => {
    const parsed = parsedAddress(address);
    return parsed !== null && blocks.some(([block, bits]) => parsed.kind() === block.kind() && parsed.match(block, bits));
  };
}

/** An address as `X-Forwarded-For` may write it (with a port, IPv6 in brackets), IPv4-mapped IPv6 as IPv4; null when it is none. */
function parsedAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1] as string;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  return ipaddr.isValid(address) ? ipaddr.process(address) : null;
}

/**
 * The client behind `peer`: `peer` itself unless it is trusted; else, reading `forwardedFor` from
 * the right, the first address not trusted. An entry that is no address stops the walk at the
 * trusted hop that wrote it; all trusted, the leftmost.
 */
export function clientAddress(trusted: TrustedProxies, peer: string | undefined, forwardedFor: string | undefined): string | undefined {
  if (peer === undefined || forwardedFor === undefined || !trusted(peer)) return peer;
  const hops = forwardedFor.split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= Math.max(0, hops.length - MOST_HOPS); i--) {
    const parsed = parsedAddress(hops[i] as string);
    if (parsed === null) return client;
    client = parsed.toString();
    if (!trusted(client)) return client;
  }
  return client;
}
