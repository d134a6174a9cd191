/** `krs users create <email>`. */
import { parseCommandLine, printJson, verbOf, withService, type Command } from './command.ts';

export const users: Command = {
  name: 'users',
  summary: 'users create <email>             create a user',
  usage: `usage: krs users create <email> [--json]

Creates a user and prints its e-mail (with --json: {"id", "email"}).`,
  async run(args) {
    const { rest } = verbOf(args, ['create'] as const, 'users');
    const { values, positionals } = parseCommandLine(rest, { json: { type: 'boolean' } }, { min: 1, max: 1, names: '<email>' });
    const email = positionals[0] as string;
    const user = await withService(({ core }) => core.users.create(email));
    if (values.json) printJson({ id: user.id, email: user.email });
    else process.stdout.write(`${user.email}\n`);
  },
};
