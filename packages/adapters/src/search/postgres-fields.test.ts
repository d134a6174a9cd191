import { describe, expect, it } from 'vitest';
import { parseQuery } from '@krs/domain/search';
import { fieldTsquery, fieldVector, singleFieldLexeme } from './postgres-fields.ts';
import { documentWords } from './postgres-text.ts';

const ids = new Map([
  ['metadata', 1],
  ['metadata.title', 2],
  ['metadata.subjects', 3],
  ['metadata.subjects.subject', 4],
  ['metadata.creators.person_or_org.name', 12],
]);

describe('PostgreSQL field vector', () => {
  it('numbers each path\'s words at the main vector\'s positions, and marks a path holding values beside members', () => {
    const words = documentWords({ metadata: { title: 'Sea Ice', subjects: ['sea ice', { subject: 'Glacier' }] } });
    expect(fieldVector(words?.fields ?? null, ids)).toBe("'2 sea':2 '2 ice':3 '2  sea ice':3 '3' '3 sea':5 '3 ice':6 '3  sea ice':6 '4 glacier':8");
    expect(fieldVector(documentWords({ id: 'x' })?.fields ?? null, new Map([['id', 1]]))).toBe("'1 x':2");
    expect(fieldVector(documentWords({})?.fields ?? null, ids)).toBe('');
  });

  it('has no vector where positions were cut', () => {
    const many = documentWords({ metadata: { title: 'Long', subjects: ['the '.repeat(300)] } });
    expect(fieldVector(many?.fields ?? null, ids)).toBeNull();
  });
});

describe('PostgreSQL field queries', () => {
  const paths = new Map([
    ['metadata.subjects', { own: 3, below: [4] }],
    ['metadata.creators.person_or_org.name', { own: 12, below: [] }],
    ['metadata.nothing', { own: null, below: [] }],
  ]);
  const query = (q: string) => fieldTsquery(parseQuery(q), paths, new Map([['smyth', ['smith', 'smyth']]]));

  it('asks each word in the field\'s own path, or below it where the field holds no values of its own', () => {
    expect(query('metadata.subjects:sea')).toBe("('3 sea') | (('4 sea') & !'3')");
    expect(query('metadata.creators.person_or_org.name:"smith john"')).toBe("'12  smith john'");
    expect(query('metadata.creators.person_or_org.name:"jane a smith"')).toBe("'12 jane' <-> '12 a' <-> '12 smith'");
    expect(query('metadata.subjects:"sea ice"')).toBe("('3  sea ice') | (('4  sea ice') & !'3')");
    expect(query('metadata.creators.person_or_org.name:smi*')).toBe("'12 smi':*");
    expect(query('metadata.creators.person_or_org.name:smyth~')).toBe("('12 smith') | ('12 smyth')");
    expect(query('metadata.creators.person_or_org.name:(jane smith)')).toBe("('12 jane') & ('12 smith')");
    expect(query('NOT metadata.creators.person_or_org.name:jane')).toBe("!('12 jane')");
  });

  it('names the one lexeme of a word or two-word phrase of a field without paths below it, which the writes count', () => {
    const single = (q: string) => singleFieldLexeme(parseQuery(q), paths);
    expect(single('metadata.creators.person_or_org.name:smith')).toBe('12 smith');
    expect(single('metadata.creators.person_or_org.name:"Smith"')).toBe('12 smith');
    expect(single('metadata.creators.person_or_org.name:"smith john"')).toBe('12  smith john');
    expect(single('metadata.creators.person_or_org.name:"jane a smith"')).toBeNull();
    expect(single('metadata.creators.person_or_org.name:(jane smith)')).toBeNull();
    expect(single('metadata.creators.person_or_org.name:smi*')).toBeNull();
    expect(single('metadata.creators.person_or_org.name:smyth~')).toBeNull();
    expect(single('metadata.subjects:sea')).toBeNull();
    expect(single('metadata.nothing:sea')).toBeNull();
    expect(single('NOT metadata.creators.person_or_org.name:smith')).toBeNull();
  });

  it('matches nothing on a field no document holds, and leaves words-less leaves and other leaves to others', () => {
    expect(query('metadata.nothing:sea')).toBe("'0'");
    expect(query('metadata.subjects:--')).toBeNull();
    expect(query('metadata.subjects:"--"')).toBeNull();
    expect(query('metadata.subjects:sea AND glacier')).toBeNull();
    expect(query('metadata.other:sea')).toBeNull();
  });
});
