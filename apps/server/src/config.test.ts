import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { ConfigError, readConfig } from './config.ts';

describe('readConfig', () => {
  it('has the documented defaults', () => {
    const config = readConfig({ INIT_CWD: '/srv/krs' });
    expect(config).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: resolve('/srv/krs', './data'),
      baseUrl: 'http://localhost:3000',
      maxFileSize: 50 * 1024 ** 3,
      maxFiles: 100,
      uploadIdleTimeoutSeconds: 60,
      downloadIdleTimeoutSeconds: 60,
      maxConnectionsPerClient: 1000,
      maxBodyMemory: 96 * 1024 ** 2,
      maxBodyMemoryPerClient: 48 * 1024 ** 2,
      searchesPerClient: 4,
      trustedProxies: [],
      searchEngine: 'sqlite',
      oaiHost: 'localhost',
      logLevel: 'info',
      metricsToken: null,
      storage: { kind: 'fs' },
      storeTimeouts: { pgConnectMs: 10_000, pgStatementMs: 20_000, pgQueryMs: 25_000, s3ConnectMs: 5_000, s3IdleMs: 10_000 },
    });
  });

  it('reads every variable, derives the base URL from PORT and strips its trailing slashes', () => {
    expect(readConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    const config = readConfig({
      PORT: '4000',
      HOST: '0.0.0.0',
      KRS_DATA_DIR: '/var/lib/krs',
      KRS_BASE_URL: 'https://krs.example.org/hub//',
      KRS_MAX_FILE_SIZE: '1048576',
      KRS_MAX_FILES: '7',
      KRS_UPLOAD_IDLE_TIMEOUT: '300',
      KRS_DOWNLOAD_IDLE_TIMEOUT: '120',
      KRS_MAX_CONNECTIONS_PER_CLIENT: '50',
      KRS_MAX_CONNECTIONS: '4000',
      KRS_MAX_BODY_MEMORY: '512',
      KRS_MAX_BODY_MEMORY_PER_CLIENT: '64',
      KRS_SEARCHES_PER_CLIENT: '2',
      KRS_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7,,2001:db8::/32',
      KRS_SEARCH_ENGINE: 'minisearch',
      KRS_LOG_LEVEL: 'warn',
      KRS_METRICS_TOKEN: 's3cret',
      KRS_PG_CONNECT_TIMEOUT: '3',
      KRS_PG_STATEMENT_TIMEOUT: '60',
      KRS_PG_QUERY_TIMEOUT: '90',
      KRS_S3_CONNECT_TIMEOUT: '2',
      KRS_S3_IDLE_TIMEOUT: '30',
    });
    expect(config).toEqual({
      port: 4000,
      host: '0.0.0.0',
      dataDir: '/var/lib/krs',
      baseUrl: 'https://krs.example.org/hub',
      maxFileSize: 1048576,
      maxFiles: 7,
      uploadIdleTimeoutSeconds: 300,
      downloadIdleTimeoutSeconds: 120,
      maxConnectionsPerClient: 50,
      maxConnections: 4000,
      maxBodyMemory: 512 * 1024 ** 2,
      maxBodyMemoryPerClient: 64 * 1024 ** 2,
      searchesPerClient: 2,
      trustedProxies: ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'],
      searchEngine: 'minisearch',
      oaiHost: 'krs.example.org',
      logLevel: 'warn',
      metricsToken: 's3cret',
      storage: { kind: 'fs' },
      storeTimeouts: { pgConnectMs: 3_000, pgStatementMs: 60_000, pgQueryMs: 90_000, s3ConnectMs: 2_000, s3IdleMs: 30_000 },
    });
  });

  it('bounds PostgreSQL statements and S3 calls, the client waiting 5 s past PostgreSQL\'s own bound unless told; 0 turns a statement bound off', () => {
    expect(readConfig({ KRS_PG_STATEMENT_TIMEOUT: '45' }).storeTimeouts).toMatchObject({ pgStatementMs: 45_000, pgQueryMs: 50_000 });
    expect(readConfig({ KRS_PG_STATEMENT_TIMEOUT: '0', KRS_PG_QUERY_TIMEOUT: '0' }).storeTimeouts).toMatchObject({ pgStatementMs: null, pgQueryMs: null });
    expect(readConfig({ KRS_PG_STATEMENT_TIMEOUT: '0' }).storeTimeouts).toMatchObject({ pgStatementMs: null, pgQueryMs: 25_000 });
    for (const name of ['KRS_PG_CONNECT_TIMEOUT', 'KRS_S3_CONNECT_TIMEOUT', 'KRS_S3_IDLE_TIMEOUT']) {
      expect(() => readConfig({ [name]: '0' })).toThrow(new RegExp(`${name} must be a whole number from 1 to 3600`));
    }
    expect(() => readConfig({ KRS_PG_QUERY_TIMEOUT: '2.5' })).toThrow(/KRS_PG_QUERY_TIMEOUT/);
    // The node's wait must outlast PostgreSQL's own bound, which cancels a statement and keeps its connection.
    expect(() => readConfig({ KRS_PG_STATEMENT_TIMEOUT: '30', KRS_PG_QUERY_TIMEOUT: '30' })).toThrow('KRS_PG_QUERY_TIMEOUT (30 s) must be above KRS_PG_STATEMENT_TIMEOUT (30 s), or 0.');
    expect(() => readConfig({ KRS_PG_QUERY_TIMEOUT: '10' })).toThrow(/must be above KRS_PG_STATEMENT_TIMEOUT \(20 s\)/);
    expect(readConfig({ KRS_PG_STATEMENT_TIMEOUT: '30', KRS_PG_QUERY_TIMEOUT: '0' }).storeTimeouts).toMatchObject({ pgStatementMs: 30_000, pgQueryMs: null });
  });

  it('takes a DOI prefix for reserve_doi, and refuses what is not one', () => {
    expect(readConfig({ KRS_DOI_PREFIX: '10.5072' }).doiPrefix).toBe('10.5072');
    expect(readConfig({}).doiPrefix).toBeUndefined();
    expect(() => readConfig({ KRS_DOI_PREFIX: 'doi:10.5072' })).toThrow(/KRS_DOI_PREFIX/);
  });

  it('names OAI identifiers by the base URL host name alone, never its port', () => {
    expect(readConfig({ PORT: '4101' }).oaiHost).toBe('localhost');
    expect(readConfig({ KRS_BASE_URL: 'https://Hub.Example.org:8443/krs' }).oaiHost).toBe('hub.example.org');
  });

  it('keeps records in PostgreSQL when KRS_DATABASE_URL names a server, and never echoes its password', () => {
    expect(readConfig({}).databaseUrl).toBeUndefined();
    expect(readConfig({ KRS_DATABASE_URL: 'postgres://krs:secret@db.internal:5432/krs' }).databaseUrl).toBe('postgres://krs:secret@db.internal:5432/krs');
    expect(readConfig({ KRS_DATABASE_URL: 'postgresql://db/krs' }).databaseUrl).toBe('postgresql://db/krs');
    for (const bad of ['mysql://db/krs', 'postgres://db', 'not a url', 'postgres://krs:hunter2@/krs']) {
      expect(() => readConfig({ KRS_DATABASE_URL: bad })).toThrow(/KRS_DATABASE_URL must be a PostgreSQL URL/);
    }
    expect(() => readConfig({ KRS_DATABASE_URL: 'postgres://krs:hunter2@/krs' })).not.toThrow(/hunter2/);
  });

  it('stops with a message naming the variable for an invalid value', () => {
    expect(() => readConfig({ PORT: 'abc' })).toThrow(/PORT must be a whole number/);
    expect(() => readConfig({ PORT: '70000' })).toThrow(/PORT must be a whole number from 0 to 65535/);
    expect(() => readConfig({ KRS_MAX_FILE_SIZE: '1.5' })).toThrow(/KRS_MAX_FILE_SIZE/);
    expect(() => readConfig({ KRS_MAX_FILES: '0' })).toThrow(/KRS_MAX_FILES/);
    expect(() => readConfig({ KRS_MAX_FILES: '-3' })).toThrow(/KRS_MAX_FILES/);
    expect(() => readConfig({ KRS_BASE_URL: 'krs.example.org' })).toThrow(/KRS_BASE_URL/);
    expect(() => readConfig({ KRS_BASE_URL: 'ftp://krs.example.org' })).toThrow(/KRS_BASE_URL/);
    expect(() => readConfig({ KRS_BASE_URL: 'https://krs.example.org/?a=1' })).toThrow(/KRS_BASE_URL/);
    expect(() => readConfig({ KRS_SEARCH_ENGINE: 'elastic' })).toThrow(/KRS_SEARCH_ENGINE/);
    expect(() => readConfig({ KRS_UPLOAD_IDLE_TIMEOUT: '0' })).toThrow(/KRS_UPLOAD_IDLE_TIMEOUT/);
    expect(() => readConfig({ KRS_UPLOAD_IDLE_TIMEOUT: '3600' })).toThrow(/KRS_UPLOAD_IDLE_TIMEOUT must be a whole number from 1 to 1800/);
    expect(() => readConfig({ KRS_LOG_LEVEL: 'verbose' })).toThrow(/KRS_LOG_LEVEL/);
    expect(() => readConfig({ KRS_MAX_CONNECTIONS_PER_CLIENT: 'many' })).toThrow(/KRS_MAX_CONNECTIONS_PER_CLIENT must be a whole number/);
    expect(() => readConfig({ KRS_MAX_CONNECTIONS: '-1' })).toThrow(/KRS_MAX_CONNECTIONS must be a whole number/);
  });

  it('turns a connection, body memory or searches bound off with 0, as behind a proxy where every client has its address', () => {
    expect(readConfig({ KRS_MAX_CONNECTIONS_PER_CLIENT: '0', KRS_MAX_CONNECTIONS: '0' })).toMatchObject({ maxConnectionsPerClient: null, maxConnections: null });
    expect(readConfig({ KRS_MAX_BODY_MEMORY_PER_CLIENT: '0', KRS_MAX_BODY_MEMORY: '0' })).toMatchObject({ maxBodyMemoryPerClient: null, maxBodyMemory: null });
    expect(readConfig({ KRS_SEARCHES_PER_CLIENT: '0' }).searchesPerClient).toBeNull();
  });

  it('refuses a trusted proxy that is neither an address nor a CIDR block, naming it', () => {
    expect(() => readConfig({ KRS_TRUSTED_PROXIES: '10.0.0.1, balancer.internal' })).toThrow(/KRS_TRUSTED_PROXIES .*"balancer\.internal"/);
    expect(() => readConfig({ KRS_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/KRS_TRUSTED_PROXIES/);
  });

  it('keeps files in the data dir unless KRS_STORAGE names an S3 bucket and optional prefix', () => {
    expect(readConfig({ KRS_STORAGE: '' }).storage).toEqual({ kind: 'fs' });
    expect(readConfig({ KRS_STORAGE: 's3://krs-files' }).storage).toEqual({ kind: 's3', bucket: 'krs-files', prefix: '', forcePathStyle: false });
    expect(readConfig({ KRS_STORAGE: 's3://krs-files/' }).storage).toEqual({ kind: 's3', bucket: 'krs-files', prefix: '', forcePathStyle: false });
    expect(readConfig({ KRS_STORAGE: 's3://eo.archive/krs/prod/', KRS_S3_FORCE_PATH_STYLE: 'true' }).storage).toEqual({
      kind: 's3',
      bucket: 'eo.archive',
      prefix: 'krs/prod',
      forcePathStyle: true,
    });
    expect(readConfig({ KRS_STORAGE: 's3://krs-files/a', KRS_S3_FORCE_PATH_STYLE: 'false' }).storage).toMatchObject({ prefix: 'a', forcePathStyle: false });
  });

  it('refuses a malformed KRS_STORAGE or KRS_S3_FORCE_PATH_STYLE with one line naming it', () => {
    for (const bad of ['s3://', 's3:///prefix', 'S3://krs-files', 'file:///srv/krs', '/srv/krs', 's3://Krs_Files', 's3://ab', 's3://krs-files//x', 's3://krs-files/a b', 's3://krs-files/../x', 's3://krs-files/a/./b', 's3://krs-files\nx']) {
      expect(() => readConfig({ KRS_STORAGE: bad }), bad).toThrow(ConfigError);
      expect(() => readConfig({ KRS_STORAGE: bad }), bad).toThrow(/^KRS_STORAGE must be s3:\/\/<bucket>\[\/<prefix>\] .*[^\n]$/);
    }
    expect(() => readConfig({ KRS_STORAGE: 's3://krs-files', KRS_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/KRS_S3_FORCE_PATH_STYLE must be true or false/);
  });
});
