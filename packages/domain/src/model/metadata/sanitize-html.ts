/**
 * Allow-list HTML sanitiser for descriptions, with InvenioRDM's allowed tags and attributes.
 *
 * It reads the text once, left to right, the way an HTML tokenizer does: a tag runs from `<` and
 * a letter to the next `>` outside quotes and is never re-read, so the work is linear in the input
 * whatever its content (general-purpose sanitisers that re-scan attributes take minutes on
 * `<a b=c b=c ...>`). Allowed tags are rebuilt from their parsed attributes; anything else is
 * escaped and shown as text. Escaping makes the output at most 6 times the input (`"` as `&quot;`),
 * so callers limit the output as they limit the input.
 */

const ALLOWED_TAGS = new Set([
  'a', 'abbr', 'acronym', 'b', 'blockquote', 'br', 'code', 'div', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'em',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li', 'ol', 'p', 'pre', 's', 'span', 'strike', 'strong', 'sub', 'sup', 'u', 'ul',
]);
const COMMON_ATTRIBUTES = ['class'];
const TAG_ATTRIBUTES: { [tag: string]: string[] } = {
  a: ['href', 'title', 'name', 'rel', 'target'],
  abbr: ['title'],
  acronym: ['title'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan'],
};
/** Attributes beyond this many on one tag are dropped: no real description needs more. */
const MAX_ATTRIBUTES = 16;

/** Counts characters examined, so tests can show the work stays linear. */
export interface SanitizeStats {
  steps: number;
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;

const escapeText = (s: string) => s.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
const escapeAttribute = (s: string) => s.replace(/["<>]/g, (c) => (c === '"' ? '&quot;' : c === '<' ? '&lt;' : '&gt;'));

/** Only web and mail links, or relative ones that cannot hide a scheme behind an entity. */
function isSafeUrl(value: string): boolean {
  const v = value.trim();
  if (/^(https?:\/\/|mailto:|\/|#)/i.test(v)) return true;
  return !/[:&\\<>"'`]/.test(v) && !/[\u0000-\u001f]/.test(v);
}

interface Tag {
  end: number;
  closing: boolean;
  name: string;
  attributes: [string, string | null][];
}

/** Reads one tag starting at `<` (at `start`); `null` when the input ends before its `>`. */
function readTag(html: string, start: number, stats: SanitizeStats): Tag | null {
  let i = start + 1;
  const closing = html.charCodeAt(i) === 47;
  if (closing) i++;
  const nameStart = i;
  while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== '>' && html[i] !== '/') i++;
  const name = html.slice(nameStart, i).toLowerCase();
  const attributes: [string, string | null][] = [];
  for (;;) {
    while (i < html.length && (isSpace(html.charCodeAt(i)) || html[i] === '/')) i++;
    if (i >= html.length) {
      stats.steps += i - start;
      return null;
    }
    if (html[i] === '>') break;
    const attrStart = i;
    while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== '>' && html[i] !== '/' && (html[i] !== '=' || i === attrStart)) i++;
    const attr = html.slice(attrStart, i).toLowerCase();
    while (i < html.length && isSpace(html.charCodeAt(i))) i++;
    let value: string | null = null;
    if (html[i] === '=') {
      i++;
      while (i < html.length && isSpace(html.charCodeAt(i))) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        if (close < 0) {
          stats.steps += html.length - start;
          return null;
        }
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== '>') i++;
        value = html.slice(valueStart, i);
      }
    }
    if (attributes.length < MAX_ATTRIBUTES) attributes.push([attr, value]);
  }
  stats.steps += i + 1 - start;
  return { end: i + 1, closing, name, attributes };
}

function rebuild(tag: Tag): string {
  if (tag.closing) return `</${tag.name}>`;
  const allowed = TAG_ATTRIBUTES[tag.name] ?? [];
  const seen = new Set<string>();
  let out = `<${tag.name}`;
  for (const [attr, value] of tag.attributes) {
    if (seen.has(attr) || (!allowed.includes(attr) && !COMMON_ATTRIBUTES.includes(attr))) continue;
    if (attr === 'href' && (value === null || !isSafeUrl(value))) continue;
    seen.add(attr);
    out += value === null ? ` ${attr}` : ` ${attr}="${escapeAttribute(value)}"`;
  }
  return `${out}>`;
}

export function sanitizeHtml(html: string, stats: SanitizeStats = { steps: 0 }): string {
  const out: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? html.length : lt;
    if (textEnd > i) out.push(escapeText(html.slice(i, textEnd)));
    stats.steps += textEnd - i;
    if (lt < 0) break;
    const next = html.charCodeAt(lt + 1);
    if (!(isLetter(next) || (next === 47 && isLetter(html.charCodeAt(lt + 2))))) {
      out.push('&lt;');
      stats.steps += 1;
      i = lt + 1;
      continue;
    }
    const tag = readTag(html, lt, stats);
    if (!tag) {
      // An unterminated tag swallows the rest of the input, as in a browser; shown as text.
      out.push(escapeText(html.slice(lt)));
      break;
    }
    out.push(ALLOWED_TAGS.has(tag.name) ? rebuild(tag) : escapeText(html.slice(lt, tag.end)));
    i = tag.end;
  }
  return out.join('');
}
