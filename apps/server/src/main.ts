/** The composition root: env -> db -> migrate -> adapters -> core -> rebuild index -> serve. */
import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';
import { compose } from './compose.ts';

const config = readConfig();
const { core, close } = await compose(config);
const started = Date.now();
const parents = await core.search.reindex();
console.log(`krs: search index rebuilt from the database (${parents} records) in ${Date.now() - started} ms`);

const server = serve({ fetch: createApp(core, { baseUrl: config.baseUrl }).fetch, port: config.port, hostname: config.host }, (info) => {
  console.log(`krs: listening on http://${info.address}:${info.port} (base URL ${config.baseUrl}, data in ${config.dataDir})`);
});

function shutdown(signal: string) {
  console.log(`krs: ${signal} received, finishing open requests`);
  server.close(() => {
    void close().then(() => process.exit(0));
  });
  setTimeout(() => process.exit(0), 10_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
