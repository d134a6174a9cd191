/** Users and personal access tokens. Tokens are shown once and stored only as a sha-256 digest. */
import { DomainError, invalid } from '../errors.ts';
import type { User } from '../model/types.ts';
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

/** The user a bearer token belongs to, or null for an unknown token. */
export async function authenticate(deps: CoreDeps, token: string): Promise<string | null> {
  const found = await deps.repos.users.findTokenByHash(await tokenHash(deps, token));
  return found?.userId ?? null;
}
