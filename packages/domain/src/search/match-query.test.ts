import { describe, expect, it } from 'vitest';
import type { SearchDocument } from '../ports.ts';
import { largestLegalMetadata } from '../testing/largest-legal-metadata.ts';
import { editDistance, flatten, flattenInTurns, fuzzyExpansions, matchesQuery, scoreQuery, tokenize } from './match-query.ts';
import { parseQuery } from './parse-query.ts';

function doc(body: { [key: string]: unknown }): SearchDocument {
  return {
    key: 'published:a',
    id: 'a',
    kind: 'resource',
    state: 'published',
    parentId: 'p',
    ownerId: 'o',
    versionIndex: 1,
    isLatest: true,
    inUserListing: true,
    isUserLatest: true,
    isPublic: true,
    readers: [],
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    resourceType: null,
    accessStatus: 'open',
    bounds: [],
    body,
  };
}

const record = doc({
  id: 'abcde-12345',
  parent: { id: 'fghij-67890' },
  access: { record: 'public' },
  created: '2026-03-04T10:00:00.000Z',
  versions: { index: 3 },
  metadata: {
    title: 'Flood risk in the Niger delta',
    description: 'Sentinel-1 flood maps, 2020 to 2024.',
    publication_date: '2021-06-15',
    creators: [{ person_or_org: { name: 'Müller, Eva' } }, { person_or_org: { name: 'Obi, Chidi' } }],
    resource_type: { id: 'dataset' },
  },
});
const m = (q: string) => matchesQuery(parseQuery(q), record);

describe('matchesQuery', () => {
  it('matches words anywhere, case- and accent-insensitively', () => {
    expect(m('flood')).toBe(true);
    expect(m('FLOOD Delta')).toBe(true);
    expect(m('muller')).toBe(true);
    expect(m('drought')).toBe(false);
    expect(m('flood drought')).toBe(false);
    expect(m('')).toBe(true);
  });

  it('matches phrases only with their words in order', () => {
    expect(m('"niger delta"')).toBe(true);
    expect(m('"delta niger"')).toBe(false);
    expect(m('metadata.description:"flood maps"')).toBe(true);
    expect(m('metadata.title:"flood maps"')).toBe(false);
  });

  it('matches fields on dotted paths, through arrays, and keyword values whole', () => {
    expect(m('metadata.title:niger')).toBe(true);
    expect(m('metadata.title:sentinel')).toBe(false);
    expect(m('metadata.creators.person_or_org.name:obi')).toBe(true);
    expect(m('metadata.creators:obi')).toBe(true);
    expect(m('metadata.resource_type.id:dataset')).toBe(true);
    expect(m('metadata.resource_type.id:software')).toBe(false);
    expect(m('id:abcde-12345')).toBe(true);
    expect(m('id:fghij-67890')).toBe(false);
    expect(m('parent.id:fghij-67890')).toBe(true);
    expect(m('access.record:public')).toBe(true);
    expect(m('access.record:restricted')).toBe(false);
  });

  it('matches boolean combinations', () => {
    expect(m('flood OR drought')).toBe(true);
    expect(m('drought OR wildfire')).toBe(false);
    expect(m('flood -drought')).toBe(true);
    expect(m('flood NOT niger')).toBe(false);
    expect(m('(drought OR niger) AND flood')).toBe(true);
    expect(m('-drought')).toBe(true);
  });

  it('matches prefixes and fuzzy terms within the edit distance of the term length', () => {
    expect(m('nig*')).toBe(true);
    expect(m('metadata.title:sent*')).toBe(false);
    expect(m('niegr~')).toBe(false);
    expect(m('nigar~')).toBe(true);
    expect(m('sentinal~')).toBe(true);
    expect(m('sentnal~')).toBe(true);
    expect(m('floox~')).toBe(true);
    expect(m('fl~')).toBe(false);
  });

  it('matches _exists_', () => {
    expect(m('_exists_:metadata.publication_date')).toBe(true);
    expect(m('_exists_:metadata.creators')).toBe(true);
    expect(m('_exists_:metadata.version')).toBe(false);
    expect(m('metadata.version:*')).toBe(false);
  });

  it('matches date ranges on the bound precision, inclusive or exclusive', () => {
    expect(m('metadata.publication_date:[2021 TO 2022]')).toBe(true);
    expect(m('metadata.publication_date:[2021-06-15 TO 2021-06-15]')).toBe(true);
    expect(m('metadata.publication_date:{2021-06-15 TO *]')).toBe(false);
    expect(m('metadata.publication_date:{2021 TO 2022]')).toBe(false);
    expect(m('metadata.publication_date:[2019 TO 2021}')).toBe(false);
    expect(m('metadata.publication_date:[2019 TO 2021]')).toBe(true);
    expect(m('metadata.publication_date:[* TO 2021-05]')).toBe(false);
    expect(m('created:[2026-03-01 TO 2026-03-31]')).toBe(true);
  });

  it('compares numbers as numbers in ranges', () => {
    expect(m('versions.index:[2 TO 10]')).toBe(true);
    expect(m('versions.index:{3 TO 10]')).toBe(false);
  });

  it('keeps the values of a key holding a dot and of the nested key it names, one path for both', async () => {
    const body = { custom: { 'a.b': 'dotted', a: { b: ['nested', 'more'] }, c: 'last' } };
    const both = new Map([['custom.a.b', ['dotted', 'nested', 'more']], ['custom.c', ['last']]]);
    expect(flatten(body)).toEqual(both);
    expect(await flattenInTurns(body, async () => undefined)).toEqual(both);
    expect(matchesQuery(parseQuery('custom.a.b:dotted'), doc(body))).toBe(true);
  });

  it('reads a range field\'s own values, not those nested under it, and takes any value in an open range', () => {
    const nested = doc({ metadata: { publication_date: { start: '2021-01-01' }, dates: [{ date: '2020' }, { date: { start: '2019' } }] }, versions: { index: 'x' } });
    const n = (text: string) => matchesQuery(parseQuery(text), nested);
    expect(n('metadata.publication_date:[* TO *]')).toBe(false);
    expect(n('metadata.dates.date:[2019 TO 2019]')).toBe(false);
    expect(n('metadata.dates.date:[2020 TO 2020]')).toBe(true);
    expect(n('versions.index:[* TO *]')).toBe(true);
    expect(n('versions.index:[* TO 9]')).toBe(false);
  });

  it('matches the plain words of unparsable text', () => {
    expect(m('flood (( niger')).toBe(true);
    expect(m('flood (( drought')).toBe(false);
  });
});

