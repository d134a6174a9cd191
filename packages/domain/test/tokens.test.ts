import { describe, expect, it } from 'vitest';
import { makeCore } from './make-core.ts';

describe('personal access tokens', () => {
  it('lists a user\'s tokens without their secrets and revokes them by name, by id or all, each refused at once', async () => {
    const { core, clock } = makeCore();
    const first = await core.users.createToken('Ada@Example.org', 'laptop');
    clock.advance(1000);
    const second = await core.users.createToken('ada@example.org', 'ci');
    clock.advance(1000);
    const third = await core.users.createToken('ada@example.org', 'ci');
    const other = await core.users.createToken('bob@example.org', 'ci');

    const listed = await core.users.listTokens('ada@example.org');
    expect(listed.tokens.map((t) => t.name)).toEqual(['laptop', 'ci', 'ci']);
    expect(JSON.stringify(listed)).not.toContain(first.token);
    expect(listed.tokens.every((t) => Object.keys(t).sort().join() === 'created,id,name')).toBe(true);

    // By name: both "ci" tokens of this user, not bob's.
    const byName = await core.users.revokeTokens('ada@example.org', { name: 'ci' });
    expect(byName.revoked).toHaveLength(2);
    expect(await core.users.authenticate(second.token)).toBeNull();
    expect(await core.users.authenticate(third.token)).toBeNull();
    expect(await core.users.authenticate(other.token)).toBe(other.user.id);
    expect(await core.users.authenticate(first.token)).toBe(first.user.id);

    // By id: another user's token id revokes nothing.
    const bobsId = (await core.users.listTokens('bob@example.org')).tokens[0]?.id as string;
    expect((await core.users.revokeTokens('ada@example.org', { id: bobsId })).revoked).toEqual([]);
    expect(await core.users.authenticate(other.token)).toBe(other.user.id);
    const firstId = (await core.users.listTokens('ada@example.org')).tokens[0]?.id as string;
    expect((await core.users.revokeTokens('ada@example.org', { id: firstId })).revoked.map((t) => t.name)).toEqual(['laptop']);
    expect(await core.users.authenticate(first.token)).toBeNull();

    // All: whatever is left, and again without error.
    await core.users.createToken('bob@example.org', 'spare');
    expect((await core.users.revokeTokens('bob@example.org', { all: true })).revoked).toHaveLength(2);
    expect((await core.users.revokeTokens('bob@example.org', { all: true })).revoked).toEqual([]);
    expect(await core.users.authenticate(other.token)).toBeNull();
  });

  it('answers an unknown user as not found', async () => {
    const { core } = makeCore();
    await expect(core.users.listTokens('nobody@example.org')).rejects.toMatchObject({ kind: 'not_found', code: 'user.unknown' });
    await expect(core.users.revokeTokens('nobody@example.org', { all: true })).rejects.toMatchObject({ kind: 'not_found', code: 'user.unknown' });
  });
});
