/**
 * The words `doc_field` stores for a value: exactly the domain's words, each one token FTS5 keeps
 * whole, and a word's prefixes prefixes of its token, whatever the text's characters.
 */
import { describe, expect, it } from 'vitest';
import { tokenize } from '@krs/domain/search';
import { fieldWordsInTurns, valueWords, VALUE_GAP } from '../src/search/field-tokens.ts';
import { encodeToken } from '../src/search/path-token.ts';
import { pathShape } from '../src/search/path-shape.ts';

const SAMPLES = ['Sentinel-1 flood maps', 'Zürich, Müller & Søren', 'ZZZ z-score 2024-01-02', '  --  ', '', 'Crème brûlée', 'naïve_façade', 'ΣΊΣΥΦΟΣ', '北京 data', 'x1z2 0z00 z', 'emoji 🌊 wave'];

describe('field words', () => {
  it('are the domain tokenizer words of each value, encoded, on ASCII and other text alike', () => {
    for (const value of SAMPLES) expect(valueWords(value)).toBe(tokenize(value).map(encodeToken).join(' '));
  });

  it('encode a word so that one word starts another exactly when its encoding starts the other one', () => {
    const words = ['z', 'za', 'zz', 'a', 'ab', 'é', 'ée', 'ß', '北', '北京', '🌊', 'y9'];
    for (const a of words) for (const b of words) expect([a, b, encodeToken(b).startsWith(encodeToken(a))]).toEqual([a, b, b.startsWith(a)]);
    for (const w of words) expect(encodeToken(w)).toMatch(/^[a-z0-9]+$/);
    expect(words.map(encodeToken)).not.toContain(VALUE_GAP);
  });

  it('keep the values of one path apart and mark a path holding values beside members that hold others', async () => {
    const flat = new Map([
      ['metadata.subjects', ['Sea', 'ice shelf']],
      ['metadata.subjects.subject', ['hidden']],
      ['metadata.title', ['Title']],
    ]);
    expect(await fieldWordsInTurns(flat, pathShape(flat).mixed, async () => undefined)).toEqual([
      ['metadata.subjects', `sea ${VALUE_GAP} ice shelf`, 1],
      ['metadata.subjects.subject', 'hidden', 0],
      ['metadata.title', 'title', 0],
    ]);
  });
});
