import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { Identity } from '@krs/domain';
import { authenticate } from './auth.ts';
import { errorResponse } from './errors.ts';

const TOKENS: Record<string, string> = { 'good-token': 'user-1' };
const LINK_TOKENS: Record<string, string> = { aaa: 'link-a', bbb: 'link-b' };

function makeApp() {
  const app = new Hono<{ Variables: { identity: Identity } }>();
  app.use(
    authenticate({
      authenticate: async (token) => TOKENS[token] ?? null,
      identify: async (userId, linkTokens) => ({ userId, linkIds: linkTokens.flatMap((t) => (LINK_TOKENS[t] ? [LINK_TOKENS[t]] : [])) }),
    }),
  );
  app.get('/me', (c) => c.json(c.get('identity')));
  app.onError((err, c) => errorResponse(err, c));
  return app;
}

describe('authenticate', () => {
  const app = makeApp();

  it('is anonymous without an Authorization header', async () => {
    const res = await app.request('/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ userId: null, linkIds: [] });
  });

  it('resolves a bearer token to its user (scheme in any case)', async () => {
    for (const header of ['Bearer good-token', 'bearer good-token', 'Bearer   good-token  ']) {
      const res = await app.request('/me', { headers: { authorization: header } });
      expect(await res.json()).toEqual({ userId: 'user-1', linkIds: [] });
    }
  });

  it('answers 401 with WWW-Authenticate for an unknown token, never falling back to anonymous', async () => {
    const res = await app.request('/me', { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ status: 401, message: 'The access token is invalid or was revoked.' });
  });

  it('answers 401 for a malformed header', async () => {
    for (const header of ['', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer a b', 'good-token']) {
      const res = await app.request('/me', { headers: { authorization: header } });
      expect(res.status, header).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('hands every ?token= access-link token to the core, signed in or not', async () => {
    const anon = await app.request('/me?token=aaa&q=x&token=bbb&token=forged');
    expect(await anon.json()).toEqual({ userId: null, linkIds: ['link-a', 'link-b'] });
    const signedIn = await app.request('/me?token=aaa', { headers: { authorization: 'Bearer good-token' } });
    expect(await signedIn.json()).toEqual({ userId: 'user-1', linkIds: ['link-a'] });
  });
});
