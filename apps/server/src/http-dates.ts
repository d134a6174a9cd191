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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * Milliseconds since the epoch of an RFC 9110 HTTP-date (IMF-fixdate, or the obsolete RFC 850
 * and asctime forms recipients must accept); null for anything else, which callers then ignore.
 */
export function parseHttpDate(text: string, now: number = Date.now()): number | null {
  const value = text.trim();
  let day: string | undefined, month: string | undefined, year: number, time: (string | undefined)[];
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    [day, month] = [m[1], m[2]];
    year = Number(m[3]);
    time = m.slice(4, 7);
  } else if ((m = RFC850_DATE.exec(value))) {
    [day, month] = [m[1], m[2]];
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 5.6.7).
    const currentYear = new Date(now).getUTCFullYear();
    year = 2000 + Number(m[3]);
    while (year > currentYear + 50) year -= 100;
    time = m.slice(4, 7);
  } else if ((m = ASCTIME_DATE.exec(value))) {
    [month, day] = [m[1], m[2]];
    year = Number(m[6]);
    time = m.slice(3, 6);
  } else {
    return null;
  }
  const [hours, minutes, seconds] = time.map(Number) as [number, number, number];
  const monthIndex = MONTHS.indexOf(month ?? '');
  const dayOfMonth = Number((day ?? '').trim());
  if (hours > 23 || minutes > 59 || seconds > 60) return null;
  const ms = Date.UTC(year, monthIndex, dayOfMonth, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls 31 Feb over into March; such a date is not a date.
  return new Date(ms).getUTCDate() === dayOfMonth && dayOfMonth >= 1 ? ms : null;
}
