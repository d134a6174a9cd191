/**
 * The `krs` command. Works while the server runs (SQLite in WAL mode allows it).
 *   krs users create <email>
 *   krs tokens create --user <email> [--name <name>]
 *   krs vocabularies import <type> <file>
 *   krs reindex
 *   krs gc [--grace-minutes <n>]
 *   krs verify | backup <dir> | restore <dir>   (commands/verify.ts, commands/backup.ts)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDomainError, VOCABULARY_TYPES, type VocabularyType } from '@krs/domain';
import { parseVocabularyFile } from '@krs/domain/vocabularies';
import { readConfig } from './config.ts';
import { compose } from './compose.ts';
import { backupCommand, parseBackupArgs, restoreCommand } from './commands/backup.ts';
import { parseVerifyArgs, verifyCommand } from './commands/verify.ts';

const USAGE = `usage:
  krs users create <email>
  krs tokens create --user <email> [--name <name>]
  krs vocabularies import <type> <file>    (type: ${VOCABULARY_TYPES.join(', ')})
  krs reindex                              (rebuild the search index from the database)
  krs gc [--grace-minutes <n>]             (delete stored file content no record points at, written over n minutes ago; default 60)
  krs verify [--since <time>] [--limit <n>] [--json]   (re-hash stored files, compare the search index with the database)
  krs backup <dir> [--copy] | krs restore <dir> [--link]   (consistent copy of a running deployment; restore into an empty data dir)`;

/** Usage errors of the commands that parse their own arguments. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    return fail(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  }
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function fail(message: string): never {
  process.stderr.write(`krs: ${message}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [group, verb, ...rest] = argv;
  const config = readConfig();
  // Restore fills an empty data dir, so it runs before anything opens (and creates) the database.
  if (group === 'restore') return void (process.exitCode = await restoreCommand(config, parsed(() => parseBackupArgs(argv.slice(1), '--link'))));
  const composed = await compose(config);
  const { core, close } = composed;
  try {
    if (group === 'users' && verb === 'create') {
      const email = rest[0] ?? fail(`missing email\n${USAGE}`);
      const user = await core.users.create(email);
      process.stdout.write(`${user.email}\n`);
    } else if (group === 'tokens' && verb === 'create') {
      const email = option(rest, '--user') ?? fail(`missing --user <email>\n${USAGE}`);
      const { token } = await core.users.createToken(email, option(rest, '--name'));
      process.stdout.write(`${token}\n`);
    } else if (group === 'vocabularies' && verb === 'import') {
      const [type, file] = rest;
      if (!type || !(VOCABULARY_TYPES as readonly string[]).includes(type)) fail(`unknown vocabulary type "${type ?? ''}"\n${USAGE}`);
      if (!file) fail(`missing file\n${USAGE}`);
      const text = readFileSync(resolve(process.env['INIT_CWD'] || process.cwd(), file), 'utf8');
      const entries = parseVocabularyFile(type as VocabularyType, text, file.endsWith('.csv') ? 'csv' : 'yaml');
      const written = await core.vocabularies.import(type as VocabularyType, entries, (done, total) => {
        process.stderr.write(`\rimporting ${type}: ${done}/${total}`);
      });
      process.stderr.write('\n');
      process.stdout.write(`${written} ${type} entries imported\n`);
    } else if (group === 'reindex') {
      const n = await composed.rebuildSearch((p) => process.stderr.write(`\rreindexing: ${p.done}/${p.total} records`));
      process.stderr.write('\n');
      await composed.saveSearchSnapshot();
      process.stdout.write(`${n} records reindexed\n`);
    } else if (group === 'gc') {
      const raw = option([verb ?? '', ...rest], '--grace-minutes') ?? '60';
      if (!/^\d+$/.test(raw)) fail(`--grace-minutes takes a whole number, got "${raw}"\n${USAGE}`);
      const r = await core.files.collectGarbage(Number(raw));
      process.stdout.write(`removed ${r.removed} unreferenced blobs (${r.removedBytes} bytes), kept ${r.kept}\n`);
    } else if (group === 'verify') {
      process.exitCode = await verifyCommand(core, parsed(() => parseVerifyArgs(argv.slice(1))));
    } else if (group === 'backup') {
      process.exitCode = await backupCommand(composed, parsed(() => parseBackupArgs(argv.slice(1), '--copy')));
    } else {
      fail(USAGE);
    }
  } finally {
    await close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => fail(isDomainError(e) ? e.message : e instanceof Error ? e.message : String(e)));
