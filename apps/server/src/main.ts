/** The composition root: env -> db -> migrate -> adapters -> core -> rebuild index -> serve. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { isDomainError } from '@krs/domain';
import { createApp } from './app.ts';
import { createBodyBudget } from './body-budget.ts';
import { COSTLY_SEARCH_MS, createSearchGate, SEARCHES_AT_ONCE, SEARCHES_WAITING_PER_CLIENT } from './search-gate.ts';
import { warmCitations } from './exports/citation.ts';
import { createFastPath } from './fast-path/listener.ts';
import { handlersInFlight } from './handlers-in-flight.ts';
import { ConfigError, readConfig, type ServerConfig } from './config.ts';
import { compose } from './compose.ts';
import { eachUtcDay } from './ops/each-utc-day.ts';
import { createLogger } from './ops/logger.ts';
import { createMetrics, type RecordCounts } from './ops/metrics.ts';
import { httpServerOptions } from './server-options.ts';
import { answerClientErrors } from './client-errors.ts';
import { defaultTotalBound, guardConnections } from './connection-guard.ts';
import { trustedProxies } from './client-address.ts';

/** Start-up problems are the operator's to fix: one line that says what, not a stack trace. */
function stop(message: string, code: number): never {
  process.stderr.write(`krs: ${message}\n`);
  process.exit(code);
}

function configOrStop(): ServerConfig {
  try {
    return readConfig();
  } catch (e) {
    if (e instanceof ConfigError) stop(e.message, 2);
    throw e;
  }
}

const config = configOrStop();
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
const composed = await compose(config, { metrics, cacheSmallBlobs: true, boundStatements: true }).catch((e: unknown) =>
  stop(`cannot start: ${e instanceof Error ? e.message : String(e)}`, 1),
);
countRecords = composed.countRecords;
const { core, close } = composed;
// Citation styles are built on their own thread while the search index loads here.
warmCitations();
const warm = await composed.warmSearch();
// With PostgreSQL the index is in the shared database, whatever KRS_SEARCH_ENGINE says.
const searchEngineName = config.databaseUrl ? 'postgres' : config.searchEngine;
// Uploads a crash cut short; ones in flight in another process touch their temp data every minute.
const swept = await core.files.sweepPartialUploads(60);
if (swept.removed > 0) lifecycle.info({ removed: swept.removed, bytes: swept.bytes }, `krs: removed ${swept.removed} interrupted uploads`);
// Reads treat a lapsed embargo as lifted at once; writing the lift down as the day begins lets
// search and listings follow.
const liftEmbargoes = () =>
  core.records
    .liftLapsedEmbargoes()
    .then((n) => n > 0 && lifecycle.info({ lifted: n }, `krs: lifted ${n} embargoes whose day has come`))
    .catch((err: unknown) =>
      // Every node lifts as the day begins: one that finds a record already changed by another lost
      // the race to write the same lift, and the other node wrote it.
      isDomainError(err) && err.kind === 'conflict'
        ? lifecycle.info('krs: another node was lifting the same embargoes and wrote them first')
        : logger.error({ err }, 'krs: lifting embargoes failed'),
    );
await liftEmbargoes();
eachUtcDay(() => void liftEmbargoes());
const memory = process.memoryUsage();
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
lifecycle.info(
  {
    search_engine: searchEngineName,
    search_resumed: warm.loaded,
    search_parents: warm.parents,
    search_skipped: warm.skipped.length,
    startup_ms: Date.now() - started,
    rss_mib: mib(memory.rss),
    heap_mib: mib(memory.heapUsed),
  },
  `${
    warm.loaded
      ? `krs: ${searchEngineName} search index resumed and caught up (${warm.parents} changed records)`
      : `krs: ${searchEngineName} search index rebuilt from the database (${warm.parents} records)`
  }${warm.skipped.length > 0 ? `, ${warm.skipped.length} records skipped (logged above)` : ''} in ${Date.now() - started} ms; memory: rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`,
);

