/**
 * The `krs` command. Works while the server runs (SQLite in WAL mode allows it).
 *   krs users create <email>
 *   krs tokens create --user <email> [--name <name>]
 *   krs vocabularies import <type> <file>
 *   krs reindex
 *   krs gc [--grace-minutes <n>]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDomainError, VOCABULARY_TYPES, type VocabularyType } from '@krs/domain';
import { parseVocabularyFile } from '@krs/domain/vocabularies';
import { readConfig } from './config.ts';
import { compose } from './compose.ts';
import { reindexCommand } from './commands/reindex.ts';
import { gc, GC_USAGE } from './commands/gc.ts';

const USAGE = `usage:
  krs users create <email>
  krs tokens create --user <email> [--name <name>]
  krs vocabularies import <type> <file>    (type: ${VOCABULARY_TYPES.join(', ')})
  krs reindex                              (rebuild the search index from the database; exit status 1 when records had to be skipped)
  ${GC_USAGE}`;

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
      process.exitCode = await reindexCommand(composed, { out: (t) => process.stdout.write(t), progress: (t) => process.stderr.write(t) });
    } else if (group === 'gc') {
      process.stdout.write(`${await gc(core, [verb ?? '', ...rest]).catch((e: Error) => fail(`${e.message}\n${USAGE}`))}\n`);
    } else {
      fail(USAGE);
    }
  } finally {
    await close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => fail(isDomainError(e) ? e.message : e instanceof Error ? e.message : String(e)));
