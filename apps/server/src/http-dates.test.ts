import { describe, expect, it } from 'vitest';
import { httpDate, isoNaive, isoWithOffset, parseHttpDate, spaced } from './http-dates.ts';

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

describe('reading HTTP dates', () => {
  const ms = Date.parse('1994-11-06T08:49:37Z');
  it('reads the three forms RFC 9110 asks recipients to accept', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(ms);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(ms);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(ms);
  });

  it('reads a two-digit year more than 50 years ahead as the past century', () => {
    expect(parseHttpDate('Thursday, 01-Jan-30 00:00:00 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(parseHttpDate('Friday, 01-Jan-99 00:00:00 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(Date.parse('1999-01-01T00:00:00Z'));
  });

  it('answers null for anything else, impossible dates included', () => {
    for (const bad of ['', 'yesterday', '2026-03-01T10:00:00Z', 'Sun, 06 Nov 1994 08:49:37 UTC', 'Sun, 31 Feb 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 24:00:00 GMT', 'Sun, 6 Nov 1994 08:49:37 GMT']) {
      expect(parseHttpDate(bad), bad).toBeNull();
    }
  });
});
