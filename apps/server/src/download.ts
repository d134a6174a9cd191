/**
 * Conditional and range requests on file downloads, as RFC 9110 sections 13 and 14 define them.
 * Pure: request headers and the file's validators in, what to answer out.
 */
import { entityTag, entityTags, noneMatchNames, strongMatch, type EntityTag } from './entity-tags.ts';
import { parseHttpDate } from './http-dates.ts';

export interface Validators {
  /** A strong entity tag, quotes included: `"md5:<hex>"`. */
  etag: string;
  /** Milliseconds since the epoch; compared at whole seconds, as HTTP dates carry them. */
  lastModified: number;
  size: number;
}

export type DownloadPlan =
  | { status: 200 }
  | { status: 206; start: number; end: number }
  | { status: 304 }
  | { status: 412 }
  | { status: 416 };

const seconds = (ms: number) => Math.floor(ms / 1000);

/** `bytes=<first>-<last>` / `bytes=<first>-` / `bytes=-<suffix>`; anything else is no usable range. */
type RangeRequest = { kind: 'none' } | { kind: 'range'; first: number | null; last: number | null };

function rangeRequest(field: string): RangeRequest {
  const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(.*)$/.exec(field);
  // Unknown units are ignored (RFC 9110 14.2), as are several ranges: a multipart answer is
  // optional, and the whole file answers every one of them.
  if (!m || (m[1] ?? '').toLowerCase() !== 'bytes') return { kind: 'none' };
  const specs = (m[2] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (specs.length !== 1) return { kind: 'none' };
  const spec = /^(\d*)-(\d*)$/.exec(specs[0] ?? '');
  if (!spec || (spec[1] === '' && spec[2] === '')) return { kind: 'none' };
  const first = spec[1] === '' ? null : Number(spec[1]);
  const last = spec[2] === '' ? null : Number(spec[2]);
  // last < first is not a valid range; an invalid Range is ignored.
  if (first !== null && last !== null && last < first) return { kind: 'none' };
  return { kind: 'range', first, last };
}

/** The byte range to send, or 416 when it lies past the end. */
function satisfy(range: { first: number | null; last: number | null }, size: number): DownloadPlan {
  if (range.first === null) {
    const suffix = range.last ?? 0;
    if (suffix === 0) return { status: 416 };
    // The only satisfiable range of an empty file is a suffix; its bytes are all of it: none.
    if (size === 0) return { status: 200 };
    return { status: 206, start: Math.max(0, size - suffix), end: size - 1 };
  }
  if (range.first >= size) return { status: 416 };
  return { status: 206, start: range.first, end: Math.min(range.last ?? size - 1, size - 1) };
}

/** `If-Range` holds when its strong entity tag or its date matches the file exactly. */
function ifRangeHolds(field: string, v: Validators): boolean {
  const value = field.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    const tags = entityTags(value);
    return Array.isArray(tags) && tags.length === 1 && strongMatch(tags[0] as EntityTag, entityTag(v.etag));
  }
  const date = parseHttpDate(value);
  return date !== null && seconds(date) === seconds(v.lastModified);
}

/**
 * The answer for a GET (or HEAD) of a file, in RFC 9110 13.2.2's order: If-Match, else
 * If-Unmodified-Since (412); If-None-Match, else If-Modified-Since (304); then If-Range and Range.
 * `now` is the server's clock, which an If-Modified-Since may not be later than.
 */
export function planDownload(header: (name: string) => string | undefined, method: string, v: Validators, now: number = Date.now()): DownloadPlan {
  const current = entityTag(v.etag);
  const ifMatch = header('if-match');
  const ifMatchTags = ifMatch === undefined ? null : entityTags(ifMatch);
  if (ifMatchTags !== null) {
    if (ifMatchTags !== '*' && !ifMatchTags.some((t) => strongMatch(t, current))) return { status: 412 };
  } else {
    const since = header('if-unmodified-since');
    const date = since === undefined ? null : parseHttpDate(since);
    if (date !== null && seconds(v.lastModified) > seconds(date)) return { status: 412 };
  }
  const named = noneMatchNames(header('if-none-match'), current);
  if (named !== null) {
    if (named) return { status: 304 };
  } else {
    const since = header('if-modified-since');
    const date = since === undefined ? null : parseHttpDate(since, now);
    // A date later than the server's clock is invalid and ignored (RFC 9110 13.1.3): a cache
    // holding one would otherwise keep a body the next change does not dislodge.
    if (date !== null && seconds(date) <= seconds(now) && seconds(v.lastModified) <= seconds(date)) return { status: 304 };
  }
  const rangeField = header('range');
  // Range is defined for GET only (a HEAD answers as the GET without Range would).
  if (rangeField === undefined || method !== 'GET') return { status: 200 };
  const ifRange = header('if-range');
  if (ifRange !== undefined && !ifRangeHolds(ifRange, v)) return { status: 200 };
  const range = rangeRequest(rangeField);
  return range.kind === 'none' ? { status: 200 } : satisfy(range, v.size);
}
