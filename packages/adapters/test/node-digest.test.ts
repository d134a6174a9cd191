import { describe, expect, it } from 'vitest';
import { sha256Hex } from '@krs/domain';
import { createNodeDigest } from '../src/index.ts';

describe('node digest', () => {
  it('gives what the domain stores tokens under without it (WebCrypto), for any text', async () => {
    const digest = createNodeDigest();
    for (const text of ['', 'a-token_of-43-characters-0123456789abcdefgh', 'ünïcödé 🌊', 'x'.repeat(10_000)]) {
      expect(digest.sha256Hex(text)).toBe(await sha256Hex(text));
    }
    expect(digest.sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
