import { mkdtempSync, readdirSync, readlinkSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { walSyncer } from '../src/sql/wal-syncer.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What this process's descriptors point at, as Linux names them ("... (deleted)" once unlinked). */
const openTargets = (): string[] =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });

describe('WAL syncer', () => {
  it('resolves with no WAL file yet, and shares one fsync among the calls that wait for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-wal-'));
    dirs.push(dir);
    const wal = walSyncer(join(dir, 'db.sqlite-wal'));
    await wal.sync();
    writeFileSync(join(dir, 'db.sqlite-wal'), 'frames');
    const first = wal.sync();
    const [second, third] = [wal.sync(), wal.sync()];
    expect(second).toBe(third);
    await Promise.all([first, second, third]);
    wal.close();
  });

  it('syncs the file now at the path, not one unlinked since, and closes what it kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-wal-'));
    dirs.push(dir);
    const file = join(dir, 'db.sqlite-wal');
    writeFileSync(file, 'old frames');
    const wal = walSyncer(file);
    await wal.sync();
    expect(openTargets()).toContain(file);
    unlinkSync(file);
    writeFileSync(file, 'new frames');
    await wal.sync();
    const targets = openTargets();
    expect(targets).toContain(file);
    expect(targets).not.toContain(`${file} (deleted)`);
    wal.close();
    expect(openTargets()).not.toContain(file);
  });
});
