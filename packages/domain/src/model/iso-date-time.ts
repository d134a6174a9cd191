/**
 * An ISO 8601 date (`YYYY-MM-DD`, midnight UTC) or date-time (`T` or a space between, seconds
 * and fraction optional, `Z` or `±hh:mm` offset; none means UTC, as the service writes its own
 * naive timestamps) as epoch milliseconds, or NaN. `Date.parse` alone would take `2026-02-30`
 * as 2 March, read a date-time without offset in the server's local zone, and accept free text
 * such as `March 7`.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

export function parseIsoDateTime(text: string): number {
  const m = ISO.exec(text.trim());
  if (!m) return Number.NaN;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', fraction = '', zone = 'Z'] = m;
  const month = Number(mo);
  const lastDay = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  if (month < 1 || month > 12 || Number(d) < 1 || Number(d) > lastDay) return Number.NaN;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return Number.NaN;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  return Date.parse(`${y}-${mo}-${d}T${hh}:${mi}:${ss}${fraction.slice(0, 4)}${offset}`);
}
