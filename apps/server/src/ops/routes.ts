/**
 * Probes and metrics for load balancers, orchestrators and scrapers. Mounted before identity is
 * resolved: a probe carries no user token, and the metrics token is not a user token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { DEPENDENCIES, unauthenticated, type Core } from '@krs/domain';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

export interface OpsOptions {
  logger?: Logger | null;
  metrics?: Metrics | null;
  /** When set, `/metrics` wants `Authorization: Bearer <token>`. */
  metricsToken?: string | null;
  /** True once shutdown began: readiness then fails so load balancers drain this node. */
  stopping?: () => boolean;
  /** Longest a readiness probe waits for one dependency. */
  probeTimeoutMs?: number;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function opsRoutes(core: Core, options: OpsOptions) {
  const app = new Hono();
  const wanted = options.metricsToken ? digest(options.metricsToken) : null;

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    c.header('Cache-Control', 'no-store');
    if (options.stopping?.()) return c.json({ status: 'stopping', failing: [] }, 503);
    const { ready, checks } = await core.operations.readiness(options.probeTimeoutMs ?? 2000);
    const failing = DEPENDENCIES.filter((d) => checks[d] !== null);
    // The reasons may name paths on the host: they go to the log, the body only names what failed.
    if (!ready) options.logger?.warn({ checks }, 'not ready');
    const body = { status: ready ? 'ready' : 'not ready', failing, checks: Object.fromEntries(DEPENDENCIES.map((d) => [d, checks[d] === null ? 'ok' : 'failing'])) };
    return c.json(body, ready ? 200 : 503);
  });

  const metrics = options.metrics;
  if (metrics) {
    app.get('/metrics', async (c) => {
      if (wanted !== null) {
        const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
        // Compared as digests: equal lengths for timingSafeEqual, and no early exit on a prefix.
        if (!m?.[1] || !timingSafeEqual(digest(m[1]), wanted)) throw unauthenticated('metrics.token', 'The metrics endpoint needs its bearer token.');
      }
      c.header('Content-Type', metrics.contentType);
      c.header('Cache-Control', 'no-store');
      return c.body(await metrics.render());
    });
  }
  return app;
}
