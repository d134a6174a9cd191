import { describe, expect, it } from 'vitest';
import { createLinkTokens } from './link-tokens.ts';

describe('access-link tokens', () => {
  const tokens = createLinkTokens('one server secret, long enough');

  it('are derived from the link id, the same every time, and name their link', async () => {
    const t = await tokens.tokenFor('link-1');
    expect(t).toBe(await tokens.tokenFor('link-1'));
    expect(t).not.toBe(await tokens.tokenFor('link-2'));
    expect(t.startsWith('link-1.')).toBe(true);
    expect(await tokens.linkIdsOf([t])).toEqual(['link-1']);
  });

  it('grant nothing when forged, altered, moved to another link or made under another secret', async () => {
    const t = await tokens.tokenFor('link-1');
    const mac = t.slice('link-1.'.length);
    const other = await createLinkTokens('another server secret, rotated').tokenFor('link-1');
    const flipped = `link-1.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect(await tokens.linkIdsOf(['link-1', 'link-1.', `link-2.${mac}`, flipped, other, `${t}x`, '.', '', 'a.%%%'])).toEqual([]);
  });

  it('look at a bounded number of bounded tokens', async () => {
    const good = await tokens.tokenFor('link-9');
    expect(await tokens.linkIdsOf([...Array.from({ length: 8 }, () => 'junk.AAAA'), good])).toEqual([]);
    expect(await tokens.linkIdsOf([`${'x'.repeat(200)}.${good}`])).toEqual([]);
  });

  it('grant nothing, and never fail, for text after the dot of any length or kind', async () => {
    const real = await tokens.tokenFor('link-1');
    const mac = real.slice(real.lastIndexOf('.') + 1);
    const given = [];
    for (let n = 0; n <= 50; n++) given.push(`link-1.${mac.repeat(2).slice(0, n)}`, `link-1.${'a'.repeat(n)}`);
    given.push('_exists_:metadata.title', 'a.b.c', '.abcde', 'link-1.', 'link-1.=', 'link-1.a b', `link-1.${mac}=`, `link-1.${mac.slice(0, 42)}+`);
    for (const token of given) expect(await tokens.linkIdsOf([token]), token).toEqual(token === real ? ['link-1'] : []);
  });

  it('refuse a secret too short to protect anything', () => {
    expect(() => createLinkTokens('short')).toThrow();
  });
});
