/**
 * Embargoes: `access.embargo.until` is a date (`YYYY-MM-DD`), required while `active`. Until that
 * day the files are closed to everyone but owners and link holders (and the record too when it is
 * restricted); from that day on the embargo has lifted by itself, decided at read time, and the
 * record and its files are open, as InvenioRDM's lift leaves them.
 */
import type { FieldIssue } from '../errors.ts';
import type { Access } from './types.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** What stops the embargo from being published as it is. */
export function embargoIssues(access: Access): FieldIssue[] {
  const { active, until } = access.embargo;
  if (until !== null && !isCalendarDate(until)) return [{ field: 'access.embargo.until', messages: ['Not a valid date (YYYY-MM-DD).'] }];
  if (active && until === null) return [{ field: 'access.embargo.until', messages: ['An active embargo needs the date it lifts.'] }];
  return [];
}

/** Whether the embargo still holds at `now` (an ISO instant); it lifts at the start of its day, UTC. */
export const isUnderEmbargo = (access: Access, now: string): boolean =>
  access.embargo.active && (access.embargo.until === null || access.embargo.until > now.slice(0, 10));

/** Whether an embargo is set but its day has come: the record is to be read as lifted. */
export const hasLapsedEmbargo = (access: Access, now: string): boolean => access.embargo.active && !isUnderEmbargo(access, now);

/** The access in force at `now`: a lapsed embargo opens the record and its files. */
export function accessAt(access: Access, now: string): Access {
  if (!hasLapsedEmbargo(access, now)) return access;
  return { record: 'public', files: 'public', embargo: { ...access.embargo, active: false } };
}

/** A record as it reads at `now`. */
export function liftedAt<R extends { access: Access }>(record: R, now: string): R {
  return hasLapsedEmbargo(record.access, now) ? { ...record, access: accessAt(record.access, now) } : record;
}

/** Whether anyone may fetch the files: record and files public, and no embargo holding. */
export const filesOpenAt = (access: Access, now: string): boolean => {
  const a = accessAt(access, now);
  return a.record === 'public' && a.files === 'public' && !isUnderEmbargo(a, now);
};
