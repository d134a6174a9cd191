/** Settings from the environment (API-DECISIONS "Running it"); a bad value stops start-up with a clear message. */
import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from './ops/logger.ts';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  maxFileSize: number;
  maxFiles: number;
  searchEngine: SearchEngine;
  logLevel: LogLevel;
  /** Null: `/metrics` is open (bind it to a private interface, or set a token). */
  metricsToken: string | null;
}

export const SEARCH_ENGINES = ['sqlite', 'minisearch'] as const;
export type SearchEngine = (typeof SEARCH_ENGINES)[number];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

/** SQLite FTS5 is the default: see docs/search.md for the figures behind the choice. */
function searchEngine(raw: string | undefined): SearchEngine {
  if (raw === undefined || raw === '') return 'sqlite';
  if (!(SEARCH_ENGINES as readonly string[]).includes(raw)) throw new Error(`KRS_SEARCH_ENGINE must be one of ${SEARCH_ENGINES.join(', ')}, got "${raw}".`);
  return raw as SearchEngine;
}

function logLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new Error(`KRS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}".`);
  return raw as LogLevel;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const baseUrl = (env['KRS_BASE_URL'] || `http://localhost:${port}`).trim().replace(/\/+$/, '');
  // Every link clients follow starts with it, so it must be a plain http(s) origin plus optional path.
  let parsed: URL | null = null;
  try {
    parsed = new URL(baseUrl);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '' || parsed.hash !== '') {
    throw new Error(`KRS_BASE_URL must be an absolute http(s) URL without query or fragment, got "${env['KRS_BASE_URL']}".`);
  }
  return {
    port,
    host: env['HOST'] || '127.0.0.1',
    // pnpm runs scripts inside the package; INIT_CWD is where the user typed the command.
    dataDir: resolve(env['INIT_CWD'] || process.cwd(), env['KRS_DATA_DIR'] || './data'),
    baseUrl,
    maxFileSize: integer(env, 'KRS_MAX_FILE_SIZE', 50 * 1024 ** 3, 1),
    maxFiles: integer(env, 'KRS_MAX_FILES', 100, 1),
    searchEngine: searchEngine(env['KRS_SEARCH_ENGINE']),
    logLevel: logLevel(env['KRS_LOG_LEVEL']),
    metricsToken: env['KRS_METRICS_TOKEN'] || null,
  };
}
