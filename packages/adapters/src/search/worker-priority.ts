/**
 * Plain JavaScript for a search worker's first lines: the thread lowers its own scheduling
 * priority, so that when the cores are busy the main thread, which answers every other request,
 * runs first, and a costly query or a large index write delays only its own answer. Linux gives
 * each thread its own priority, found through /proc/thread-self; elsewhere, or when the system
 * refuses, the thread keeps the process's priority.
 */
const lowered = (how: string) => `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) {
    ${how}
  }
} catch {}
`;

const NICE_10 = `require('node:os').setPriority(tid, 10);`;

/** Nice 10: the index writer, whose writes must go on under load (the projections behind them would pile up). */
export const LOWER_PRIORITY = lowered(NICE_10);

/**
 * SCHED_IDLE, else nice 10: the search readers. A thread of the idle class gives its core up the
 * moment a normal thread wakes on it, where at nice 10 the main thread, woken by a request, could
 * wait out the reader's slice. Beside the hostile mix's queries on two cores (100k records,
 * SQLite; two runs of each, load 1.2-2.1) the main thread waited for a core 3.4-4.7% of the
 * phase instead of 10.7-14.5%, and the cheap GET's p99 was 3.00-3.55 ms instead of 3.72-4.93;
 * the readers still answered as many hostile queries (10 rounds against 11), as they run
 * whenever a core is free. On a machine whose every core is busy with other work, a costly search
 * waits until one is free. `chrt` (util-linux) sets it; without it, nice 10.
 */
export const IDLE_PRIORITY = lowered(`try {
      require('node:child_process').execFileSync('chrt', ['--idle', '-p', '0', String(tid)], { stdio: 'ignore' });
    } catch {
      ${NICE_10}
    }`);
