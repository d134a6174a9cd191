import { describe, expect, it } from 'vitest';
import { scholarDate, summaryOf } from './record-meta.tsx';

describe('scholarDate', () => {
  it('gives the start of an EDTF date or interval at the precision it has, slash-separated', () => {
    expect(scholarDate('2024-09-01')).toBe('2024/09/01');
    expect(scholarDate('2024-09')).toBe('2024/09');
    expect(scholarDate('2024')).toBe('2024');
    expect(scholarDate('2020-03/2021-06')).toBe('2020/03');
    expect(scholarDate('sometime')).toBeNull();
  });
});

describe('summaryOf', () => {
  it('reads the start of the text, drops a tag cut in two, and cuts at a word', () => {
    expect(summaryOf('<p>Short <i>and</i> whole.</p>')).toBe('Short and whole.');
    const long = `<p>${'lorem ipsum '.repeat(400)}</p>`;
    const summary = summaryOf(long);
    expect(summary.endsWith('…')).toBe(true);
    expect(summary.length).toBeLessThanOrEqual(301);
    expect(summary).not.toMatch(/lor…$|ipsu…$/);
    // The cut lands inside a tag: no half tag shows as text.
    expect(summaryOf(`<b>x</b>${'<b></b>'.repeat(341)}<a href="https://example.org/">link</a>`)).toBe('x');
  });
});
