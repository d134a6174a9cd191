/**
 * The `krs` command: a table of commands, one module each in `commands/`. To add a command, write
 * `commands/<name>.ts` exporting a `Command` and add it to `COMMANDS`. Works while the server runs
 * (SQLite in WAL mode allows it); same environment as the server.
 *
 * Exit codes: 0 done, 1 the work failed (the message says why), 2 the command line or the
 * configuration was wrong.
 */
import { isDomainError } from '@krs/domain';
import { ConfigError } from './config.ts';
import { UsageError, type Command } from './commands/command.ts';
import { backup, restore } from './commands/backup.ts';
import { copy } from './commands/copy.ts';
import { gc } from './commands/gc.ts';
import { reindex } from './commands/reindex.ts';
import { tokens } from './commands/tokens.ts';
import { users } from './commands/users.ts';
import { verify } from './commands/verify.ts';
import { vocabularies } from './commands/vocabularies.ts';

export const COMMANDS: readonly Command[] = [users, tokens, vocabularies, reindex, gc, verify, backup, restore, copy];

const USAGE = `usage: krs <command> [arguments] [--json]

commands:
${COMMANDS.map((c) => `  ${c.summary}`).join('\n')}

Run 'krs <command> --help' for a command's arguments. Settings come from the same environment
as the server (KRS_DATA_DIR, ...); results go to stdout, progress and messages to stderr.`;

const wantsHelp = (args: string[]) => {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

function say(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Runs one command line and answers the exit code; never throws. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === args[0]) : undefined;
    say(name === undefined ? process.stderr : process.stdout, topic ? topic.usage : USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    say(process.stderr, `krs: unknown ${name.startsWith('-') ? 'option' : 'command'} "${name}"\nRun 'krs --help' for the list of commands.`);
    return 2;
  }
  if (wantsHelp(args)) {
    say(process.stdout, command.usage);
    return 0;
  }
  try {
    return (await command.run(args)) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      say(process.stderr, `krs ${command.name}: ${e.message}\nRun 'krs ${command.name} --help' for its usage.`);
      return 2;
    }
    if (e instanceof ConfigError) {
      say(process.stderr, `krs: ${e.message}`);
      return 2;
    }
    say(process.stderr, `krs ${command.name}: ${isDomainError(e) || e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

// A reader that stops early (`krs vocabularies list subjects | head`) closes the pipe: what is
// left to print goes nowhere, without a stack trace, and the command still ends with its own
// status (`krs verify | head` exits 1 on a problem found after the lines head took).
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
});

process.exitCode = await runCli(process.argv.slice(2));
