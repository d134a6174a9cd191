/** Timestamp formats of the API, from the domain's ISO 8601 UTC strings. */

const UTC_ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:Z|[+-]00:?00)$/;

/**
 * Date and `HH:MM:SS.ffffff` of an instant in UTC. A UTC string is read as written so a clock
 * with microseconds keeps them (Date would cut them to milliseconds); other offsets go through Date.
 */
function parts(iso: string): { date: string; time: string } {
  const m = UTC_ISO.exec(iso);
  if (m) return { date: m[1] ?? '', time: `${m[2] ?? ''}.${(m[3] ?? '').slice(0, 6).padEnd(6, '0')}` };
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new Error(`Not an ISO 8601 timestamp: "${iso}".`);
  const s = d.toISOString();
  return { date: s.slice(0, 10), time: `${s.slice(11, 23)}000` };
}

/** Resources, package `expires_at` and file entries: `YYYY-MM-DD HH:MM:SS.ffffff` (UTC). */
export const spaced = (iso: string): string => {
  const p = parts(iso);
  return `${p.date} ${p.time}`;
};

/** Package `created`/`updated`: ISO 8601 with the UTC offset written `+00:00`. */
export const isoWithOffset = (iso: string): string => {
  const p = parts(iso);
  return `${p.date}T${p.time}+00:00`;
};

/** Access links: ISO 8601 without offset (UTC implied). */
export const isoNaive = (iso: string): string => {
  const p = parts(iso);
  return `${p.date}T${p.time}`;
};

/** RFC 9110 IMF-fixdate for `Last-Modified` / `Date`: `Sun, 06 Nov 1994 08:49:37 GMT`. */
export const httpDate = (iso: string): string => new Date(iso).toUTCString();
