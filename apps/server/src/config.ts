/** Settings from the environment (API-DECISIONS "Running it"); a bad value stops start-up with a clear message. */
import { resolve } from 'node:path';
import { trustedProxies } from './client-address.ts';
import { LOG_LEVELS, type LogLevel } from './ops/logger.ts';

/** A setting the operator got wrong: start-up stops with its message on one line (exit 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  maxFileSize: number;
  maxFiles: number;
  /** Seconds an upload may send nothing before it is dropped (408). */
  uploadIdleTimeoutSeconds: number;
  downloadIdleTimeoutSeconds: number;
  /** `KRS_MAX_CONNECTIONS_PER_CLIENT`: connections one address may hold open (429 past it); null, no bound. */
  maxConnectionsPerClient: number | null;
  /** `KRS_MAX_CONNECTIONS`: connections open in all (503 past it); undefined, from the open-file limit; null, no bound. */
  maxConnections?: number | null;
  /** `KRS_MAX_BODY_MEMORY` (MiB): what request bodies and uploads may hold at once (503 past it); null, no bound. */
  maxBodyMemory: number | null;
  /** `KRS_MAX_BODY_MEMORY_PER_CLIENT` (MiB): what one address's bodies may hold at once (429 past it); null, no bound. */
  maxBodyMemoryPerClient: number | null;
  /** `KRS_SEARCHES_PER_CLIENT`: searches one address runs at once, the others waiting their turn (search-gate.ts); null, no bound. */
  searchesPerClient: number | null;
  /**
   * `KRS_TRUSTED_PROXIES`: addresses and CIDR blocks of the reverse proxies in front of the node,
   * comma-separated; requests through them are counted under the client `X-Forwarded-For` names
   * (client-address.ts). Empty: every request under its connection's address.
   */
  trustedProxies: string[];
  searchEngine: SearchEngine;
  /** The base URL's host name without the port, as OAI-PMH identifiers require (`oai:<host>:<id>`). */
  oaiHost: string;
  /** `KRS_DOI_PREFIX`: what `reserve_doi` puts before the record id; unset, no DOI is reserved. */
  doiPrefix?: string;
  /** `KRS_SECRET_KEY`: access-link tokens are derived from it; unset, a key file in the data dir is used. */
  secretKey?: string;
  logLevel: LogLevel;
  /** Null: `/metrics` is open (bind it to a private interface, or set a token). */
  metricsToken: string | null;
  /** `KRS_DATABASE_URL`: records, users and vocabularies in PostgreSQL; unset, the embedded SQLite file. */
  databaseUrl?: string;
  /** `KRS_STORAGE`: where file content lives (docs/storage.md). */
  storage: StorageConfig;
  storeTimeouts: StoreTimeouts;
}

/**
 * How long a call to PostgreSQL or S3 may go unanswered before the request is answered 503
 * (docs/operations.md, "PostgreSQL or S3 away"), in milliseconds; null, no bound. Read in seconds.
 */
export interface StoreTimeouts {
  /** `KRS_PG_CONNECT_TIMEOUT`: a new connection not had within it. */
  pgConnectMs: number;
  /** `KRS_PG_STATEMENT_TIMEOUT`: PostgreSQL's own statement and idle-in-transaction bound, for requests only. */
  pgStatementMs: number | null;
  /** `KRS_PG_QUERY_TIMEOUT`: the client's bound on a statement's answer (a stalled server), for requests only. */
  pgQueryMs: number | null;
  /** `KRS_S3_CONNECT_TIMEOUT`: a TCP connection to S3 not made within it. */
  s3ConnectMs: number;
  /** `KRS_S3_IDLE_TIMEOUT`: no byte from or to S3 for this long while waiting on it. */
  s3IdleMs: number;
}

/**
 * `fs`: under `<dataDir>/files`. `s3`: in a bucket under an optional key prefix; the endpoint,
 * region and credentials are the AWS SDK's own (`AWS_ENDPOINT_URL_S3`, `AWS_REGION`, ...).
 */
export type StorageConfig =
  | { kind: 'fs' }
  | { kind: 's3'; bucket: string; prefix: string; forcePathStyle: boolean };

export const SEARCH_ENGINES = ['sqlite', 'minisearch'] as const;
export type SearchEngine = (typeof SEARCH_ENGINES)[number];

