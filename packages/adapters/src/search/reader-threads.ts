/**
 * Which of the search reader's threads takes a query. A thread runs its queries one after
 * another and a query, once started, runs to its end: a step of a costly search (bm25 over a
 * match of 26 one-letter prefixes at 100k documents: 1 to 4 s) holds its thread that long. Such
 * a search sends two steps at once, so on two threads it held both, and every other search beside
 * it waited seconds for either.
 */

/** Threads of a search index's reader: a costly search's two steps at once leave one for every other search. */
export const SEARCH_READER_THREADS = 3;

export interface ThreadLoad {
  /** Queries sent to the thread and not yet answered. */
  waiting: number;
  /** When the query the thread is running started (ms, `performance.now()`), or -Infinity when idle. */
  busySince: number;
}

/**
 * The thread with the fewest queries waiting; among those, the one whose running query started
 * last. How long a query has run is the best guess of how long it will still run (a step of a
 * costly search has run for hundreds of ms when the next query comes): the first thread on a tie
 * was the one every such step had taken.
 */
export function leastLoaded<T extends ThreadLoad>(threads: readonly T[]): T {
  let best = threads[0] as T;
  for (const t of threads) {
    if (t.waiting < best.waiting || (t.waiting === best.waiting && t.busySince > best.busySince)) best = t;
  }
  return best;
}
