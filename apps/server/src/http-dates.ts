/** Timestamp formats of the API, from the domain's ISO 8601 UTC strings. */

/** `2026-01-02T03:04:05.678Z` -> parts with microseconds (the clock has milliseconds). */
function parts(iso: string): { date: string; time: string } {
  const d = new Date(iso);
  const s = d.toISOString(); // normalises any offset to UTC
  return { date: s.slice(0, 10), time: `${s.slice(11, 23)}000` };
}

/** Resources and file entries: `YYYY-MM-DD HH:MM:SS.ffffff` (UTC). */
export const spaced = (iso: string) => {
  const p = parts(iso);
  return `${p.date} ${p.time}`;
};

/** Packages: ISO 8601 with a UTC offset. */
export const isoWithOffset = (iso: string) => {
  const p = parts(iso);
  return `${p.date}T${p.time}+00:00`;
};

/** Access links: ISO 8601 without offset. */
export const isoNaive = (iso: string) => {
  const p = parts(iso);
  return `${p.date}T${p.time}`;
};

export const httpDate = (iso: string) => new Date(iso).toUTCString();
