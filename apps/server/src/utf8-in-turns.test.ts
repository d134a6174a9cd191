import { describe, expect, it } from 'vitest';
import { utf8InTurns } from './utf8-in-turns.ts';

const noWait = () => Promise.resolve();

describe('utf8InTurns', () => {
  it('gives the bytes Buffer.from gives, whatever falls at a slice boundary', async () => {
    // Seven code units a repetition: slice boundaries (every 65,536 units) fall at each place in
    // it in turn, between the two halves of the emoji among them.
    const text = 'a😀é€yz'.repeat(80_000);
    expect(Buffer.from(await utf8InTurns(text, noWait)).equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('gives the loop back between slices of a long text', async () => {
    let turns = 0;
    await utf8InTurns('x'.repeat(1_000_000), async () => {
      turns++;
    });
    expect(turns).toBeGreaterThan(4);
  });

  it('encodes the empty text as no bytes', async () => {
    expect((await utf8InTurns('', noWait)).byteLength).toBe(0);
  });
});
