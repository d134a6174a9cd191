import { describe, expect, it } from 'vitest';
import { parseQuery } from '@krs/domain/search';
import { documentWords, documentWordsInTurns, exactQuery, rankQuery, requiredWords, singleLexeme } from './postgres-text.ts';

const exact = (q: string) => exactQuery(parseQuery(q))?.match ?? null;

describe('PostgreSQL text: documents', () => {
  it('weights title words A, places each value after a gap, and folds case and accents', () => {
    const words = documentWords({ metadata: { title: 'Glacier Müller', description: 'glacier ice', subjects: ['sea', 'ice'] } });
    expect(words).toEqual({
      // Each pair of words next to each other in one value is a lexeme too (none across the subjects' two values).
      vector: "'glacier':2A,5 'muller':3A 'ice':6,10 'sea':8 ' glacier muller':3A ' glacier ice':6 '$metadata' '$metadata.title' '$metadata.description' '$metadata.subjects'",
      positionsExact: true,
      words: ['glacier', 'muller', 'ice', 'sea'],
      paths: ['metadata', 'metadata.title', 'metadata.description', 'metadata.subjects'],
      // Words and paths, not pairs: what ranking damps by.
      lexemes: 8,
      // The title's words and pairs with all their positions, the description's too.
      titleWords: "'glacier':2A,5 'muller':3A ' glacier muller':3A",
      // The other words held twice or more, with their positions: with the title's, what makes a one-word rank exact.
      repeats: "'ice':6,10",
      // Each path's words and pairs at the vector's positions, for the field vector.
      fields: [
        ['metadata.title', new Map([['glacier', [2]], ['muller', [3]], [' glacier muller', [3]]]), false],
        ['metadata.description', new Map([['glacier', [5]], ['ice', [6]], [' glacier ice', [6]]]), false],
        ['metadata.subjects', new Map([['sea', [8]], ['ice', [10]]]), false],
      ],
    });
  });

  it('holds each year and month of the date range fields\' values once, as lexemes no word or prefix can be, and no version index', () => {
    const hex = (text: string) => Buffer.from(text, 'utf16le').swap16().toString('hex');
    const words = documentWords({ created: '2021-03-04T10:00:00Z', metadata: { title: 'Ice', publication_date: '2020', dates: [{ date: '2020-05-01' }, { date: '2020-05-30' }] }, versions: { index: 3 } });
    const buckets = (words?.vector.match(/'#[^']*'/g) ?? []).sort();
    expect(buckets).toEqual(
      [
        `'#m created ${hex('2021-03')}'`, `'#m metadata.dates.date ${hex('2020-05')}'`, `'#m metadata.publication_date ${hex('2020')}'`,
        `'#y created ${hex('2021')}'`, `'#y metadata.dates.date ${hex('2020')}'`, `'#y metadata.publication_date ${hex('2020')}'`,
      ].sort(),
    );
    // Outside what ranking damps by: its words and paths only.
    expect(words?.lexemes).toBe((words?.words.length ?? 0) + (words?.paths.length ?? 0));
  });

  it('keeps the words and pairs held twice or more outside the title, none past 512 characters', () => {
    expect(documentWords({ metadata: { title: 'Ice', description: 'sea ice sea ice glacier sea' } })?.repeats).toBe("'sea':4,6,9 ' sea ice':5,7");
    expect(documentWords({ metadata: { title: 'Ice', description: 'sea glacier' } })?.repeats).toBe('');
    const many = Array.from({ length: 80 }, (_, k) => `word${k} word${k}`).join(' ');
    expect(documentWords({ metadata: { title: 'Ice', description: many } })?.repeats).toBeNull();
  });

  it('keeps every word but drops phrase positions past the limits', () => {
    const many = documentWords({ metadata: { title: 'Long', description: 'the '.repeat(300) } });
    expect(many?.positionsExact).toBe(false);
    expect(many?.vector.match(/'the':([\d,]+)/)?.[1]?.split(',')).toHaveLength(256);
    // No field vector: a field's phrase could not be decided on it.
    expect(many?.fields).toBeNull();

    const long = documentWords({ metadata: { title: 'Long', description: Array.from({ length: 17_000 }, (_, i) => `w${i}`).join(' ') } });
    expect(long?.positionsExact).toBe(false);
    expect(long?.vector).toContain("'w16999'");
    expect(long?.vector).toContain("'long':2A");
  });

  it('keeps only the title positions when all of them pass a tsvector, and gives up past its size', () => {
    // 65,000 words of 6 letters fit a tsvector alone, not with the positions of the first 16,000.
    const big = documentWords({ metadata: { title: 'Big one', description: Array.from({ length: 65_000 }, (_, i) => `w${String(i).padStart(5, '0')}`).join(' ') } });
    expect(big?.positionsExact).toBe(false);
    expect(big?.vector.startsWith("'big':2A 'one':3A 'w00000' 'w00001'")).toBe(true);
    expect(documentWords({ description: Array.from({ length: 100_000 }, (_, i) => `distinctword${i}`).join(' ') })).toBeNull();
  });
});

describe('PostgreSQL text: queries', () => {
  it('translates the leaves the vector decides', () => {
    expect(exact('glacier')).toBe("'glacier'");
    expect(exact('Sea-Ice')).toBe("'sea' & 'ice'");
    expect(exact('defor*')).toBe("'defor':*");
    expect(exact('metadata.title:drought')).toBe("'drought':A");
    expect(exact('metadata.title:dro*')).toBe("'dro':*A");
    expect(exact('"sea ice"')).toBe("' sea ice'");
    expect(exact('metadata.title:"sea ice"')).toBe("' sea ice':A");
    expect(exact('"arctic sea ice"')).toBe("'arctic' <-> 'sea' <-> 'ice'");
    expect(exact('glacier AND (flood OR -drought)')).toBe("('glacier') & (('flood') | (!('drought')))");
  });

  it('answers _exists_ from the path lexemes, and fuzzy terms from their expansions', () => {
    expect(exact('_exists_:metadata.title')).toBe("'$metadata.title'");
    expect(exact('metadata.creators:*')).toBe("'$metadata.creators'");
    const fuzzy = new Map([['glacer', ['glacier', 'glacer']]]);
    expect(exactQuery(parseQuery('glacer~ -metadata.title:glacer~'), fuzzy)?.match).toBe("(('glacier' | 'glacer')) & (!(('glacier':A | 'glacer':A)))");
    expect(rankQuery(parseQuery('glacer~'), fuzzy)).toBe("'glacier' | 'glacer'");
  });

  it('leaves to the evaluator what the vector cannot decide', () => {
    for (const q of ['glacier~', 'created:[2020 TO 2021]', 'metadata.description:ice', 'glacier AND metadata.subjects:ice', '!!!']) {
      expect(exact(q), q).toBeNull();
    }
  });

  it('says when a query holds a phrase of more than one word, and when one needs positions', () => {
    expect(exactQuery(parseQuery('"sea ice"'))?.phrases).toBe(true);
    expect(exactQuery(parseQuery('"sea ice"'))?.positional).toBe(false);
    expect(exactQuery(parseQuery('glacier OR "arctic sea ice"'))?.positional).toBe(true);
    expect(exactQuery(parseQuery('"sea" ice'))?.phrases).toBe(false);
    expect(exactQuery(parseQuery('metadata.title:glacier -metadata.title:"sea ice"'))?.titleOnly).toBe(true);
    expect(exactQuery(parseQuery('metadata.title:glacier ice'))?.titleOnly).toBe(false);
    expect(exactQuery(parseQuery('metadata.title:glacier _exists_:metadata'))?.titleOnly).toBe(false);
  });

  it('ranks by the positive words only, prefixes as prefixes', () => {
    expect(rankQuery(parseQuery('glacier defor* -drought "sea ice"'))).toBe("'glacier' | 'defor':* | ' sea ice'");
    expect(rankQuery(parseQuery('"arctic sea ice"'))).toBe("'arctic' | 'sea' | 'ice'");
    expect(rankQuery(parseQuery('-drought'))).toBeNull();
  });

  it('answers a two-word phrase as one lexeme, its pair', () => {
    expect(singleLexeme(parseQuery('"sea ice"'))).toEqual({ lexeme: ' sea ice', titleOnly: false });
    expect(singleLexeme(parseQuery('metadata.title:"Sea-Ice"'))).toEqual({ lexeme: ' sea ice', titleOnly: true });
    expect(singleLexeme(parseQuery('"arctic sea ice"'))).toBeNull();
    expect(singleLexeme(parseQuery('metadata.description:"sea ice"'))).toBeNull();
  });

  it('narrows a longer phrase by its word pairs where asked, else by its words', () => {
    expect(requiredWords(parseQuery('"arctic sea ice" glacier'), true)).toBe("(' arctic sea' & ' sea ice') & ('glacier')");
    expect(requiredWords(parseQuery('"arctic sea ice" glacier'))).toBe("('arctic' & 'sea' & 'ice') & ('glacier')");
  });

  it('makes a large record\'s words in slices, the same as at once', async () => {
    const body = { metadata: { title: 'Sea ice', creators: Array.from({ length: 3000 }, (_, i) => ({ person_or_org: { name: `Person ${i}, Ana` } })), subjects: ['sea ice', { subject: 'glacier' }] } };
    let turns = 0;
    const sliced = await documentWordsInTurns(body, { due: () => true, turn: async () => void turns++ });
    expect(sliced).toEqual(documentWords(body));
    expect(turns).toBeGreaterThan(3000 / 512);
  });
});
