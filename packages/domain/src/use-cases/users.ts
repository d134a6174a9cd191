/** Users and personal access tokens. Tokens are shown once and stored only as a sha-256 digest. */
import { DomainError, invalid, notFound } from '../errors.ts';
import type { ApiToken, User } from '../model/types.ts';
import type { CoreDeps } from './deps.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A token's stored digest: the same function for storing and for looking up. */
const tokenHash = (deps: CoreDeps, token: string): string | Promise<string> => deps.digest?.sha256Hex(token) ?? sha256Hex(token);

export async function createUser(deps: CoreDeps, email: string): Promise<User> {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized)) throw invalid('user.email', `Not a valid email address: "${email}".`);
  const existing = await deps.repos.users.getByEmail(normalized);
  if (existing) throw new DomainError('conflict', 'user.exists', `User ${normalized} already exists.`);
  const user: User = { id: deps.ids.recordId(), email: normalized, created: deps.clock.now() };
  await deps.repos.users.create(user);
  return user;
}

/** Creates a token for the user with this email, creating the user first if missing. */
export async function createToken(deps: CoreDeps, email: string, name = 'default'): Promise<{ user: User; token: string }> {
  const normalized = email.trim().toLowerCase();
  const user = (await deps.repos.users.getByEmail(normalized)) ?? (await createUser(deps, normalized));
  const token = deps.ids.secret();
  await deps.repos.users.addToken({ id: deps.ids.uuid(), userId: user.id, name, hash: await tokenHash(deps, token), created: deps.clock.now() });
  return { user, token };
}

/** What may be said of a token once it exists: never its digest. */
export type TokenSummary = Pick<ApiToken, 'id' | 'name' | 'created'>;

const summaryOf = ({ id, name, created }: ApiToken): TokenSummary => ({ id, name, created });

async function existingUser(deps: CoreDeps, email: string): Promise<User> {
  const normalized = email.trim().toLowerCase();
  const user = await deps.repos.users.getByEmail(normalized);
  if (user === null) throw notFound('user.unknown', `There is no user ${normalized}.`);
  return user;
}

/** The tokens of the user with this email, oldest first. */
export async function listTokens(deps: CoreDeps, email: string): Promise<{ user: User; tokens: TokenSummary[] }> {
  const user = await existingUser(deps, email);
  return { user, tokens: (await deps.repos.users.listTokens(user.id)).map(summaryOf) };
}

/** Which of a user's tokens to revoke: those of a name, one by id, or all of them. */
export type TokenChoice = { name: string } | { id: string } | { all: true };

/**
 * Revokes tokens of the user with this email: a request bearing one is refused from then on, on
 * every node (each request looks its token up). Answers the tokens revoked; none is an answer
 * too (a name no token has), not an error, so a script may revoke again.
 */
export async function revokeTokens(deps: CoreDeps, email: string, choice: TokenChoice): Promise<{ user: User; revoked: TokenSummary[] }> {
  const user = await existingUser(deps, email);
  const chosen = (await deps.repos.users.listTokens(user.id)).filter((t) => ('all' in choice ? true : 'id' in choice ? t.id === choice.id : t.name === choice.name));
  if (chosen.length > 0) await deps.repos.users.removeTokens(user.id, chosen.map((t) => t.id));
  return { user, revoked: chosen.map(summaryOf) };
}

/** The user a bearer token belongs to, or null for an unknown token. */
export async function authenticate(deps: CoreDeps, token: string): Promise<string | null> {
  const found = await deps.repos.users.findTokenByHash(await tokenHash(deps, token));
  return found?.userId ?? null;
}
