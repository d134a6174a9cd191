import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { readConfig } from './config.ts';

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
      searchEngine: 'sqlite',
      logLevel: 'info',
      metricsToken: null,
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
      KRS_SEARCH_ENGINE: 'minisearch',
      KRS_LOG_LEVEL: 'warn',
      KRS_METRICS_TOKEN: 's3cret',
    });
    expect(config).toEqual({
      port: 4000,
      host: '0.0.0.0',
      dataDir: '/var/lib/krs',
      baseUrl: 'https://krs.example.org/hub',
      maxFileSize: 1048576,
      maxFiles: 7,
      searchEngine: 'minisearch',
      logLevel: 'warn',
      metricsToken: 's3cret',
    });
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
    expect(() => readConfig({ KRS_LOG_LEVEL: 'verbose' })).toThrow(/KRS_LOG_LEVEL/);
  });
});
