import { afterEach, describe, expect, it, vi } from 'vitest';
import { eachUtcDay, untilNextUtcDay } from './each-utc-day.ts';

describe('eachUtcDay', () => {
  afterEach(() => void vi.useRealTimers());

  it('waits until a second into the next UTC day, whatever the time of day', () => {
    expect(untilNextUtcDay(Date.parse('2026-11-26T23:59:59.500Z'))).toBe(1500);
    expect(untilNextUtcDay(Date.parse('2026-11-26T00:00:00.000Z'))).toBe(24 * 3600 * 1000 + 1000);
    expect(untilNextUtcDay(Date.parse('2026-12-31T12:00:00.000Z'), 0)).toBe(12 * 3600 * 1000);
  });

  it('runs the task as each day begins and every hour besides', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-26T22:30:00.000Z') });
    const days: string[] = [];
    const stop = eachUtcDay(() => days.push(new Date().toISOString()));
    vi.advanceTimersByTime(60 * 60 * 1000);
    expect(days).toEqual(['2026-11-26T23:30:00.000Z']);
    vi.advanceTimersByTime(30 * 60 * 1000 + 1000);
    expect(days).toEqual(['2026-11-26T23:30:00.000Z', '2026-11-27T00:00:01.000Z']);
    vi.advanceTimersByTime(24 * 60 * 60 * 1000);
    expect(days.filter((d) => d.endsWith('T00:00:01.000Z'))).toEqual(['2026-11-27T00:00:01.000Z', '2026-11-28T00:00:01.000Z']);
    // Hourly from 22:30: 25 ticks by the second day's start, and that day's start.
    expect(days).toHaveLength(27);
    stop();
    vi.advanceTimersByTime(48 * 60 * 60 * 1000);
    expect(days).toHaveLength(27);
  });
});
