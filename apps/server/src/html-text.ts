/** Plain text of the sanitised HTML that descriptions hold, for Dublin Core and result lists. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Text of sanitised HTML: tags dropped, block ends as spaces, entities decoded. Linear in the input. */
export function textOf(html: string): string {
  return html
    .replace(/<\/(p|div|li|h[1-6]|br)\s*>|<br\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      const key = name.toLowerCase();
      // Own members only: `&constructor;` is no entity, not Object's constructor.
      return Object.hasOwn(ENTITIES, key) ? (ENTITIES[key] as string) : whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}


/**
 * The first `chars` characters of `textOf(html)`, and whether there are more, reading only as
 * much of the HTML as that takes: a description may be 100,000 characters of markup and a list
 * shows a line of it. A start cut inside a tag or an entity leaves it out; whatever `textOf` does
 * to the text read so far is done to the whole alike, but at its end (spaces trimmed), so a start
 * with more than `chars` characters of text has the whole text's first `chars`.
 */
export function textStart(html: string, chars: number): { text: string; more: boolean } {
  for (let read = Math.max(chars * 8, 64); ; read *= 2) {
    if (read >= html.length) {
      const text = textOf(html);
      return { text: text.slice(0, chars), more: text.length > chars };
    }
    const text = textOf(html.slice(0, read).replace(/<[^>]*$/, '').replace(/&[#\w]*$/, ''));
    if (text.length > chars) return { text: text.slice(0, chars), more: true };
  }
}
