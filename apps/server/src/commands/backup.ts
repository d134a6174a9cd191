/**
 * `krs backup <dir> [--copy]` while the server runs, and `krs restore <dir> [--link]` into an
 * empty data directory (see docs/operations.md).
 */
import { resolve } from 'node:path';
import { restoreBackup, takeBackup, type BackupProgress } from '@krs/adapters';
import type { Composed } from '../compose.ts';
import { compose } from '../compose.ts';
import { ConfigError, readConfig, type ServerConfig } from '../config.ts';
import { UsageError, withService, type Command } from './command.ts';
import { formatBytes, progressLine } from './progress.ts';
import { describeReport } from './verify.ts';

export interface BackupArgs {
  dir: string;
  /** backup: copy blobs instead of hard-linking; restore: link instead of copying. */
  flag: boolean;
}

export function parseBackupArgs(args: string[], flag: '--copy' | '--link'): BackupArgs {
  const dirs = args.filter((a) => a !== flag);
  const unknown = dirs.find((a) => a.startsWith('--'));
  if (unknown !== undefined) throw new Error(`unknown argument "${unknown}"`);
  if (dirs.length !== 1 || !dirs[0]) throw new Error('expected one directory');
  // pnpm runs scripts inside the package; INIT_CWD is where the user typed the command.
  return { dir: resolve(process.env['INIT_CWD'] || process.cwd(), dirs[0]), flag: args.includes(flag) };
}

function showProgress(verb: string) {
  const line = progressLine();
  return {
    onProgress: (p: BackupProgress) => line.update(p.phase === 'database' ? `${verb} database: ${p.done}/${p.total} pages` : `${verb} files: ${p.done}/${p.total} blobs`),
    done: () => line.done(),
  };
}

export async function backupCommand(composed: Composed, args: BackupArgs): Promise<number> {
  // Blobs in S3 are the bucket's to keep (versioning, replication); a database-only backup here
  // would look complete and restore records whose files it never held.
  if (composed.filesRoot === null) throw new ConfigError('krs backup copies blobs from the data dir; with KRS_STORAGE=s3://... back up the bucket with S3 tools (docs/storage.md)');
  const progress = showProgress('backing up');
  const manifest = await takeBackup({ db: composed.db, filesRoot: composed.filesRoot }, args.dir, { link: !args.flag, onProgress: progress.onProgress });
  progress.done();
  process.stdout.write(`backup in ${args.dir}: database as of ${manifest.created}, ${manifest.blobs} blobs (${formatBytes(manifest.bytes)}); search index to be rebuilt on restore\n`);
  if (manifest.missing.length === 0) return 0;
  process.stdout.write(`${manifest.missing.length} referenced blobs were missing from storage: ${manifest.missing.join(', ')}\n`);
  return 1;
}

/** Restores, rebuilds the search index, then verifies what was restored. */
export async function restoreCommand(config: ServerConfig, args: BackupArgs): Promise<number> {
  // Else the SQLite file would be restored beside a server that never reads it, and the rebuild and
  // the verify after it would run on PostgreSQL's records and say OK.
  if (config.databaseUrl) throw new ConfigError('krs restore fills the embedded SQLite store in the data dir; with KRS_DATABASE_URL=postgres://... restore PostgreSQL with its own tools, or unset it to restore this backup (docs/operations.md)');
  if (config.storage.kind !== 'fs') throw new ConfigError('krs restore puts blobs into the data dir; with KRS_STORAGE=s3://... unset it to restore (docs/storage.md)');
  const progress = showProgress('restoring');
  const manifest = await restoreBackup(args.dir, config.dataDir, { link: args.flag, onProgress: progress.onProgress });
  progress.done();
  process.stdout.write(`restored the backup of ${manifest.created} into ${config.dataDir}: ${manifest.blobs} blobs (${formatBytes(manifest.bytes)})\n`);
  const composed = await compose(config);
  try {
    const rebuilt = await composed.rebuildSearch();
    await composed.saveSearchSnapshot();
    process.stdout.write(`search index rebuilt: ${rebuilt.parents} records${rebuilt.skipped.length > 0 ? `, ${rebuilt.skipped.length} skipped` : ''}\n`);
    const report = await composed.core.operations.verify();
    process.stdout.write(describeReport(report, { json: false }));
    return report.ok && manifest.missing.length === 0 ? 0 : 1;
  } finally {
    await composed.close();
  }
}

function parseOrUsage(args: string[], flag: '--copy' | '--link'): BackupArgs {
  try {
    return parseBackupArgs(args, flag);
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

export const backup: Command = {
  name: 'backup',
  summary: 'backup <dir> [--copy]            consistent copy of a running deployment',
  usage: `usage: krs backup <dir> [--copy]

Copies a running deployment into <dir>, which must be empty or absent: the database through
SQLite's online backup, then every file blob it references (hard-linked; --copy copies them).
The search index is rebuilt on restore. Exit status 1 when referenced blobs were missing.`,
  async run(args) {
    const parsed = parseOrUsage(args, '--copy');
    // Refused before anything opens PostgreSQL, as restore is.
    if (readConfig().databaseUrl) throw new ConfigError('krs backup copies the embedded SQLite store; with KRS_DATABASE_URL=postgres://... back up PostgreSQL with its own tools (pg_dump or base backups) (docs/operations.md)');
    return withService((composed) => backupCommand(composed, parsed));
  },
};

export const restore: Command = {
  name: 'restore',
  summary: 'restore <dir> [--link]           fill an empty data dir from a backup, then verify it',
  usage: `usage: krs restore <dir> [--link]

Restores the backup in <dir> into KRS_DATA_DIR, which must be empty; rebuilds the search index
and verifies every restored file (--link hard-links blobs instead of copying them).`,
  async run(args) {
    const parsed = parseOrUsage(args, '--link');
    // Restore fills an empty data dir, so nothing may open (and create) the database first.
    return restoreCommand(readConfig(), parsed);
  },
};