function proxies(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  try {
    trustedProxies(entries);
  } catch (e) {
    throw new ConfigError(`KRS_TRUSTED_PROXIES must be IP addresses or CIDR blocks separated by commas: ${(e as Error).message}.`);
  }
  return entries;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

/**
 * What request bodies may hold at once by default (docs/operations.md, "Request bodies"): three
 * JSON bodies at the 10 MiB limit (each counted with what its parse holds), or 48 uploads to
 * the filesystem, or four large ones to S3.
 */
const DEFAULT_BODY_MEMORY_MIB = 96;
/** One JSON body at the limit and some small ones: one address cannot keep every other's writes out. */
const DEFAULT_BODY_MEMORY_PER_CLIENT_MIB = 48;
/** Two a reader thread of the SQLite engine, which runs two: one address keeps both busy, and no more. */
const DEFAULT_SEARCHES_PER_CLIENT = 4;

/** 0 turns the bound off. */
const mebibytes = (mib: number): number | null => (mib === 0 ? null : mib * 1024 * 1024);

/** SQLite FTS5 is the default: see docs/search.md for the figures behind the choice. */
function searchEngine(raw: string | undefined): SearchEngine {
  if (raw === undefined || raw === '') return 'sqlite';
  if (!(SEARCH_ENGINES as readonly string[]).includes(raw)) throw new ConfigError(`KRS_SEARCH_ENGINE must be one of ${SEARCH_ENGINES.join(', ')}, got "${raw}".`);
  return raw as SearchEngine;
}

function doiPrefix(raw: string | undefined): { doiPrefix?: string } {
  if (raw === undefined || raw.trim() === '') return {};
  if (!/^10\.\d{4,9}$/.test(raw.trim())) throw new ConfigError(`KRS_DOI_PREFIX must be a DOI prefix like 10.1234, got "${raw}".`);
  return { doiPrefix: raw.trim() };
}

function secretKey(raw: string | undefined): { secretKey?: string } {
  if (raw === undefined || raw === '') return {};
  if (raw.trim().length < 32) throw new ConfigError('KRS_SECRET_KEY must be at least 32 characters (e.g. 64 hex digits of a random key).');
  return { secretKey: raw.trim() };
}

/** A `postgres://` (or `postgresql://`) URL with a host and a database name. */
export function databaseUrl(raw: string | undefined, name = 'KRS_DATABASE_URL'): { databaseUrl?: string } {
  if (raw === undefined || raw.trim() === '') return {};
  let url: URL | null = null;
  try {
    url = new URL(raw.trim());
  } catch {
    url = null;
  }
  if (url === null || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '' || url.pathname.length <= 1) {
    // The URL may hold a password: the message shows only its scheme.
    throw new ConfigError(`${name} must be a PostgreSQL URL like postgres://user:password@host:5432/krs, got one starting "${raw.trim().slice(0, 12)}".`);
  }
  return { databaseUrl: raw.trim() };
}

function logLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new ConfigError(`KRS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}".`);
  return raw as LogLevel;
}

/** S3's bucket naming rules (lowercase, digits, dots, hyphens); prefix segments as plain key parts. */
const S3_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/((?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+)?\/?)?$/;

export function storage(env: NodeJS.ProcessEnv): StorageConfig {
  const raw = env['KRS_STORAGE']?.trim();
  const pathStyle = env['KRS_S3_FORCE_PATH_STYLE']?.trim() ?? '';
  if (!['', 'true', 'false'].includes(pathStyle)) throw new ConfigError(`KRS_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}".`);
  if (raw === undefined || raw === '') return { kind: 'fs' };
  const match = S3_URL.exec(raw);
  // `.` and `..` would be read as path steps by tools that mirror a bucket to disk.
  if (match === null || (match[2] ?? '').split('/').some((s) => s === '.' || s === '..')) {
    // Quoted as JSON so a stray newline cannot break the one-line message.
    throw new ConfigError(`KRS_STORAGE must be s3://<bucket>[/<prefix>] (or unset for the data dir), got ${JSON.stringify(raw)}.`);
  }
  return { kind: 's3', bucket: match[1] as string, prefix: match[2] ?? '', forcePathStyle: pathStyle === 'true' };
}

/**
 * A statement of a request takes at most 20 s on PostgreSQL: the slowest search measured at 1M
 * records took 3.1 s (p99, a field query matching every document). The client waits 5 s more,
 * so that PostgreSQL's own cancel (the connection kept) comes first while it still answers.
 */
