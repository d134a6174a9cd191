/** `krs vocabularies import|list|remove`: the rules live in the domain's vocabulary use cases. */
import { readFileSync } from 'node:fs';
import { VOCABULARY_TYPES, type VocabularyType } from '@krs/domain';
import { parseCommandLine, printJson, progress, userPath, UsageError, verbOf, withService, type Command } from './command.ts';

function vocabularyType(raw: string | undefined): VocabularyType {
  if (raw === undefined) throw new UsageError('missing <type>');
  if (!(VOCABULARY_TYPES as readonly string[]).includes(raw)) throw new UsageError(`unknown vocabulary type "${raw}" (expected one of ${VOCABULARY_TYPES.join(', ')})`);
  return raw as VocabularyType;
}

function readFile(path: string): string {
  try {
    return readFileSync(userPath(path), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${(e as Error).message}`);
  }
}

const json = { json: { type: 'boolean' } } as const;

async function importFile(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(args, json, { min: 2, max: 2, names: '<type> <file>' });
  const type = vocabularyType(positionals[0]);
  const file = positionals[1] as string;
  const text = readFile(file);
  const line = progress();
  const written = await withService(({ core }) =>
    core.vocabularies.importFile(type, text, file.toLowerCase().endsWith('.csv') ? 'csv' : 'yaml', (done, total) => line.update(`importing ${type}: ${done}/${total}`)),
  );
  line.done();
  if (values.json) printJson({ type, imported: written });
  else process.stdout.write(`${written} ${type} entries imported\n`);
}

async function list(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(args, json, { min: 1, max: 1, names: '<type>' });
  const type = vocabularyType(positionals[0]);
  const entries = await withService(({ core }) => core.vocabularies.list(type));
  if (values.json) return printJson(entries.map(({ type: _type, ...entry }) => entry));
  for (const e of entries) process.stdout.write(`${e.id}\t${e.title['en'] ?? Object.values(e.title)[0] ?? ''}\n`);
  process.stderr.write(`${entries.length} imported ${type} entries${entries.length === 0 ? ' (shipped defaults, where the type has them, answer without an import)' : ''}\n`);
}

async function remove(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(args, json, { min: 2, max: Number.POSITIVE_INFINITY, names: '<type> <id>' });
  const [rawType, ...ids] = positionals;
  const type = vocabularyType(rawType);
  const result = await withService(({ core }) => core.vocabularies.remove(type, ids));
  if (values.json) return printJson({ type, ...result });
  process.stdout.write(`${result.removed.length} ${type} entries removed\n`);
  if (result.unknown.length > 0) process.stderr.write(`not imported, nothing to remove: ${result.unknown.join(', ')}\n`);
}

export const vocabularies: Command = {
  name: 'vocabularies',
  summary: 'vocabularies import|list|remove  manage vocabulary entries',
  usage: `usage:
  krs vocabularies import <type> <file> [--json]   load an InvenioRDM vocabulary file (YAML list, or the licenses CSV)
  krs vocabularies list <type> [--json]            the imported entries, id and English title
  krs vocabularies remove <type> <id>... [--json]  delete imported entries no published record uses

<type>: ${VOCABULARY_TYPES.join(', ')}

Imports are idempotent (by type and id) and show progress on stderr. A file whose entries belong
to another vocabulary (licenses from target_audience.yaml, ...) is refused whole. Shipped
defaults (resource types, SPDX licenses, ISO 639-3 languages, relation types, roles,
description types) answer without an import and are not listed.`,
  async run(args) {
    const { verb, rest } = verbOf(args, ['import', 'list', 'remove'] as const, 'vocabularies');
    if (verb === 'import') await importFile(rest);
    else if (verb === 'list') await list(rest);
    else await remove(rest);
  },
};
