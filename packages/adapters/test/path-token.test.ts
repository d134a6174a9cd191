/**
 * The token `_exists_:` finds a field path by: the same for a path however many other paths the
 * process has seen (the tokens are kept in a bounded table), and never one another path has.
 */
import { describe, expect, it } from 'vitest';
import { pathToken } from '../src/search/path-token.ts';

describe('path tokens', () => {
  it('give a path the same token before and after more distinct paths than the table keeps', () => {
    const before = pathToken('metadata.creators.person_or_org.name');
    const others = Array.from({ length: 10_000 }, (_, i) => pathToken(`custom_fields.key_${i}`));
    expect(pathToken('metadata.creators.person_or_org.name')).toBe(before);
    expect(before).toBe('0zmetadataz002ecreatorsz002epersonz005forz005forgz002ename');
    expect(new Set(others).size).toBe(10_000);
    expect(pathToken('custom_fields.key_0')).toBe(others[0]);
  });

  it('keep apart paths that differ only in case or in characters outside a-y and digits', () => {
    const paths = ['a.b', 'a_b', 'aZb', 'azb', 'a.z', 'A.b'];
    expect(new Set(paths.map(pathToken)).size).toBe(paths.length);
  });
});
