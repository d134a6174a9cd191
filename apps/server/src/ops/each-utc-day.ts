/**
 * Runs a task as each UTC day begins. Embargoes lapse at the start of their day (`until` is a
 * date): reads see that at once, but search and listings follow the lift written down, which an
 * hourly sweep left up to an hour late. The hourly sweep stays for days a timer missed (a clock
 * set back, a machine suspended over midnight).
 */

/** Milliseconds from `now` (epoch ms) to the next UTC midnight, plus `lateMs` so the new date has surely begun. */
export function untilNextUtcDay(now: number, lateMs = 1000): number {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return next.getTime() - now + lateMs;
}

/** Calls `task` at each UTC day's start and every `everyMs` besides; the returned function stops both. */
export function eachUtcDay(task: () => void, everyMs = 60 * 60 * 1000, now: () => number = Date.now): () => void {
  let daily: NodeJS.Timeout;
  const arm = () => {
    daily = setTimeout(() => {
      task();
      arm();
    }, untilNextUtcDay(now())).unref();
  };
  arm();
  const hourly = setInterval(task, everyMs).unref();
  return () => {
    clearTimeout(daily);
    clearInterval(hourly);
  };
}
