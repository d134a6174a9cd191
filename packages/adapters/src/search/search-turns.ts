/**
 * Turns of the event loop for the searches' work on the main thread (the evaluator's slices,
 * fuzzy expansion, passes over the document headers), given to one search per iteration of the
 * loop, first come first served. Each search already gave the loop back between short slices;
 * but the slices of all searches waiting on the same iteration ran back to back, so one client
 * sending fifty queries at once (anonymous, each only the evaluator can decide) held the loop for
 * fifty slices at a time: record GETs beside them took 90 ms at the median and seconds at p99.
 * Now a search that gives its turn back joins the end of the line, and every other request waits
 * for at most one slice, however many searches run; the searches share the rest.
 */
const waiting: (() => void)[] = [];
let armed = false;

function arm(): void {
  if (armed) return;
  armed = true;
  setImmediate(grant);
}

function grant(): void {
  armed = false;
  const next = waiting.shift();
  // Armed before the slice runs: an immediate set now runs on the loop's next iteration.
  if (waiting.length > 0) arm();
  next?.();
}

/** Resolves when it is this search's turn again, after the I/O waiting meanwhile and one slice of each search ahead of it. */
export function nextSearchTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    arm();
  });
}
