/** The composition root: env -> db -> migrate -> adapters -> core -> rebuild index -> serve. */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { compose } from './compose.ts';

const config = readConfig();
const started = Date.now();
const composed = await compose(config);
const { core, close } = composed;
const warm = await composed.warmSearch();
const memory = process.memoryUsage();
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
console.log(
  `${
    warm.loaded
      ? `krs: ${config.searchEngine} search index resumed and caught up (${warm.parents} changed records)`
      : `krs: ${config.searchEngine} search index rebuilt from the database (${warm.parents} records)`
  } in ${Date.now() - started} ms; memory: rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`,
);

const server = serve({ fetch: createApp(core, { baseUrl: config.baseUrl }).fetch, port: config.port, hostname: config.host }, (info) => {
  console.log(`krs: listening on http://${info.address}:${info.port} (base URL ${config.baseUrl}, data in ${config.dataDir})`);
});

function shutdown(signal: string) {
  console.log(`krs: ${signal} received, finishing open requests`);
  server.close(() => {
    void composed
      .saveSearchSnapshot()
      .catch((e: unknown) => console.error('krs: could not save the search snapshot', e))
      .then(() => close())
      .then(() => process.exit(0));
  });
  setTimeout(() => process.exit(0), 10_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
