/** Node's HTTP server limits, set so that bounds come from idleness rather than total duration. */
import type { ServerOptions } from 'node:http';

/**
 * Node cuts every request at `requestTimeout` (5 minutes by default), which no large upload
 * survives; uploads are bounded by KRS_UPLOAD_IDLE_TIMEOUT instead. Slow headers stay bounded.
 */
export const HEADERS_TIMEOUT_MS = 60_000;

export function httpServerOptions(): ServerOptions {
  return { requestTimeout: 0, headersTimeout: HEADERS_TIMEOUT_MS };
}
