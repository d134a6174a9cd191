import { describe, expect, it } from 'vitest';
import { httpDate, isoNaive, isoWithOffset, spaced } from './http-dates.ts';

describe('timestamp formats', () => {
  it('writes resources and file entries as YYYY-MM-DD HH:MM:SS.ffffff in UTC', () => {
    expect(spaced('2026-01-02T03:04:05.678Z')).toBe('2026-01-02 03:04:05.678000');
    expect(spaced('2026-01-02T03:04:05Z')).toBe('2026-01-02 03:04:05.000000');
  });

  it('keeps microseconds a clock provides instead of cutting them to milliseconds', () => {
    expect(spaced('2026-01-02T03:04:05.123456Z')).toBe('2026-01-02 03:04:05.123456');
    expect(isoWithOffset('2026-01-02T03:04:05.1234567Z')).toBe('2026-01-02T03:04:05.123456+00:00');
  });

  it('normalises another offset to UTC', () => {
    expect(spaced('2026-01-02T05:04:05.000+02:00')).toBe('2026-01-02 03:04:05.000000');
    expect(isoNaive('2026-01-01T23:30:00.000-01:00')).toBe('2026-01-02T00:30:00.000000');
  });

  it('writes package timestamps as ISO 8601 with +00:00 and access links without an offset', () => {
    expect(isoWithOffset('2026-03-01T10:00:00.000Z')).toBe('2026-03-01T10:00:00.000000+00:00');
    expect(isoNaive('2026-03-01T10:00:00.000Z')).toBe('2026-03-01T10:00:00.000000');
  });

  it('writes HTTP dates in IMF-fixdate form', () => {
    expect(httpDate('1994-11-06T08:49:37.000Z')).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it('refuses text that is not a timestamp rather than printing "Invalid Date"', () => {
    expect(() => spaced('yesterday')).toThrow(/Not an ISO 8601 timestamp/);
  });
});
