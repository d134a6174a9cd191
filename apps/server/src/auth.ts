/**
 * Identity of a request: a bearer token (an unknown or malformed one is a 401, never silently
 * anonymous) plus any access-link tokens presented as `?token=`.
 */
import type { MiddlewareHandler } from 'hono';
import { unauthenticated, type Identity } from '@krs/domain';

export interface IdentitySource {
  /** The user a bearer token belongs to, or null. */
  authenticate(token: string): Promise<string | null>;
  /** The identity with the links whose genuine tokens were presented. */
  identify(userId: string | null, linkTokens: readonly string[]): Promise<Identity>;
}

export function authenticate(users: IdentitySource): MiddlewareHandler<{ Variables: { identity: Identity } }> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    let userId: string | null = null;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m?.[1]) throw unauthenticated('auth.malformed', 'The Authorization header must be "Bearer <token>".');
      userId = await users.authenticate(m[1]);
      if (userId === null) throw unauthenticated('auth.invalid_token', 'The access token is invalid or was revoked.');
    }
    c.set('identity', await users.identify(userId, c.req.queries('token') ?? []));
    await next();
  };
}
