/**
 * Plain JavaScript for a search worker's first lines: the thread lowers its own scheduling
 * priority (nice 10), so that when the cores are busy the main thread, which answers every other
 * request, runs first, and a costly query or a large index write delays only its own answer.
 * Linux gives each thread its own nice value, found through /proc/thread-self; elsewhere, or
 * when the system refuses, the thread keeps the process's priority.
 */
export const LOWER_PRIORITY = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) require('node:os').setPriority(tid, 10);
} catch {}
`;
