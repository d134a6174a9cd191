import { describe, expect, it } from 'vitest';
import { planDownload, type Validators } from './download.ts';

const file: Validators = { etag: '"md5:abc"', lastModified: Date.parse('2026-03-01T10:00:00.400Z'), size: 100 };
const LAST_MODIFIED = 'Sun, 01 Mar 2026 10:00:00 GMT';
const plan = (headers: Record<string, string>, method = 'GET', v: Validators = file) => planDownload((name) => headers[name], method, v);

describe('range requests (RFC 9110 section 14)', () => {
  it('serves one satisfiable byte range as 206, clamping the end to the file', () => {
    expect(plan({ range: 'bytes=0-9' })).toEqual({ status: 206, start: 0, end: 9 });
    expect(plan({ range: 'bytes=90-' })).toEqual({ status: 206, start: 90, end: 99 });
    expect(plan({ range: 'bytes=-10' })).toEqual({ status: 206, start: 90, end: 99 });
    expect(plan({ range: 'bytes=-1000' })).toEqual({ status: 206, start: 0, end: 99 });
    expect(plan({ range: 'bytes=50-5000' })).toEqual({ status: 206, start: 50, end: 99 });
    expect(plan({ range: 'Bytes=1-2' })).toEqual({ status: 206, start: 1, end: 2 });
  });

  it('answers 416 for a range past the end, an empty suffix, or any range of an empty file but a suffix', () => {
    expect(plan({ range: 'bytes=100-' })).toEqual({ status: 416 });
    expect(plan({ range: 'bytes=500-600' })).toEqual({ status: 416 });
    expect(plan({ range: 'bytes=-0' })).toEqual({ status: 416 });
    expect(plan({ range: `bytes=${'9'.repeat(400)}-` })).toEqual({ status: 416 });
    const empty = { ...file, size: 0 };
    expect(plan({ range: 'bytes=0-' }, 'GET', empty)).toEqual({ status: 416 });
    expect(plan({ range: 'bytes=-5' }, 'GET', empty)).toEqual({ status: 200 });
  });

  it('ignores unknown units, several ranges, invalid ranges and Range on HEAD: the whole file, 200', () => {
    for (const range of ['items=0-5', 'bytes=0-1,5-6', 'bytes=0-1, 200-300', 'bytes=5-1', 'bytes=abc', 'bytes=', 'bytes=-', '0-5', 'bytes 0-5']) {
      expect(plan({ range }), range).toEqual({ status: 200 });
    }
    expect(plan({ range: 'bytes=0-5' }, 'HEAD')).toEqual({ status: 200 });
  });

  it('honours If-Range with a strong entity tag or the exact Last-Modified date, else sends the whole file', () => {
    expect(plan({ range: 'bytes=0-9', 'if-range': '"md5:abc"' })).toEqual({ status: 206, start: 0, end: 9 });
    expect(plan({ range: 'bytes=0-9', 'if-range': '"md5:old"' })).toEqual({ status: 200 });
    expect(plan({ range: 'bytes=0-9', 'if-range': 'W/"md5:abc"' })).toEqual({ status: 200 });
    expect(plan({ range: 'bytes=0-9', 'if-range': LAST_MODIFIED })).toEqual({ status: 206, start: 0, end: 9 });
    expect(plan({ range: 'bytes=0-9', 'if-range': 'Sun, 01 Mar 2026 09:59:59 GMT' })).toEqual({ status: 200 });
    expect(plan({ range: 'bytes=0-9', 'if-range': 'not a validator' })).toEqual({ status: 200 });
    // If-Range decides only whether the Range applies; without one it changes nothing.
    expect(plan({ 'if-range': '"md5:old"' })).toEqual({ status: 200 });
  });
});

describe('conditional requests (RFC 9110 section 13)', () => {
  it('answers 304 to If-None-Match by weak comparison, lists and * included', () => {
    for (const tag of ['"md5:abc"', 'W/"md5:abc"', '"x", "md5:abc"', '*']) expect(plan({ 'if-none-match': tag }), tag).toEqual({ status: 304 });
    expect(plan({ 'if-none-match': '"md5:other"' })).toEqual({ status: 200 });
    expect(plan({ 'if-none-match': '"md5:abc"', range: 'bytes=0-1' })).toEqual({ status: 304 });
  });

  it('answers 304 to If-Modified-Since at or after the last change, in any HTTP-date form; ignores it beside If-None-Match', () => {
    expect(plan({ 'if-modified-since': LAST_MODIFIED })).toEqual({ status: 304 });
    expect(plan({ 'if-modified-since': 'Sunday, 01-Mar-26 10:00:00 GMT' })).toEqual({ status: 304 });
    expect(plan({ 'if-modified-since': 'Sun Mar  1 10:00:01 2026' })).toEqual({ status: 304 });
    expect(plan({ 'if-modified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' })).toEqual({ status: 200 });
    expect(plan({ 'if-modified-since': 'yesterday' })).toEqual({ status: 200 });
    expect(plan({ 'if-modified-since': LAST_MODIFIED, 'if-none-match': '"md5:other"' })).toEqual({ status: 200 });
  });

  it('ignores an If-Modified-Since later than the server clock, as invalid (RFC 9110 13.1.3)', () => {
    const now = Date.parse('2026-03-02T12:00:00Z');
    const at = (since: string) => planDownload((name) => ({ 'if-modified-since': since })[name], 'GET', file, now);
    expect(at('Mon, 02 Mar 2026 12:00:00 GMT')).toEqual({ status: 304 });
    expect(at('Mon, 02 Mar 2026 12:00:01 GMT')).toEqual({ status: 200 });
    expect(at('Fri, 01 Jan 2100 00:00:00 GMT')).toEqual({ status: 200 });
  });

  it('answers 412 when If-Match fails by strong comparison or If-Unmodified-Since is before the last change', () => {
    expect(plan({ 'if-match': '"md5:abc"' })).toEqual({ status: 200 });
    expect(plan({ 'if-match': '*' })).toEqual({ status: 200 });
    expect(plan({ 'if-match': '"a", "md5:abc"', range: 'bytes=0-0' })).toEqual({ status: 206, start: 0, end: 0 });
    expect(plan({ 'if-match': 'W/"md5:abc"' })).toEqual({ status: 412 });
    expect(plan({ 'if-match': '"md5:other"' })).toEqual({ status: 412 });
    expect(plan({ 'if-unmodified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' })).toEqual({ status: 412 });
    expect(plan({ 'if-unmodified-since': LAST_MODIFIED })).toEqual({ status: 200 });
    // If-Match wins over If-Unmodified-Since.
    expect(plan({ 'if-match': '"md5:abc"', 'if-unmodified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' })).toEqual({ status: 200 });
  });
});
