import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { walSyncer } from '../src/sql/wal-syncer.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** This process's open descriptors on `file`. */
const openOn = (file: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

describe('walSyncer', () => {
  it('syncs nothing while there is no WAL file, then keeps one descriptor on it across syncs and gives it back on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-wal-'));
    dirs.push(dir);
    const wal = join(dir, 'db.sqlite-wal');
    const syncer = walSyncer(wal);
    await syncer.sync();
    expect(openOn(wal)).toBe(0);
    writeFileSync(wal, 'frames');
    await Promise.all([syncer.sync(), syncer.sync(), syncer.sync()]);
    await syncer.sync();
    expect(openOn(wal)).toBe(1);
    await syncer.close();
    expect(openOn(wal)).toBe(0);
  });

  it('answers a sync asked for while one runs only after a later one, and every caller hears of a failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-wal-'));
    dirs.push(dir);
    // A path under a regular file: the open fails with ENOTDIR, which (unlike ENOENT) is an error.
    writeFileSync(join(dir, 'file'), '');
    const syncer = walSyncer(join(dir, 'file', 'db.sqlite-wal'));
    const outcomes = await Promise.allSettled([syncer.sync(), syncer.sync(), syncer.sync()]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENOTDIR' });
  });
});
