/**
 * Resolves in a later iteration of the event loop, after the I/O waiting meanwhile: for long work
 * cut into slices (one large record's steps, a long export). Every caller waits in one queue, and
 * each iteration resumes only the first in it, so an iteration holds at most one slice however
 * many long tasks run at once: a request arriving meanwhile waits for one slice, not for one slice
 * of each. (Resumed each on its own, three writes of large records beside each other made
 * iterations of 7-10 ms out of 2 ms slices.) The queue is served in order: each task gets its
 * share.
 *
 * Resumed from an immediate: in Node's check phase, right after the loop's poll for I/O, with no
 * sleep in between as a timer would add (at least a millisecond per slice); an immediate set
 * while immediates run waits for the next iteration, so the timers get their turn between slices.
 */
type Immediate = (run: () => void) => unknown;
// Node's setImmediate, looked up when called (a test's fake timers replace it); a timer where
// there is none (the domain assumes no host).
const immediate = (run: () => void): unknown => {
  const host = (globalThis as { setImmediate?: Immediate }).setImmediate;
  return host === undefined ? setTimeout(run, 0) : host(run);
};

const waiting: (() => void)[] = [];
let scheduled = false;

function resumeFirst(): void {
  const first = waiting.shift();
  scheduled = waiting.length > 0;
  if (scheduled) immediate(resumeFirst);
  first?.();
}

export const nextIteration = (): Promise<void> =>
  new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (scheduled) return;
    scheduled = true;
    immediate(resumeFirst);
  });
