/** The composition root: env -> db -> migrate -> adapters -> core -> rebuild index -> serve. */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { ConfigError, readConfig, type ServerConfig } from './config.ts';
import { compose } from './compose.ts';
import { httpServerOptions } from './server-options.ts';

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
const started = Date.now();
const composed = await compose(config).catch((e: unknown) => stop(`cannot open the data dir ${config.dataDir}: ${e instanceof Error ? e.message : String(e)}`, 1));
const { core, close } = composed;
const warm = await composed.warmSearch();
// Uploads a crash cut short; ones in flight in another process touch their temp data every minute.
const swept = await core.files.sweepPartialUploads(60);
if (swept.removed > 0) console.log(`krs: removed ${swept.removed} interrupted uploads (${swept.bytes} bytes)`);
// Reads treat a lapsed embargo as lifted at once; writing the lift down lets search and listings follow within the hour.
const liftEmbargoes = () =>
  core.records
    .liftLapsedEmbargoes()
    .then((n) => n > 0 && console.log(`krs: lifted ${n} embargoes whose day has come`))
    .catch((e: unknown) => console.error(`krs: lifting embargoes failed: ${e instanceof Error ? e.message : String(e)}`));
await liftEmbargoes();
setInterval(() => void liftEmbargoes(), 60 * 60 * 1000).unref();
const memory = process.memoryUsage();
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
console.log(
  `${
    warm.loaded
      ? `krs: ${config.searchEngine} search index resumed and caught up (${warm.parents} changed records)`
      : `krs: ${config.searchEngine} search index rebuilt from the database (${warm.parents} records)`
  }${warm.skipped.length > 0 ? `, ${warm.skipped.length} records skipped (logged above)` : ''} in ${Date.now() - started} ms; memory: rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`,
);

const app = createApp(core, { baseUrl: config.baseUrl, uploadIdleTimeoutMs: config.uploadIdleTimeoutSeconds * 1000 });
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions: httpServerOptions() }, (info) => {
  console.log(`krs: listening on http://${info.address}:${info.port} (base URL ${config.baseUrl}, data in ${config.dataDir})`);
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
  void close().finally(() => stop(why, 1));
});

let stopping = false;
function shutdown(signal: string) {
  // A second signal means "now": skip the snapshot rather than keep the operator waiting.
  if (stopping) process.exit(1);
  stopping = true;
  console.log(`krs: ${signal} received, finishing open requests`);
  server.close(() => {
    void composed
      .saveSearchSnapshot()
      .catch((e: unknown) => console.error('krs: could not save the search snapshot', e))
      .then(() => close())
      .then(() => {
        console.log('krs: stopped');
        process.exit(0);
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
