/**
 * Identity of a request: a bearer token (an unknown or malformed one is a 401, never silently
 * anonymous) plus any access-link tokens presented as `?token=`.
 */
import type { MiddlewareHandler } from 'hono';
import { unauthenticated, type Identity } from '@krs/domain';

export function authenticate(resolve: (token: string) => Promise<string | null>): MiddlewareHandler<{ Variables: { identity: Identity } }> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    let userId: string | null = null;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m?.[1]) throw unauthenticated('auth.malformed', 'The Authorization header must be "Bearer <token>".');
      userId = await resolve(m[1]);
      if (userId === null) throw unauthenticated('auth.invalid_token', 'The access token is invalid or was revoked.');
    }
    const linkTokens = c.req.queries('token') ?? [];
    c.set('identity', { userId, linkTokens });
    await next();
  };
}
