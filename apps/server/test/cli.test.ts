/** The `krs` command as a person or a script runs it: a real process on a temp data dir. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { compiledEnv, krsArgs, krsOutcome, outcome, serverDir } from './real-server.ts';

const fixtures = resolve(serverDir, '../../packages/domain/test/fixtures/vocabularies');
const dataDir = mkdtempSync(join(tmpdir(), 'krs-cli-'));

const krs = (...args: string[]) => krsOutcome({ ...process.env, KRS_DATA_DIR: dataDir, INIT_CWD: serverDir }, ...args);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('krs command line', { timeout: 180_000 }, () => {
  it('prints its commands with --help, and a command its usage', async () => {
    const help = await krs('--help');
    expect(help.code).toBe(0);
    for (const name of ['users', 'tokens', 'vocabularies', 'reindex', 'gc']) expect(help.stdout).toContain(`  ${name}`);
    const tokens = await krs('tokens', '--help');
    expect(tokens.code).toBe(0);
    expect(tokens.stdout).toContain('krs tokens create --user <email> [--name <name>]');
    expect((await krs('vocabularies', 'remove', '-h')).stdout).toContain('krs vocabularies remove <type> <id>...');
  });

  it('names an unknown command, option, verb or a missing value, exiting 2', async () => {
    // Independent: each fails on its arguments before touching the data dir.
    const [none, command, flag, value, verb, type, grace, email] = await Promise.all([
      krs(),
      krs('frobnicate'),
      krs('tokens', 'create', '--user', 'ada@example.org', '--colour', 'red'),
      krs('tokens', 'create', '--user'),
      krs('vocabularies', 'drop', 'licenses'),
      krs('vocabularies', 'list', 'colours'),
      krs('gc', '--grace-minutes', 'soon'),
      krs('users', 'create'),
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: krs <command>');
    expect([command.code, command.stderr]).toEqual([2, expect.stringContaining('unknown command "frobnicate"')]);
    expect([flag.code, flag.stderr]).toEqual([2, expect.stringContaining("Unknown option '--colour'")]);
    expect([value.code, value.stderr]).toEqual([2, expect.stringContaining("'--user <value>' argument missing")]);
    expect([verb.code, verb.stderr]).toEqual([2, expect.stringContaining('unknown vocabularies command "drop"')]);
    expect([type.code, type.stderr]).toEqual([2, expect.stringContaining('unknown vocabulary type "colours"')]);
    expect([grace.code, grace.stderr]).toEqual([2, expect.stringContaining('--grace-minutes takes a whole number, got "soon"')]);
    expect(email.stderr).toContain('missing <email>');
  });

  it('answers scripts with --json and keeps progress off stdout', async () => {
    const token = await krs('tokens', 'create', '--user', 'Ada@Example.org', '--name', 'ci', '--json');
    expect(token.code).toBe(0);
    expect(JSON.parse(token.stdout)).toEqual({ token: expect.stringMatching(/^\S{20,}$/), user: { id: expect.any(String), email: 'ada@example.org' }, name: 'ci' });
    const plain = await krs('tokens', 'create', '--user', 'ada@example.org');
    expect(plain.stdout).toMatch(/^\S{20,}\n$/);

    const imported = await krs('vocabularies', 'import', 'target_audiences', join(fixtures, 'custom/target_audience.yaml'), '--json');
    expect(JSON.parse(imported.stdout)).toEqual({ type: 'target_audiences', imported: 3 });
    expect(imported.stderr).toContain('importing target_audiences: 3/3');
    const listed = JSON.parse((await krs('vocabularies', 'list', 'target_audiences', '--json')).stdout) as { id: string; title: { en: string } }[];
    expect(listed.map((e) => e.id)).toEqual(['tu-geo-decisionmaker', 'tu-geo-eoanalyst', 'tu-geo-eoscientist']);
    expect(listed[1]?.title.en).toBe('Earth Observation Analyst');
    const removed = await krs('vocabularies', 'remove', 'target_audiences', 'tu-geo-eoscientist', 'unknown-id', '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ type: 'target_audiences', removed: ['tu-geo-eoscientist'], unknown: ['unknown-id'] });
    expect((await krs('vocabularies', 'list', 'target_audiences')).stdout).toBe('tu-geo-decisionmaker\tDecision Maker\ntu-geo-eoanalyst\tEarth Observation Analyst\n');
  });

  it('refuses a vocabulary file of another type, saying so, and imports nothing', async () => {
    const wrong = await krs('vocabularies', 'import', 'licenses', join(fixtures, 'custom/target_audience.yaml'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('This file does not hold licenses');
    expect(wrong.stdout).toBe('');
    expect(JSON.parse((await krs('vocabularies', 'list', 'licenses', '--json')).stdout)).toEqual([]);
    expect((await krs('vocabularies', 'import', 'licenses', 'no/such/file.csv')).stderr).toContain('no such file: no/such/file.csv');
  });

  it('ends quietly with its own status when its reader stops reading (krs vocabularies list ... | head -1)', async () => {
    await krs('vocabularies', 'import', 'target_audiences', join(fixtures, 'custom/target_audience.yaml'));
    const [command, argv] = krsArgs('vocabularies', 'list', 'target_audiences');
    const child = spawn(command, argv, { cwd: serverDir, env: compiledEnv({ ...process.env, KRS_DATA_DIR: dataDir, INIT_CWD: serverDir }) });
    // The reader is gone before the command has written a line: every write it makes fails.
    child.stdout.destroy();
    const run = await outcome(child);
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.code).toBe(0);
  });

  it('refuses backup and restore with KRS_DATABASE_URL set, exiting 2 before touching either store', async () => {
    // A restore there filled the data dir's SQLite file, which a node on PostgreSQL never reads,
    // then rebuilt and verified PostgreSQL's records and said OK.
    const target = mkdtempSync(join(tmpdir(), 'krs-cli-restore-'));
    try {
      const env = { ...process.env, KRS_DATA_DIR: target, INIT_CWD: serverDir, KRS_DATABASE_URL: 'postgres://krs@127.0.0.1:1/krs' };
      const restored = await krsOutcome(env, 'restore', join(target, 'no-such-backup'));
      expect(restored.code).toBe(2);
      expect(restored.stderr).toContain('with KRS_DATABASE_URL=postgres://... restore PostgreSQL with its own tools');
      const backedUp = await krsOutcome(env, 'backup', join(target, 'backup'));
      expect(backedUp.code).toBe(2);
      expect(backedUp.stderr).toContain('back up PostgreSQL with its own tools');
      expect(readdirSync(target)).toEqual([]);
      expect(existsSync(join(target, 'krs.sqlite'))).toBe(false);
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  });
});
