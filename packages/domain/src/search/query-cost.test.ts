import { describe, expect, it } from 'vitest';
import { parseQuery } from './parse-query.ts';
import { costlyShape } from './query-cost.ts';

const costly = (q: string) => costlyShape(parseQuery(q));

describe('queries whose shape may cost a pass over much of the index', () => {
  it('counts fuzzy words, prefixes of one or two letters, _exists_, ranges, and matching by negation alone', () => {
    for (const q of [
      'glacier~',
      'flood AND glacer~1',
      'a*',
      'flood OR gl*',
      '_exists_:metadata.title',
      'metadata.publication_date:[1900 TO 2100]',
      'flood AND created:[2024 TO *]',
      '-data',
      'NOT glacier',
      '-flood -urban',
      'flood OR NOT urban',
      'flood AND NOT (a*)',
    ]) {
      expect(costly(q), q).toBe(true);
    }
  });

  it('leaves words, phrases, longer prefixes, field words and a word beside a NOT to the others', () => {
    for (const q of ['flood', 'flood mapping', '"sea ice"', 'defor*', 'metadata.title:drought', 'flood -urban', 'flood AND NOT urban', '(a ' .repeat(20), '']) {
      expect(costly(q), q).toBe(false);
    }
  });

  it('counts a prefix in characters, not UTF-16 units', () => {
    expect(costly('𝒜𝒜*')).toBe(true);
    expect(costly('été*')).toBe(false);
  });
});
