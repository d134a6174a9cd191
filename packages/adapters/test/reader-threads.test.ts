import { describe, expect, it } from 'vitest';
import { leastLoaded } from '../src/search/reader-threads.ts';

describe('which search reader thread takes a query', () => {
  it('is an idle thread when there is one', () => {
    const threads = [
      { name: 'a', waiting: 1, busySince: 900 },
      { name: 'b', waiting: 0, busySince: -Infinity },
      { name: 'c', waiting: 2, busySince: 950 },
    ];
    expect(leastLoaded(threads).name).toBe('b');
  });

  it('is, among the threads with the fewest waiting, the one whose running query started last', () => {
    const threads = [
      { name: 'long step', waiting: 1, busySince: 100 },
      { name: 'fresh step', waiting: 1, busySince: 990 },
      { name: 'queued', waiting: 2, busySince: 999 },
    ];
    expect(leastLoaded(threads).name).toBe('fresh step');
  });
});
