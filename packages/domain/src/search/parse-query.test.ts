import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery, parseQueryCounting, QUERY_LIMITS } from './parse-query.ts';
import type { QueryNode } from './query-ast.ts';

const t = (value: string, field: string | null = null, match: 'exact' | 'prefix' | 'fuzzy' = 'exact'): QueryNode => ({ type: 'term', field, value, match });
const and = (...children: QueryNode[]): QueryNode => ({ type: 'and', children });
const or = (...children: QueryNode[]): QueryNode => ({ type: 'or', children });
const not = (child: QueryNode): QueryNode => ({ type: 'not', child });

describe('parseQuery', () => {
  it('reads empty and blank text as no query', () => {
    expect(parseQuery('')).toEqual({ type: 'all' });
    expect(parseQuery('   ')).toEqual({ type: 'all' });
    expect(parseQuery('*')).toEqual({ type: 'all' });
  });

  it('reads a bare term and ANDs bare terms', () => {
    expect(parseQuery('flood')).toEqual(t('flood'));
    expect(parseQuery('flood risk delta')).toEqual(and(t('flood'), t('risk'), t('delta')));
  });

  it('reads quoted phrases, with and without a field', () => {
    expect(parseQuery('"sea ice"')).toEqual({ type: 'phrase', field: null, value: 'sea ice' });
    expect(parseQuery('metadata.title:"sea ice" arctic')).toEqual(and({ type: 'phrase', field: 'metadata.title', value: 'sea ice' }, t('arctic')));
  });

  it('reads a sloppy phrase as all of its words', () => {
    expect(parseQuery('"sea ice"~3')).toEqual(and(t('sea'), t('ice')));
  });

  it('reads field:value on dotted paths', () => {
    expect(parseQuery('metadata.title:flood')).toEqual(t('flood', 'metadata.title'));
    expect(parseQuery('metadata.creators.person_or_org.name:Obi')).toEqual(t('Obi', 'metadata.creators.person_or_org.name'));
    expect(parseQuery('metadata.resource_type.id:dataset')).toEqual(t('dataset', 'metadata.resource_type.id'));
    expect(parseQuery('id:abcde-12345')).toEqual(t('abcde-12345', 'id'));
    expect(parseQuery('parent.id:abcde-12345')).toEqual(t('abcde-12345', 'parent.id'));
    expect(parseQuery('access.record:restricted')).toEqual(t('restricted', 'access.record'));
  });

  it('gives a field to every term of a group', () => {
    expect(parseQuery('metadata.title:(flood drought)')).toEqual(and(t('flood', 'metadata.title'), t('drought', 'metadata.title')));
    expect(parseQuery('metadata.title:(flood OR drought) sahel')).toEqual(and(or(t('flood', 'metadata.title'), t('drought', 'metadata.title')), t('sahel')));
  });

  it('reads AND, OR, NOT and their symbols', () => {
    expect(parseQuery('a AND b')).toEqual(and(t('a'), t('b')));
    expect(parseQuery('a OR b')).toEqual(or(t('a'), t('b')));
    expect(parseQuery('a && b || c')).toEqual(or(and(t('a'), t('b')), t('c')));
    expect(parseQuery('NOT a')).toEqual(not(t('a')));
    expect(parseQuery('a NOT b')).toEqual(and(t('a'), not(t('b'))));
    expect(parseQuery('a AND NOT b')).toEqual(and(t('a'), not(t('b'))));
    expect(parseQuery('a OR NOT b')).toEqual(or(t('a'), not(t('b'))));
    expect(parseQuery('!a b')).toEqual(and(not(t('a')), t('b')));
  });

  it('binds NOT tighter than AND and AND tighter than OR', () => {
    expect(parseQuery('a AND b OR c')).toEqual(or(and(t('a'), t('b')), t('c')));
    expect(parseQuery('a OR b AND c')).toEqual(or(t('a'), and(t('b'), t('c'))));
    expect(parseQuery('a b OR c')).toEqual(or(and(t('a'), t('b')), t('c')));
    expect(parseQuery('NOT a OR b')).toEqual(or(not(t('a')), t('b')));
    expect(parseQuery('a OR b NOT c OR d')).toEqual(or(t('a'), and(t('b'), not(t('c'))), t('d')));
  });

  it('lets parentheses override precedence', () => {
    expect(parseQuery('(a OR b) AND c')).toEqual(and(or(t('a'), t('b')), t('c')));
    expect(parseQuery('a AND (b OR c)')).toEqual(and(t('a'), or(t('b'), t('c'))));
    expect(parseQuery('NOT (a OR b) c')).toEqual(and(not(or(t('a'), t('b'))), t('c')));
    expect(parseQuery('((a))')).toEqual(t('a'));
  });

  it('reads + and - prefixes, on terms and on groups', () => {
    expect(parseQuery('+a -b c')).toEqual(and(t('a'), not(t('b')), t('c')));
    expect(parseQuery('flood -metadata.title:drought')).toEqual(and(t('flood'), not(t('drought', 'metadata.title'))));
    expect(parseQuery('c -(a b)')).toEqual(and(t('c'), not(and(t('a'), t('b')))));
    expect(parseQuery('+(a OR b) c')).toEqual(and(or(t('a'), t('b')), t('c')));
    expect(parseQuery('x -metadata.title:(a b)')).toEqual(and(t('x'), not(and(t('a', 'metadata.title'), t('b', 'metadata.title')))));
  });

  it('reads prefixes and fuzzy terms', () => {
    expect(parseQuery('defor*')).toEqual(t('defor', null, 'prefix'));
    expect(parseQuery('metadata.title:glac*')).toEqual(t('glac', 'metadata.title', 'prefix'));
    expect(parseQuery('glacier~')).toEqual(t('glacier', null, 'fuzzy'));
    expect(parseQuery('glacier~2 alps')).toEqual(and(t('glacier', null, 'fuzzy'), t('alps')));
    expect(parseQuery('glacier~0.8')).toEqual(t('glacier', null, 'fuzzy'));
  });

  it('reads _exists_ and field:*', () => {
    expect(parseQuery('_exists_:metadata.version')).toEqual({ type: 'exists', field: 'metadata.version' });
    expect(parseQuery('metadata.version:*')).toEqual({ type: 'exists', field: 'metadata.version' });
    expect(parseQuery('-_exists_:metadata.version')).toEqual(not({ type: 'exists', field: 'metadata.version' }));
  });

  it('reads inclusive, exclusive, mixed and open ranges', () => {
    const range = (min: string | null, max: string | null, includeMin: boolean, includeMax: boolean): QueryNode => ({
      type: 'range',
      field: 'metadata.publication_date',
      min,
      max,
      includeMin,
      includeMax,
    });
    expect(parseQuery('metadata.publication_date:[2020-01-01 TO 2021-12-31]')).toEqual(range('2020-01-01', '2021-12-31', true, true));
    expect(parseQuery('metadata.publication_date:{2020 TO 2022}')).toEqual(range('2020', '2022', false, false));
    expect(parseQuery('metadata.publication_date:[2020 TO 2022}')).toEqual(range('2020', '2022', true, false));
    expect(parseQuery('metadata.publication_date:[2020 TO *]')).toEqual(range('2020', null, true, true));
    expect(parseQuery('metadata.publication_date:[* TO 2020-06]')).toEqual(range(null, '2020-06', true, true));
  });

  it('unescapes escaped characters', () => {
    expect(parseQuery('a\\:b')).toEqual(t('a:b'));
  });

  it('falls back to the words of text it cannot parse, never throwing', () => {
    expect(parseQuery('a:b:c ((')).toEqual(and(t('a'), t('b'), t('c')));
    expect(parseQuery('flood AND (')).toEqual(t('flood'));
    expect(parseQuery('"unclosed phrase')).toEqual(and(t('unclosed'), t('phrase')));
    expect(parseQuery('created:2020-01-01T00:00:00Z')).toEqual(and(t('created'), t('2020-01-01T00'), t('00'), t('00Z')));
    expect(parseQuery(')(][')).toEqual({ type: 'all' });
    for (const q of ['[', 'a:', ':', '"', 'OR', 'AND AND', '~', '^', '{a TO', '\\']) expect(() => parseQuery(q)).not.toThrow();
  });

  it('reads a term or phrase without a word as matching everything', () => {
    expect(parseQuery('**')).toEqual({ type: 'all' });
    expect(parseQuery('flood ** "!?"')).toEqual(t('flood'));
    expect(parseQuery('flood OR "!?"')).toEqual({ type: 'all' });
    expect(parseQuery('flood -**')).toEqual(and(t('flood'), not({ type: 'all' })));
  });

  it('reads a boost and drops it', () => {
    expect(parseQuery('flood^2 risk')).toEqual(and(t('flood'), t('risk')));
  });
});

