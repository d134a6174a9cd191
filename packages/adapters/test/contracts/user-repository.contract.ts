import { describe, expect, it } from 'vitest';
import { token, user } from './builders.ts';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

export function userRepositoryContract(name: string, make: MakeRepositories): void {
  describe(`user repository contract: ${name}`, () => {
    const open = closingAfterEach(make);
    const users = async () => (await open()).repos.users;

    it('creates users and finds them by id and by email', async () => {
      const u = await users();
      await u.create(user('u1', 'ada@example.org'));
      expect(await u.getById('u1')).toEqual(user('u1', 'ada@example.org'));
      expect(await u.getByEmail('ada@example.org')).toEqual(user('u1', 'ada@example.org'));
      expect(await u.getById('u2')).toBeNull();
      expect(await u.getByEmail('bob@example.org')).toBeNull();
    });

    it('refuses a second user with a taken email, keeping the first', async () => {
      const u = await users();
      await u.create(user('u1', 'ada@example.org'));
      await expect(u.create(user('u2', 'ada@example.org'))).rejects.toMatchObject({ kind: 'conflict', code: 'user.exists' });
      expect(await u.getById('u2')).toBeNull();
      expect((await u.getByEmail('ada@example.org'))?.id).toBe('u1');
    });

    it('finds tokens by hash only', async () => {
      const u = await users();
      await u.create(user('u1'));
      await u.addToken(token('t1', 'u1', 'aaa'));
      await u.addToken(token('t2', 'u1', 'bbb'));
      expect(await u.findTokenByHash('aaa')).toEqual(token('t1', 'u1', 'aaa'));
      expect((await u.findTokenByHash('bbb'))?.id).toBe('t2');
      expect(await u.findTokenByHash('t1')).toBeNull();
    });

    it('lists a user\'s tokens oldest first and removes only that user\'s, by id', async () => {
      const u = await users();
      await u.create(user('u1', 'ada@example.org'));
      await u.create(user('u2', 'bob@example.org'));
      await u.addToken({ ...token('t2', 'u1', 'bbb'), created: '2026-01-02T00:00:00.000Z' });
      await u.addToken({ ...token('t1', 'u1', 'aaa'), created: '2026-01-01T00:00:00.000Z' });
      await u.addToken({ ...token('t3', 'u1', 'ccc'), created: '2026-01-02T00:00:00.000Z' });
      await u.addToken(token('t4', 'u2', 'ddd'));
      expect((await u.listTokens('u1')).map((t) => t.id)).toEqual(['t1', 't2', 't3']);
      expect(await u.listTokens('u1')).toContainEqual({ ...token('t1', 'u1', 'aaa'), created: '2026-01-01T00:00:00.000Z' });
      expect(await u.listTokens('nobody')).toEqual([]);
      // Another user's token and an unknown id are skipped.
      expect(await u.removeTokens('u1', ['t2', 't4', 'nope'])).toBe(1);
      expect(await u.removeTokens('u1', [])).toBe(0);
      expect(await u.findTokenByHash('bbb')).toBeNull();
      expect((await u.findTokenByHash('ddd'))?.id).toBe('t4');
      expect((await u.listTokens('u1')).map((t) => t.id)).toEqual(['t1', 't3']);
    });
  });
}
