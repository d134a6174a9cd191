import { describe, expect, it } from 'vitest';
import { afterThisTurn } from './after-this-turn.ts';

const nextTurn = () => new Promise((ok) => setImmediate(ok));

describe('a read made after this turn', () => {
  it('is one read for every caller of the turn, begun after the last of them asked', async () => {
    const events: string[] = [];
    let reads = 0;
    const read = afterThisTurn(async () => {
      events.push('read');
      return ++reads;
    });
    const asked = [1, 2, 3].map((n) => {
      events.push(`ask ${n}`);
      return read();
    });
    expect(await Promise.all(asked)).toEqual([1, 1, 1]);
    expect(events).toEqual(['ask 1', 'ask 2', 'ask 3', 'read']);
  });

  it('gives a caller who asks once the read has begun the next read, never the one before', async () => {
    let reads = 0;
    let late: Promise<number> | undefined;
    const read = afterThisTurn(async () => {
      reads++;
      // Asked while this read is under way, as a request taken in meanwhile would.
      late ??= read();
      return reads;
    });
    expect(await read()).toBe(1);
    expect(await late).toBe(2);
    await nextTurn();
    expect(await read()).toBe(3);
  });

  it('hands a failure to every caller of the turn, thrown or rejected', async () => {
    const thrown = afterThisTurn((): Promise<number> => {
      throw new Error('no database');
    });
    await expect(Promise.all([thrown(), thrown()])).rejects.toThrow('no database');
    const rejected = afterThisTurn(() => Promise.reject(new Error('locked')));
    await expect(rejected()).rejects.toThrow('locked');
  });
});