/** Work per character of text: the lexer reads each character once, the parser each token once. */
const STEPS_PER_CHAR = 4;
const stepsOf = (q: string) => parseQueryCounting(q).stats.steps;

describe('parseQuery on hostile text', () => {
  it('answers twenty unclosed groups with their words, in work linear in the length', () => {
    const q = '(a '.repeat(20);
    expect(parseQuery(q)).toEqual(t('a'));
    expect(stepsOf(q)).toBeLessThanOrEqual(STEPS_PER_CHAR * q.length);
    // Twice the text, at most twice the work: no backtracking.
    const longer = '(a '.repeat(40);
    expect(stepsOf(longer)).toBeLessThanOrEqual(2 * stepsOf(q) + STEPS_PER_CHAR);
  });

  it('keeps nesting up to its bound and falls back to the words past it', () => {
    const nest = (levels: number) => {
      let q = 'a';
      for (let i = 0; i < levels; i++) q = `(${q} ${i % 2 === 0 ? 'OR' : 'AND'} b${i})`;
      return q;
    };
    // The outermost group is `(... AND b7)`, holding `(... OR b6)`: the structure is kept.
    const kept = parseQuery(nest(QUERY_LIMITS.depth));
    expect(kept.type === 'and' && kept.children[0]?.type === 'or').toBe(true);
    const deep = parseQuery(nest(20));
    expect(deep.type).toBe('and');
    if (deep.type === 'and') expect(deep.children.every((c) => c.type === 'term' && c.match === 'exact' && c.field === null)).toBe(true);
    expect(stepsOf(nest(20))).toBeLessThanOrEqual(STEPS_PER_CHAR * nest(20).length);
  });

  it('bounds the terms of a query and of its fallback', () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${i}~`).join(' ');
    const node = parseQuery(many);
    expect(node.type).toBe('and');
    if (node.type === 'and') {
      expect(node.children).toHaveLength(QUERY_LIMITS.terms);
      expect(node.children.every((c) => c.type === 'term' && c.match === 'exact')).toBe(true);
    }
    const fits = Array.from({ length: QUERY_LIMITS.terms }, (_, i) => `w${i}~`).join(' ');
    const kept = parseQuery(fits);
    expect(kept.type === 'and' && kept.children.every((c) => c.type === 'term' && c.match === 'fuzzy')).toBe(true);
  });

  it('reads only the first characters of text over the length bound', () => {
    const q = 'flood '.repeat(10_000) + 'drought';
    expect(parseQuery(q)).toEqual(t('flood'));
    expect(stepsOf(q)).toBeLessThanOrEqual(STEPS_PER_CHAR * QUERY_LIMITS.length);
  });

  it('stays linear on long runs of every special character', () => {
    for (const c of ['(', ')', '"', '[', '{', '\\', '~', '^', ':', '-', '!', '*', 'NOT ', 'a:', '"a', '(a OR ', 'a AND ', '[a TO ']) {
      const q = c.repeat(Math.floor(QUERY_LIMITS.length / c.length));
      expect(() => parseQuery(q)).not.toThrow();
      expect(stepsOf(q)).toBeLessThanOrEqual(STEPS_PER_CHAR * q.length);
    }
  });

  it('never throws and stays linear on random text (seeded)', () => {
    const alphabet = fc.constantFrom(...'ab ()[]{}"\\:~^*+-!&|_.0129é'.split(''), 'AND', 'OR', 'NOT', 'TO', ' metadata.title:', '_exists_:');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 300 }), (parts) => {
        const q = parts.join('');
        const { node, stats } = parseQueryCounting(q);
        expect(node).toBeTypeOf('object');
        expect(stats.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * Math.min(q.length, QUERY_LIMITS.length) + 1);
      }),
      { seed: 20261123, numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2000 }), (q) => {
        expect(parseQueryCounting(q).stats.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * Math.min(q.length, QUERY_LIMITS.length) + 1);
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
