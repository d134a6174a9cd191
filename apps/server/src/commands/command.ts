/**
 * What a `krs` command is, and the helpers every command shares. A command is one module in this
 * folder and one entry in the table in `../cli.ts`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';
import { compose, type Composed } from '../compose.ts';
import { readConfig } from '../config.ts';

export interface Command {
  /** The word after `krs`. */
  name: string;
  /** One line for `krs --help`. */
  summary: string;
  /** The text `krs <name> --help` prints. */
  usage: string;
  /** Runs with the words after the name; resolves to the exit code (0 when nothing is returned). */
  run(args: string[]): Promise<number | void>;
}

/** The command line was wrong: the message names what, and `krs` exits 2 with the command's usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `util.parseArgs` in strict mode, with its errors (unknown option, missing value) turned into
 * usage errors. `positionals` is how many words the command takes: exactly that many, or at least
 * `min` when a range is given.
 */
export function parseCommandLine<O extends Options>(args: string[], options: O, positionals: { min: number; max: number; names: string }) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message.split('. To specify')[0] ?? e.message : String(e));
  }
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError(`missing ${positionals.names.split(' ').slice(count).join(' ')}`);
  if (count > positionals.max) throw new UsageError(`unexpected argument "${parsed.positionals[positionals.max]}"`);
  return parsed;
}

/** The first word of a command with verbs (`users create`); unknown verbs are usage errors. */
export function verbOf<V extends string>(args: string[], verbs: readonly V[], command: string): { verb: V; rest: string[] } {
  const [verb, ...rest] = args;
  if (verb === undefined || verb.startsWith('-')) throw new UsageError(`missing ${command} command (${verbs.join(', ')})`);
  if (!(verbs as readonly string[]).includes(verb)) throw new UsageError(`unknown ${command} command "${verb}" (expected ${verbs.join(', ')})`);
  return { verb: verb as V, rest };
}

/** Opens the data dir the server uses (same environment), runs `work`, and closes it again. */
export async function withService<T>(work: (composed: Composed) => Promise<T>): Promise<T> {
  const composed = await compose(readConfig());
  try {
    return await work(composed);
  } finally {
    await composed.close();
  }
}

/** A path as the user typed it: pnpm runs scripts inside the package, INIT_CWD is where they were. */
export function userPath(path: string): string {
  return resolve(process.env['INIT_CWD'] || process.cwd(), path);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Progress of long work on stderr (stdout stays for results): in place on a terminal, at most ten lines a second. */
export function progress(): { update(text: string): void; done(): void } {
  const stream = process.stderr;
  let last = 0;
  let shown = false;
  let pending: string | null = null;
  return {
    update(text) {
      const now = Date.now();
      pending = text;
      if (now - last < 100) return;
      last = now;
      shown = true;
      pending = null;
      stream.write(stream.isTTY ? `\r${text}\u001b[K` : `${text}\n`);
    },
    done() {
      // The last figure is always shown, however fast the work went.
      if (pending !== null) stream.write(stream.isTTY ? `\r${pending}\u001b[K` : `${pending}\n`);
      if ((shown || pending !== null) && stream.isTTY) stream.write('\n');
    },
  };
}
