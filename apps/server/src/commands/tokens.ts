/** `krs tokens create|list|revoke --user <email>`. */
import type { TokenChoice } from '@krs/domain';
import { parseCommandLine, printJson, UsageError, verbOf, withService, type Command } from './command.ts';

export const tokens: Command = {
  name: 'tokens',
  summary: 'tokens create|list|revoke --user <email>   create, list or revoke personal access tokens',
  usage: `usage: krs tokens create --user <email> [--name <name>] [--json]
       krs tokens list --user <email> [--json]
       krs tokens revoke --user <email> (--name <name> | --id <id> | --all) [--json]

create  Creates a personal access token for the user (creating the user if missing) and prints
        the token alone on stdout; it is stored hashed and shown only this once.
        With --json: {"token", "user": {"id", "email"}, "name"}.
list    Prints the user's tokens, oldest first: id, created, name (never the tokens themselves).
        With --json: {"user": {"id", "email"}, "tokens": [{"id", "name", "created"}]}.
revoke  Revokes the user's tokens of that name, the one of that id, or all of them, and prints
        each revoked token's id, created, name. A request bearing one is refused (401) from then
        on, on every node. Revoking none (no token has that name) is not an error.
        With --json: {"user": {"id", "email"}, "revoked": [{"id", "name", "created"}]}.
An unknown user is an error (exit 1) for list and revoke.`,
  async run(args) {
    const { verb, rest } = verbOf(args, ['create', 'list', 'revoke'] as const, 'tokens');
    const { values } = parseCommandLine(
      rest,
      { user: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } },
      { min: 0, max: 0, names: '' },
    );
    const email = values.user;
    if (email === undefined || email === '') throw new UsageError('missing --user <email>');
    if (verb !== 'revoke' && (values.id !== undefined || values.all)) throw new UsageError(`--id and --all are for revoke`);
    if (verb === 'list' && values.name !== undefined) throw new UsageError('--name is for create and revoke');
    const userOf = (user: { id: string; email: string }) => ({ id: user.id, email: user.email });
    const lines = (list: { id: string; name: string; created: string }[]) => list.map((t) => `${t.id}\t${t.created}\t${t.name}\n`).join('');

    if (verb === 'create') {
      const { token, user } = await withService(({ core }) => core.users.createToken(email, values.name));
      if (values.json) printJson({ token, user: userOf(user), name: values.name ?? 'default' });
      else process.stdout.write(`${token}\n`);
      return;
    }
    if (verb === 'list') {
      const { user, tokens: list } = await withService(({ core }) => core.users.listTokens(email));
      if (values.json) printJson({ user: userOf(user), tokens: list });
      else process.stdout.write(lines(list));
      return;
    }
    const choice = revokeChoice(values);
    const { user, revoked } = await withService(({ core }) => core.users.revokeTokens(email, choice));
    if (values.json) printJson({ user: userOf(user), revoked });
    else process.stdout.write(lines(revoked));
  },
};

function revokeChoice(values: { name?: string | undefined; id?: string | undefined; all?: boolean | undefined }): TokenChoice {
  const given = [values.name !== undefined, values.id !== undefined, values.all === true].filter(Boolean).length;
  if (given !== 1) throw new UsageError('revoke takes exactly one of --name <name>, --id <id>, --all');
  if (values.all) return { all: true };
  if (values.id !== undefined) return { id: values.id };
  return { name: values.name as string };
}
