import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOrCreateSecretKey } from '../src/secret-key-file.ts';

describe('secret key file', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'krs-secret-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is created once, private to its owner, and read back the same by every later process', () => {
    const d = dir();
    const key = readOrCreateSecretKey(join(d, 'secret.key'));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(d, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readOrCreateSecretKey(join(d, 'secret.key'))).toBe(key);
    expect(readdirSync(d)).toEqual(['secret.key']);
  });

  it('keeps an existing key and refuses a damaged one rather than silently replacing it', () => {
    const d = dir();
    writeFileSync(join(d, 'secret.key'), `${'ab'.repeat(32)}\n`);
    expect(readOrCreateSecretKey(join(d, 'secret.key'))).toBe('ab'.repeat(32));
    writeFileSync(join(d, 'secret.key'), 'x');
    expect(() => readOrCreateSecretKey(join(d, 'secret.key'))).toThrow(/damaged/);
    expect(readFileSync(join(d, 'secret.key'), 'utf8')).toBe('x');
  });
});
