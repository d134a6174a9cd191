import { Cite } from '@citation-js/core';
import '@citation-js/plugin-csl';
import '@citation-js/plugin-bibtex';
import { describe, expect, it } from 'vitest';
import { createCitationThread } from './citation-thread.ts';

const item = (n: number) => ({
  id: `r${n}`,
  type: 'dataset',
  title: `Glacier <b>flood</b> maps ${n}`,
  author: Array.from({ length: n }, (_, i) => ({ family: `Fämily${i}`, given: `Given${i}` })),
  issued: { 'date-parts': [[2024, 3]] },
  publisher: 'Knowledge Hub',
  DOI: `10.1234/${n}`,
});

describe('the citation thread', () => {
  it('answers each job with what citation-js gives on the event loop, whatever order the answers come in', async () => {
    const thread = createCitationThread([['apa', 'en-US']]);
    const jobs = [1, 2, 30, 300].flatMap((n) => [
      { kind: 'bibtex' as const, item: item(n) },
      { kind: 'bibliography' as const, item: item(n), style: 'vancouver', locale: 'de-DE', format: 'html' as const },
      { kind: 'bibliography' as const, item: item(n), style: 'apa', locale: 'en-US', format: 'text' as const },
    ]);
    const answers = await Promise.all(jobs.map((job) => thread.run(job)));
    const direct = jobs.map((job) =>
      job.kind === 'bibtex'
        ? // A year and month: BibTeX's month macro where citation-js writes the month's number.
          new Cite([job.item]).format('bibtex', { format: 'text' }).replace('\tmonth = {3},', '\tmonth = mar,')
        : new Cite([job.item]).format('bibliography', { format: job.format, template: job.style, lang: job.locale }).trim(),
    );
    expect(answers).toEqual(direct);
    expect(answers[0]).toContain('Given0');
    expect(answers[0]).toContain('\tmonth = mar,');
  });

  it('rejects a job citation-js cannot do and answers the next one', async () => {
    const thread = createCitationThread([]);
    await expect(thread.run({ kind: 'bibliography', item: item(1), style: 'apa', locale: 'en-US', format: 'nonesuch' as 'text' })).rejects.toThrow(/format/);
    await expect(thread.run({ kind: 'bibtex', item: item(1) })).resolves.toContain('Given0');
  });
});
