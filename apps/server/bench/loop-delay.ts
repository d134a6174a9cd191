/**
 * Preloaded into a benchmarked server (`node --import`): measures the server's own event-loop
 * delay. On SIGUSR2 it writes the figures since the previous signal to `KRS_BENCH_LOOP_FILE`
 * (JSON, milliseconds) and starts again, so a benchmark can bracket each phase of its load.
 * It also records garbage-collection pauses (`gc` performance entries), so a phase's worst
 * block can be told apart from a collection's.
 * Never part of the server itself.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env['KRS_BENCH_LOOP_FILE'];
if (file !== undefined) {
  const resolutionMs = 2;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let gcMax = 0;
  let gcTotal = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMax = Math.max(gcMax, entry.duration);
      gcTotal += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    // The histogram records the time between two ticks of its timer: the delay is what exceeds the interval.
    const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
    const figures = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), samples: histogram.count, gcMax, gcTotal };
    histogram.reset();
    gcMax = 0;
    gcTotal = 0;
    // Written under another name and renamed: the benchmark polls for a whole file.
    writeFileSync(`${file}.tmp`, JSON.stringify(figures));
    renameSync(`${file}.tmp`, file);
  });
}