describe('scoreQuery', () => {
  it('ranks a title match above a description match and is zero without terms', () => {
    const inTitle = doc({ metadata: { title: 'Glacier retreat', description: 'Ice loss.' } });
    const inText = doc({ metadata: { title: 'Ice loss', description: 'A glacier retreat study.' } });
    const q = parseQuery('glacier');
    expect(scoreQuery(q, inTitle)).toBeGreaterThan(scoreQuery(q, inText));
    expect(scoreQuery(parseQuery('_exists_:metadata'), inTitle)).toBe(0);
  });
});

describe('tokenize', () => {
  it('splits on anything but letters and digits, lowercases and drops accents', () => {
    expect(tokenize('Müller, Eva; Sentinel-1 (SAR)')).toEqual(['muller', 'eva', 'sentinel', '1', 'sar']);
  });
});

describe('edit distance', () => {
  /** The textbook table, whole, for comparison. */
  function reference(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length]![b.length]!;
  }

  it('agrees with the whole table, and stops at max + 1', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => Array.from({ length: Math.floor(next() * 12) }, () => 'abcde'[Math.floor(next() * 5)]).join('');
    for (let i = 0; i < 2000; i++) {
      const [a, b] = [word(), word()];
      const max = Math.floor(next() * 4);
      expect(editDistance(a, b, max)).toBe(Math.min(reference(a, b), max + 1));
    }
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('a'.repeat(100), 'b'.repeat(100), 2)).toBe(3);
  });

  it('expands a fuzzy term to the closest words first, with the same first letter', () => {
    expect(fuzzyExpansions('glacer', ['glaciers', 'glucose', 'placer', 'grace', 'glacier'])).toEqual(['glacier', 'glaciers', 'grace']);
  });
});

describe('flattenInTurns', () => {
  const bodies: [string, unknown][] = [
    ['a record body', { id: 'a', metadata: { title: 'T', creators: [{ name: 'A', ids: [1, 2] }, { name: 'B' }, {}], empty: [], none: null, gone: undefined }, n: 0, yes: false }],
    ['nested lists', { a: [[1, [2, { b: 3 }]], [], [[4]]], c: { d: { e: [{ f: 'x' }, { f: 'y', g: 'z' }] } } }],
    ['a value at the root', 'just text'],
    ['a list at the root', [1, 'two', { three: 3 }]],
    ['nothing', null],
    ['the largest legal metadata', { metadata: largestLegalMetadata() }],
  ];
  it.each(bodies)('gives what flatten gives, paths in the same order: %s', async (_, body) => {
    expect([...(await flattenInTurns(body, async () => undefined))]).toEqual([...flatten(body)]);
  });

  it('gives the loop back while it walks a large body, and its result is unchanged by what runs meanwhile', async () => {
    let turns = 0;
    const body = { metadata: largestLegalMetadata() };
    const flat = await flattenInTurns(body, () => {
      turns++;
      return new Promise((resolve) => setImmediate(resolve));
    });
    expect(turns).toBeGreaterThan(5);
    expect([...flat]).toEqual([...flatten(body)]);
  });
});
