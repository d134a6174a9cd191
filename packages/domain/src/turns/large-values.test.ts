import { describe, expect, it } from 'vitest';
import { withoutEmails } from '../model/metadata/privacy.ts';
import { isLarge, knownWithinLevels, markLarge, markLevels } from './large-values.ts';

describe('what is known of a value', () => {
  it('is known of that object only, and scalars are never large and always within any depth', () => {
    const value = { a: 1 };
    expect(isLarge(value)).toBe(false);
    markLarge(value);
    expect(isLarge(value)).toBe(true);
    expect(isLarge({ ...value })).toBe(false);
    expect(isLarge('text')).toBe(false);
    markLevels(value, 3);
    expect([knownWithinLevels(value, 3), knownWithinLevels(value, 2), knownWithinLevels({ a: 1 }, 9), knownWithinLevels(7, 0)]).toEqual([true, false, false, true]);
  });

  it('survives the copy that published views show (without e-mails), so their answers still take turns', () => {
    const metadata = { title: 'T', creators: [{ person_or_org: { type: 'personal', family_name: 'Obi', email: 'obi@example.org' } }] };
    markLarge(metadata);
    const shown = withoutEmails(metadata);
    expect(shown).not.toBe(metadata);
    expect(isLarge(shown)).toBe(true);
    expect(isLarge(withoutEmails({ ...metadata }))).toBe(false);
  });
});
