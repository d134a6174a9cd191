/**
 * `krs copy --to postgres://... [--storage s3://<bucket>[/<prefix>]]`: moves an embedded
 * deployment (SQLite and files under KRS_DATA_DIR) up to PostgreSQL and, optionally, S3. Safe to
 * run while the server runs (it reads a consistent snapshot of each table page) and to run again:
 * rows and blobs already copied are skipped, so a copy cut short goes on where it stopped, and a
 * last run after stopping the server takes the writes made meanwhile, deletions included. Then
 * every table and blob is verified on both sides.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copyBlobs, copyDatabase, createDb, createPgDb, migrateToLatest, verifyBlobs, verifyCopy } from '@krs/adapters';
import { openStorage } from '../compose.ts';
import { ConfigError, databaseUrl, readConfig, storage } from '../config.ts';
import { parseCommandLine, UsageError, type Command } from './command.ts';
import { formatBytes, progressLine } from './progress.ts';

export interface CopyArgs {
  to: string;
  storage?: string;
  json: boolean;
}

export function parseCopyArgs(args: string[]): CopyArgs {
  const { values } = parseCommandLine(args, { to: { type: 'string' }, storage: { type: 'string' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
  if (values.to === undefined) throw new UsageError('missing --to postgres://...');
  try {
    databaseUrl(values.to, '--to');
    if (values.storage !== undefined) storage({ KRS_STORAGE: values.storage });
  } catch (e) {
    throw new UsageError(e instanceof ConfigError ? e.message.replace('KRS_STORAGE', '--storage') : String(e));
  }
  return { to: values.to, ...(values.storage !== undefined ? { storage: values.storage } : {}), json: values.json === true };
}

export async function copyCommand(args: CopyArgs): Promise<number> {
  const config = readConfig();
  if (config.databaseUrl) throw new UsageError('krs copy reads the embedded store under KRS_DATA_DIR: unset KRS_DATABASE_URL');
  const sqlite = join(config.dataDir, 'krs.sqlite');
  // Opening a missing file would make an empty store, and copying it would empty the target.
  if (!existsSync(sqlite)) throw new UsageError(`no embedded store to copy: ${sqlite} does not exist (is KRS_DATA_DIR right?)`);
  const line = progressLine();
  const source = createDb(sqlite);
  const target = createPgDb(args.to);
  const from = await openStorage(config);
  const to = args.storage === undefined ? null : await openStorage({ dataDir: config.dataDir, storage: storage({ ...process.env, KRS_STORAGE: args.storage }), storeTimeouts: config.storeTimeouts });
  try {
    await migrateToLatest(source.db);
    await migrateToLatest(target.db);
    const removed = await copyDatabase(source.db, target.db, (p) => line.update(`copying ${p.table}: ${p.copied}/${p.total} rows`));
    line.update('verifying the database');
    const tables = await verifyCopy(source.db, target.db);
    const blobs = to === null ? null : await copyBlobs(from.storage, to.storage, (p) => line.update(`copying files: ${p.copied} copied (${formatBytes(p.bytes)}), ${p.skipped} already there`));
    const checked = to === null ? null : await verifyBlobs(from.storage, to.storage, (n) => line.update(`verifying files: ${n} blobs re-hashed on both sides`));
    line.done();
    const ok = tables.every((t) => t.matches) && (checked === null || checked.differing.length === 0);
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ ok, tables, removed, blobs: blobs === null ? null : { ...blobs, verified: checked?.blobs, differing: checked?.differing } })}\n`);
    } else {
      for (const t of tables) {
        const gone = removed[t.table] ?? 0;
        process.stdout.write(`${t.table.padEnd(12)} ${String(t.source).padStart(9)} rows, target ${String(t.target).padStart(9)}  ${t.matches ? 'same' : 'DIFFERENT'}${gone > 0 ? ` (${gone} deleted there, gone here since an earlier run)` : ''}\n`);
      }
      if (blobs && checked) {
        process.stdout.write(`files: ${blobs.copied} copied (${formatBytes(blobs.bytes)}), ${blobs.skipped} already there; ${checked.blobs} verified, ${checked.differing.length} differ${checked.differing.length > 0 ? `: ${checked.differing.join(', ')}` : ''}\n`);
      } else {
        process.stdout.write(`files: left in ${join(config.dataDir, 'files')} (no --storage given)\n`);
      }
      process.stdout.write(ok ? 'copy: OK\n' : 'copy: DIFFERENCES FOUND (written here while it ran? stop the server and run it again)\n');
    }
    return ok ? 0 : 1;
  } finally {
    from.close();
    to?.close();
    await source.close();
    await target.close();
  }
}

export const copy: Command = {
  name: 'copy',
  summary: 'copy --to postgres://... [--storage s3://...]   move up to PostgreSQL (and S3), verified',
  usage: `usage: krs copy --to postgres://user:password@host:5432/db [--storage s3://<bucket>[/<prefix>]] [--json]

Copies the embedded deployment in KRS_DATA_DIR (records, parents, drafts, versions, access links,
users, tokens, vocabularies; with --storage, every file blob) into PostgreSQL and S3, then
verifies both: row counts and content of every table, and the md5 of every blob on both sides.
Run it again to resume or to take writes made since (rows and blobs already there are skipped;
rows deleted here since, such as published or discarded drafts, are deleted there: give it a
database of its own); stop the server before the last run. S3 settings as for KRS_STORAGE (AWS_* variables,
KRS_S3_FORCE_PATH_STYLE). Exit status 1 when anything differs.`,
  async run(args) {
    return copyCommand(parseCopyArgs(args));
  },
};