const DEFAULT_PG_STATEMENT_SECONDS = 20;
const PG_ANSWER_MARGIN_SECONDS = 5;

function storeTimeouts(env: NodeJS.ProcessEnv): StoreTimeouts {
  const seconds = (name: string, fallback: number, min: number) => integer(env, name, fallback, min, 3600);
  const orNone = (s: number) => (s === 0 ? null : s * 1000);
  const statement = seconds('KRS_PG_STATEMENT_TIMEOUT', DEFAULT_PG_STATEMENT_SECONDS, 0);
  const answer = seconds('KRS_PG_QUERY_TIMEOUT', (statement || DEFAULT_PG_STATEMENT_SECONDS) + PG_ANSWER_MARGIN_SECONDS, 0);
  // At or under PostgreSQL's own bound, the node would cut (and close the connection of) every
  // statement PostgreSQL was about to cancel itself, keeping its connection.
  if (statement !== 0 && answer !== 0 && answer <= statement) {
    throw new ConfigError(`KRS_PG_QUERY_TIMEOUT (${answer} s) must be above KRS_PG_STATEMENT_TIMEOUT (${statement} s), or 0.`);
  }
  return {
    pgConnectMs: seconds('KRS_PG_CONNECT_TIMEOUT', 10, 1) * 1000,
    pgStatementMs: orNone(statement),
    pgQueryMs: orNone(answer),
    s3ConnectMs: seconds('KRS_S3_CONNECT_TIMEOUT', 5, 1) * 1000,
    s3IdleMs: seconds('KRS_S3_IDLE_TIMEOUT', 10, 1) * 1000,
  };
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
    throw new ConfigError(`KRS_BASE_URL must be an absolute http(s) URL without query or fragment, got "${env['KRS_BASE_URL']}".`);
  }
  return {
    port,
    host: env['HOST'] || '127.0.0.1',
    // pnpm runs scripts inside the package; INIT_CWD is where the user typed the command.
    dataDir: resolve(env['INIT_CWD'] || process.cwd(), env['KRS_DATA_DIR'] || './data'),
    baseUrl,
    maxFileSize: integer(env, 'KRS_MAX_FILE_SIZE', 50 * 1024 ** 3, 1),
    maxFiles: integer(env, 'KRS_MAX_FILES', 100, 1),
    // At most 30 minutes: temp data of an upload silent for an hour is swept as interrupted.
    uploadIdleTimeoutSeconds: integer(env, 'KRS_UPLOAD_IDLE_TIMEOUT', 60, 1, 1800),
    downloadIdleTimeoutSeconds: integer(env, 'KRS_DOWNLOAD_IDLE_TIMEOUT', 60, 1, 1800),
    // 0 turns a bound off: behind a proxy every client has the proxy's address.
    maxConnectionsPerClient: integer(env, 'KRS_MAX_CONNECTIONS_PER_CLIENT', 1000, 0) || null,
    ...(env['KRS_MAX_CONNECTIONS'] ? { maxConnections: integer(env, 'KRS_MAX_CONNECTIONS', 0, 0) || null } : {}),
    maxBodyMemory: mebibytes(integer(env, 'KRS_MAX_BODY_MEMORY', DEFAULT_BODY_MEMORY_MIB, 0)),
    maxBodyMemoryPerClient: mebibytes(integer(env, 'KRS_MAX_BODY_MEMORY_PER_CLIENT', DEFAULT_BODY_MEMORY_PER_CLIENT_MIB, 0)),
    searchesPerClient: integer(env, 'KRS_SEARCHES_PER_CLIENT', DEFAULT_SEARCHES_PER_CLIENT, 0) || null,
    trustedProxies: proxies(env['KRS_TRUSTED_PROXIES']),
    searchEngine: searchEngine(env['KRS_SEARCH_ENGINE']),
    oaiHost: parsed.hostname,
    ...doiPrefix(env['KRS_DOI_PREFIX']),
    ...secretKey(env['KRS_SECRET_KEY']),
    logLevel: logLevel(env['KRS_LOG_LEVEL']),
    metricsToken: env['KRS_METRICS_TOKEN'] || null,
    ...databaseUrl(env['KRS_DATABASE_URL']),
    storage: storage(env),
    storeTimeouts: storeTimeouts(env),
  };
}
