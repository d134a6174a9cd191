/** The composition root: env -> db -> migrate -> adapters -> core -> rebuild index -> serve. */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { compose } from './compose.ts';
import { createLogger } from './ops/logger.ts';
import { createMetrics, type RecordCounts } from './ops/metrics.ts';

const config = readConfig();
const logger = createLogger(config.logLevel);
// Start-up and shutdown lines show at any level but silent: supervisors wait for "listening on".
const lifecycle = config.logLevel === 'silent' || logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
process.on('uncaughtException', (err) => {
  logger.fatal({ err }, 'krs: uncaught exception, exiting');
  logger.flush();
  process.exit(1);
});
process.on('unhandledRejection', (err) => logger.error({ err }, 'krs: unhandled promise rejection'));

const started = Date.now();
// The database is opened with the metrics' query hook, so the record count is bound afterwards.
let countRecords: () => Promise<RecordCounts> = async () => [];
const metrics = createMetrics({ countRecords: () => countRecords() });
const composed = await compose(config, metrics);
countRecords = composed.countRecords;
const { core, close } = composed;
const warm = await composed.warmSearch();
const memory = process.memoryUsage();
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
lifecycle.info(
  {
    search_engine: config.searchEngine,
    search_resumed: warm.loaded,
    search_parents: warm.parents,
    startup_ms: Date.now() - started,
    rss_mib: mib(memory.rss),
    heap_mib: mib(memory.heapUsed),
  },
  `${
    warm.loaded
      ? `krs: ${config.searchEngine} search index resumed and caught up (${warm.parents} changed records)`
      : `krs: ${config.searchEngine} search index rebuilt from the database (${warm.parents} records)`
  } in ${Date.now() - started} ms; memory: rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`,
);

let stopping = false;
const app = createApp(core, {
  baseUrl: config.baseUrl,
  ops: { logger, metrics, metricsToken: config.metricsToken, stopping: () => stopping },
});
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
  lifecycle.info(
    { address: info.address, port: info.port, base_url: config.baseUrl, data_dir: config.dataDir, metrics_protected: config.metricsToken !== null },
    `krs: listening on http://${info.address}:${info.port}`,
  );
  // The line above is what supervisors and tests wait for: it must not sit in a buffer.
  logger.flush();
});

function exit(code: number): never {
  logger.flush();
  process.exit(code);
}

function shutdown(signal: string) {
  // A second signal means "now": skip the snapshot rather than keep the operator waiting.
  if (stopping) exit(1);
  stopping = true;
  lifecycle.info({ signal }, 'krs: finishing open requests');
  server.close(() => {
    void composed
      .saveSearchSnapshot()
      .catch((err: unknown) => logger.error({ err }, 'krs: could not save the search snapshot'))
      .then(() => close())
      .then(() => {
        lifecycle.info({ uptime_s: Math.round((Date.now() - started) / 1000) }, 'krs: stopped');
        exit(0);
      });
  });
  // Idle keep-alive connections would hold close() open; busy ones get ten seconds to finish.
  // The snapshot is saved after that, however long it takes: cutting it short costs a rebuild.
  if ('closeIdleConnections' in server) server.closeIdleConnections();
  setTimeout(() => {
    if ('closeAllConnections' in server) server.closeAllConnections();
  }, 10_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
