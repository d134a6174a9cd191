/** `krs tokens create --user <email> [--name <name>]`. */
import { parseCommandLine, printJson, UsageError, verbOf, withService, type Command } from './command.ts';

export const tokens: Command = {
  name: 'tokens',
  summary: 'tokens create --user <email>     create a personal access token',
  usage: `usage: krs tokens create --user <email> [--name <name>] [--json]

Creates a personal access token for the user (creating the user if missing) and prints the
token alone on stdout; it is stored hashed and shown only this once.
With --json: {"token", "user": {"id", "email"}, "name"}.`,
  async run(args) {
    const { rest } = verbOf(args, ['create'] as const, 'tokens');
    const { values } = parseCommandLine(
      rest,
      { user: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
      { min: 0, max: 0, names: '' },
    );
    const email = values.user;
    if (email === undefined || email === '') throw new UsageError('missing --user <email>');
    const { token, user } = await withService(({ core }) => core.users.createToken(email, values.name));
    if (values.json) printJson({ token, user: { id: user.id, email: user.email }, name: values.name ?? 'default' });
    else process.stdout.write(`${token}\n`);
  },
};
