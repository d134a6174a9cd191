import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sanitizeHtml, type SanitizeStats } from '../src/model/metadata/index.ts';

function sanitizeCounting(html: string): { out: string; steps: number } {
  const stats: SanitizeStats = { steps: 0 };
  return { out: sanitizeHtml(html, stats), steps: stats.steps };
}

describe('HTML sanitising', () => {
  it('keeps allowed tags and attributes and rebuilds them quoted', () => {
    expect(sanitizeHtml('<p class=intro>Hi <strong>there</strong><br/><a href="https://example.org/?a=1&b=2" title=\'t\'>link</a></p>')).toBe(
      '<p class="intro">Hi <strong>there</strong><br><a href="https://example.org/?a=1&b=2" title="t">link</a></p>',
    );
  });

  it('shows anything else as text: scripts, event handlers, unsafe links, comments', () => {
    expect(sanitizeHtml('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(sanitizeHtml('<p onclick="x()" style="color:red">a</p>')).toBe('<p>a</p>');
    expect(sanitizeHtml('<a href="javascript:alert(1)">a</a><a href=" JaVaScRiPt:x">b</a><a href="javascript&colon;x">c</a>')).toBe('<a>a</a><a>b</a><a>c</a>');
    expect(sanitizeHtml('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(sanitizeHtml('<!-- c --> 1 < 2 > 0')).toBe('&lt;!-- c --&gt; 1 &lt; 2 &gt; 0');
    expect(sanitizeHtml('<a title="x"y" href=/ok>')).toBe('<a title="x" href="/ok">');
  });

  it('shows an unterminated tag as text', () => {
    expect(sanitizeHtml('a <b class="open')).toBe('a &lt;b class="open');
    expect(sanitizeHtml('<p')).toBe('&lt;p');
  });

  it('never re-reads input: work is linear and output at most 6 times the input, on adversarial inputs', () => {
    const n = 100_000;
    const adversarial = [
      '<a ' + 'b=c '.repeat(n / 4) + '>',
      '<a ' + 'b=c '.repeat(n / 4),
      '<'.repeat(n),
      '<a'.repeat(n / 2),
      '<a b="'.repeat(n / 6),
      "<a b='\"".repeat(n / 7),
      '<p>'.repeat(n / 3),
      '</'.repeat(n / 2),
      '<a href="javascript:'.repeat(n / 20) + '">',
      '"'.repeat(n),
      "<a title='" + '"'.repeat(n) + "'>",
    ];
    for (const input of adversarial) {
      const { out, steps } = sanitizeCounting(input);
      expect(steps).toBeLessThanOrEqual(input.length + 2);
      expect(out.length).toBeLessThanOrEqual(6 * input.length);
    }
  });

  it('gives the same result when run on its own output', () => {
    for (const input of ['<p class=a>x</p>', '<script>1</script>', '<a b=c b=c>', 'a < b', '<a href="/x" title=\'"q"\'>t</a>']) {
      const once = sanitizeHtml(input);
      expect(sanitizeHtml(once)).toBe(once);
    }
  });
});

describe('HTML sanitising under random input', () => {
  const htmlish = fc.array(fc.oneof(fc.string(), fc.constantFrom('<', '>', '</', '<a ', '<p>', '"', "'", '=', ' href=', 'javascript:', '<script>', '/>', '&lt;')), { maxLength: 60 }).map((parts) => parts.join(''));

  it('does linear work, bounds its output, and is stable on its own output', () => {
    fc.assert(
      fc.property(htmlish, (input) => {
        const { out, steps } = sanitizeCounting(input);
        expect(steps).toBeLessThanOrEqual(input.length + 2);
        expect(out.length).toBeLessThanOrEqual(6 * input.length);
        expect(sanitizeHtml(out)).toBe(out);
        expect(out).not.toMatch(/<(script|img|iframe)/i);
        expect(out).not.toMatch(/<a[^>]*href="\s*javascript/i);
      }),
      { seed: 1123, numRuns: 2000 },
    );
  });
});
