import { describe, expect, it } from 'vitest';
import { textOf, textStart } from './html-text.ts';

/** Sanitised HTML made of pieces that a cut may fall inside: tags, entities, runs of spaces. */
function htmlOf(seed: number, pieces: number): string {
  const parts = ['<p>', '</p>', '<b>', '</b>', '<br/>', '<a href="https://example.org/x y">', '</a>', '&amp;', '&#x41;', '&#233;', '&lt;', ' ', '   ', '\n', 'word', 'é', 'x'];
  let state = seed;
  let html = '';
  for (let i = 0; i < pieces; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    html += parts[state % parts.length];
  }
  return html;
}

describe('textOf', () => {
  it("decodes the entities it knows and leaves others as written, Object's members among them", () => {
    expect(textOf('<p>a &amp; b &LT; &#x41;&#233; &constructor; &toString; &nbsp;c</p>')).toBe('a & b < Aé &constructor; &toString; \u00a0c'.replace(/\s+/g, ' ').trim());
  });
});

describe('textStart', () => {
  it('gives the start of textOf and whether there is more, wherever the cuts fall (seeded)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const html = htmlOf(seed, 20 + (seed % 7) * 150);
      const whole = textOf(html);
      for (const chars of [0, 1, 5, 17, 40, 120, 300]) {
        expect(textStart(html, chars)).toEqual({ text: whole.slice(0, chars), more: whole.length > chars });
      }
    }
  });
});
