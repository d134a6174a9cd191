/** The `krs` command as a person or a script runs it: a real process on a temp data dir. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const serverDir = resolve(import.meta.dirname, '..');
const fixtures = resolve(serverDir, '../../packages/domain/test/fixtures/vocabularies');
const dataDir = mkdtempSync(join(tmpdir(), 'krs-cli-'));

function krs(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: serverDir,
    env: { ...process.env, KRS_DATA_DIR: dataDir, INIT_CWD: serverDir },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('krs command line', { timeout: 180_000 }, () => {
  it('prints its commands with --help, and a command its usage', () => {
    const help = krs('--help');
    expect(help.code).toBe(0);
    for (const name of ['users', 'tokens', 'vocabularies', 'reindex', 'gc']) expect(help.stdout).toContain(`  ${name}`);
    const tokens = krs('tokens', '--help');
    expect(tokens.code).toBe(0);
    expect(tokens.stdout).toContain('krs tokens create --user <email> [--name <name>]');
    expect(krs('vocabularies', 'remove', '-h').stdout).toContain('krs vocabularies remove <type> <id>...');
  });

  it('names an unknown command, option, verb or a missing value, exiting 2', () => {
    const none = krs();
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: krs <command>');
    const command = krs('frobnicate');
    expect([command.code, command.stderr]).toEqual([2, expect.stringContaining('unknown command "frobnicate"')]);
    const flag = krs('tokens', 'create', '--user', 'ada@example.org', '--colour', 'red');
    expect([flag.code, flag.stderr]).toEqual([2, expect.stringContaining("Unknown option '--colour'")]);
    const value = krs('tokens', 'create', '--user');
    expect([value.code, value.stderr]).toEqual([2, expect.stringContaining("'--user <value>' argument missing")]);
    const verb = krs('vocabularies', 'drop', 'licenses');
    expect([verb.code, verb.stderr]).toEqual([2, expect.stringContaining('unknown vocabularies command "drop"')]);
    const type = krs('vocabularies', 'list', 'colours');
    expect([type.code, type.stderr]).toEqual([2, expect.stringContaining('unknown vocabulary type "colours"')]);
    const grace = krs('gc', '--grace-minutes', 'soon');
    expect([grace.code, grace.stderr]).toEqual([2, expect.stringContaining('--grace-minutes takes a whole number, got "soon"')]);
    expect(krs('users', 'create').stderr).toContain('missing <email>');
  });

  it('answers scripts with --json and keeps progress off stdout', () => {
    const token = krs('tokens', 'create', '--user', 'Ada@Example.org', '--name', 'ci', '--json');
    expect(token.code).toBe(0);
    expect(JSON.parse(token.stdout)).toEqual({ token: expect.stringMatching(/^\S{20,}$/), user: { id: expect.any(String), email: 'ada@example.org' }, name: 'ci' });
    const plain = krs('tokens', 'create', '--user', 'ada@example.org');
    expect(plain.stdout).toMatch(/^\S{20,}\n$/);

    const imported = krs('vocabularies', 'import', 'target_audiences', join(fixtures, 'custom/target_audience.yaml'), '--json');
    expect(JSON.parse(imported.stdout)).toEqual({ type: 'target_audiences', imported: 3 });
    expect(imported.stderr).toContain('importing target_audiences: 3/3');
    const listed = JSON.parse(krs('vocabularies', 'list', 'target_audiences', '--json').stdout) as { id: string; title: { en: string } }[];
    expect(listed.map((e) => e.id)).toEqual(['tu-geo-decisionmaker', 'tu-geo-eoanalyst', 'tu-geo-eoscientist']);
    expect(listed[1]?.title.en).toBe('Earth Observation Analyst');
    const removed = krs('vocabularies', 'remove', 'target_audiences', 'tu-geo-eoscientist', 'unknown-id', '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ type: 'target_audiences', removed: ['tu-geo-eoscientist'], unknown: ['unknown-id'] });
    expect(krs('vocabularies', 'list', 'target_audiences').stdout).toBe('tu-geo-decisionmaker\tDecision Maker\ntu-geo-eoanalyst\tEarth Observation Analyst\n');
  });

  it('refuses a vocabulary file of another type, saying so, and imports nothing', () => {
    const wrong = krs('vocabularies', 'import', 'licenses', join(fixtures, 'custom/target_audience.yaml'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('This file does not hold licenses');
    expect(wrong.stdout).toBe('');
    expect(JSON.parse(krs('vocabularies', 'list', 'licenses', '--json').stdout)).toEqual([]);
    expect(krs('vocabularies', 'import', 'licenses', 'no/such/file.csv').stderr).toContain('no such file: no/such/file.csv');
  });
});