let stopping = false;
const bodyBudget = createBodyBudget({ total: config.maxBodyMemory, perClient: config.maxBodyMemoryPerClient }, metrics.observeRefusedBody);
metrics.trackBodyMemory(bodyBudget.held);
const searchGate = createSearchGate({ perClient: config.searchesPerClient, total: SEARCHES_AT_ONCE, maxWaiting: SEARCHES_WAITING_PER_CLIENT, costlyMs: COSTLY_SEARCH_MS }, metrics.observeRefusedSearch);
metrics.trackSearches(searchGate.counts);
const proxies = config.trustedProxies.length > 0 ? trustedProxies(config.trustedProxies) : null;
const app = createApp(core, {
  baseUrl: config.baseUrl,
  bodyBudget,
  searchGate,
  ...(proxies === null ? {} : { trustedProxies: proxies }),
  uploadBufferBytes: composed.uploadBufferBytes,
  uploadIdleTimeoutMs: config.uploadIdleTimeoutSeconds * 1000,
  downloadBufferBytes: composed.downloadBufferBytes,
  downloadIdleTimeoutMs: config.downloadIdleTimeoutSeconds * 1000,
  ops: { logger, metrics, metricsToken: config.metricsToken, stopping: () => stopping },
});
// Anonymous GETs of public records are answered from the answer kept per record revision, before
// the app sees them (fast-path/listener.ts); everything else, and every first answer, is the app's.
const fastPath = createFastPath(core, { logger: logger.isLevelEnabled('info') ? logger : null, observe: metrics.observeRequest });
// The fast path only reads; the app's handlers write, and shutdown waits for them.
const handlers = handlersInFlight(getRequestListener(app.fetch, { hostname: config.host }));
const server = createServer(httpServerOptions(), fastPath.listener(handlers.listener));
answerClientErrors(server);
guardConnections(
  server,
  { perClient: config.maxConnectionsPerClient, total: config.maxConnections === undefined ? defaultTotalBound() : config.maxConnections, ...(proxies === null ? {} : { exempt: proxies }) },
  metrics.observeRefusedConnection,
);
server.listen(config.port, config.host, () => {
  const info = server.address() as AddressInfo;
  lifecycle.info(
    { address: info.address, port: info.port, base_url: config.baseUrl, data_dir: config.dataDir, metrics_protected: config.metricsToken !== null },
    `krs: listening on http://${info.address}:${info.port}`,
  );
  // The line above is what supervisors and tests wait for: it must not sit in a buffer.
  logger.flush();
});

server.on('error', (e: NodeJS.ErrnoException) => {
  const where = `${config.host}:${config.port}`;
  const why =
    e.code === 'EADDRINUSE'
      ? `port ${config.port} is in use on ${config.host} (another krs or another program); stop it or set PORT`
      : e.code === 'EACCES'
        ? `not allowed to listen on ${where}; choose a PORT above 1023`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND'
          ? `cannot listen on ${where}: HOST is not an address of this machine`
          : `cannot listen on ${where}: ${e.message}`;
  // Nothing was served: release the database cleanly, then stop.
  logger.flush();
  void close().finally(() => stop(why, 1));
});

function exit(code: number): never {
  logger.flush();
  process.exit(code);
}

let firstSignalAt = 0;
function shutdown(signal: string) {
  if (stopping) {
    // A second signal means "now": skip the snapshot rather than keep the operator waiting. One
    // within a second is the same Ctrl-C reaching us twice (from the terminal's process group
    // and again through `pnpm start`), not a second request.
    if (Date.now() - firstSignalAt > 1000) exit(1);
    return;
  }
  stopping = true;
  firstSignalAt = Date.now();
  lifecycle.info({ signal }, 'krs: finishing open requests');
  server.close(() => {
    void handlers
      .settled(10_000)
      .then((all) => all || logger.warn('krs: closing with requests still running after 10 s'))
      .then(() => composed.saveSearchSnapshot())
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
