import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from './client-address.ts';

describe('the client address behind trusted proxies', () => {
  const trusted = trustedProxies(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32']);

  it('takes the nearest address X-Forwarded-For names that is not a trusted proxy', () => {
    expect(clientAddress(trusted, '10.1.2.3', '203.0.113.9')).toBe('203.0.113.9');
    // Each proxy appends the address it was reached from: the client cannot pass for another by writing the header itself.
    expect(clientAddress(trusted, '10.1.2.3', '198.51.100.1, 203.0.113.9, 192.0.2.7')).toBe('203.0.113.9');
    expect(clientAddress(trusted, '::ffff:10.1.2.3', '203.0.113.9:51234')).toBe('203.0.113.9');
    expect(clientAddress(trusted, '2001:db8::1', '[2001:db8:1::5]:443, [2a00:1450::1]:51234')).toBe('2a00:1450::1');
  });

  it('ignores the header from any other address, and without it keeps the peer', () => {
    expect(clientAddress(trusted, '203.0.113.50', '198.51.100.1')).toBe('203.0.113.50');
    expect(clientAddress(trusted, '10.1.2.3', undefined)).toBe('10.1.2.3');
    expect(clientAddress(trusted, undefined, '198.51.100.1')).toBeUndefined();
    expect(clientAddress(trustedProxies([]), '10.1.2.3', '198.51.100.1')).toBe('10.1.2.3');
  });

  it('stops at the trusted hop that wrote an entry that is no address, and takes the leftmost when all are trusted', () => {
    expect(clientAddress(trusted, '10.1.2.3', 'unknown, 192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddress(trusted, '10.1.2.3', 'garbage')).toBe('10.1.2.3');
    expect(clientAddress(trusted, '10.1.2.3', '10.9.9.9, 192.0.2.7')).toBe('10.9.9.9');
  });

  it('reads at most 32 hops of a header of thousands', () => {
    const long = [...Array.from({ length: 5000 }, () => '198.51.100.1'), ...Array.from({ length: 40 }, () => '10.0.0.1')].join(', ');
    expect(clientAddress(trusted, '10.1.2.3', long)).toBe('10.0.0.1');
  });

  it('refuses an entry that is neither an address nor a CIDR block', () => {
    expect(() => trustedProxies(['10.0.0.0/8', 'proxy.internal'])).toThrow('"proxy.internal" is neither an IP address nor a CIDR block');
    expect(() => trustedProxies(['10.0.0.0/40'])).toThrow(/10\.0\.0\.0\/40/);
  });
});
