import { describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type { BBox, SearchDocument, SearchIndex, SearchRequest, SearchResult } from '@krs/domain';
import { geometryShapes, matchesQuery, parseQuery, runSearch, scoreQuery, shapeBounds } from '@krs/domain/search';
import { createPgDb, createPostgresSearchIndex, createPostgresSearchSchema } from '../src/index.ts';
import { searchDocument } from './contracts/builders.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { freshDatabase, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

searchIndexContract('postgres', async () => {
  const handle = createPgDb(await freshDatabase());
  await createPostgresSearchSchema(handle.db);
  return Object.assign(createPostgresSearchIndex(handle.db), { close: () => void handle.close() });
}, { stamps: 'in-store' });

const doc = (id: string, metadata: { title: string } & Record<string, unknown>): SearchDocument => searchDocument(id, metadata.title, { body: { id, metadata } });

const find = (q: string): SearchRequest => ({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 10, aggregations: [] });

const types = [null, { id: 'dataset', label: 'Dataset' }, { id: 'dataset', label: 'Data set' }, { id: 'software', label: 'Software' }];

/** What decides whether a public listing shows a document and where, drawn from `next`: kind, visibility, facets, creation. */
const listingFields = (next: (n: number) => number, restricted: boolean) => ({
  kind: next(5) === 0 ? ('package' as const) : ('resource' as const),
  state: next(8) === 0 ? ('draft' as const) : ('published' as const),
  isLatest: next(7) !== 0,
  isPublic: !restricted,
  accessStatus: restricted ? ('restricted' as const) : ('open' as const),
  resourceType: types[next(types.length)] ?? null,
  created: `2026-01-${String(1 + next(5)).padStart(2, '0')}T00:00:00.000Z`,
});

/** A result without the resource types' labels (the least over their matches, which SQL and runSearch may take in other collations). */
const withoutLabels = (result: SearchResult) => ({
  ...result,
  aggregations: Object.fromEntries(Object.entries(result.aggregations).map(([facet, buckets]) => [facet, buckets.map((b) => ({ key: b.key, docCount: b.docCount }))])),
});

const LISTING_FILTERS: SearchRequest['filter'][] = [
  { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
  { kinds: ['resource'], published: true, latestOnly: true, viewerId: null, facets: { resource_type: ['dataset'] } },
  { kinds: ['resource', 'package'], viewerId: 'someone' },
];

/**
 * Writes `count` documents (`make(i, 0)`), writes `rewrite` of them again (every `step`th), removes
 * `remove`, then writes `oneAtATime` again one a write (every `step`th, `make(i, 1)`): the documents
 * the index then holds, by key, for the evaluator to answer over.
 */
async function writeThroughChanges(
  index: SearchIndex,
  make: (i: number, round: number) => SearchDocument,
  plan: { count: number; rewrite: [number, number]; remove: string[]; oneAtATime: [number, number] },
): Promise<Map<string, SearchDocument>> {
  const held = new Map<string, SearchDocument>();
  const write = async (docs: SearchDocument[]) => {
    await index.upsert(docs);
    for (const d of docs) held.set(d.key, d);
  };
  await write(Array.from({ length: plan.count }, (_, i) => make(i, 0)));
  await write(Array.from({ length: plan.rewrite[0] }, (_, i) => make(i * plan.rewrite[1], 0)));
  await index.remove(plan.remove);
  for (const key of plan.remove) held.delete(key);
  for (let i = 0; i < plan.oneAtATime[0]; i++) await write([make(i * plan.oneAtATime[1], 1)]);
  return held;
}

/** Each query under each of LISTING_FILTERS answered as the domain's runSearch answers it over `held`: total, facets, page. */
async function expectEvaluatorAnswers(index: SearchIndex, held: ReadonlyMap<string, SearchDocument>, queries: readonly string[]): Promise<void> {
  for (const q of queries) {
    for (const filter of LISTING_FILTERS) {
      const request: SearchRequest = { filter, q, bbox: null, sort: 'newest', page: 1, size: 400, aggregations: ['resource_type', 'access_status', 'record_type'] };
      const query = parseQuery(q);
      const expected = runSearch(held.values(), request, (d) => matchesQuery(query, d), null);
      expect(withoutLabels(await index.search(request)), `${q} ${JSON.stringify(filter)}`).toEqual(withoutLabels(expected));
    }
  }
}

/** A public listing of `q`, with every facet aggregated. */
const listingRequest = (q: string): SearchRequest => ({
  ...find(q),
  filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
  aggregations: ['resource_type', 'access_status', 'record_type'],
});

/** What a listing is asked with: pages, sorts, kinds, facets, and signed-in readers ('o' owns every restricted document, 'p' reads some). */
const LISTING_VARIANTS: Partial<SearchRequest>[] = [
  {},
  { page: 2 },
  { page: 3, size: 7 },
  { size: 400 },
  { sort: 'oldest' },
  { sort: 'updated-desc', page: 2 },
  { sort: 'version' },
  { aggregations: [] },
  { filter: { kinds: ['package'], published: true, latestOnly: true, viewerId: null } },
  { filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null, facets: { resource_type: ['dataset'], access_status: ['open'] } } },
  { filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: 'o' } },
  { filter: { kinds: ['package'], published: true, latestOnly: true, viewerId: 'o', facets: { access_status: ['restricted'] } } },
  { filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: 'p' }, sort: 'oldest', page: 2, size: 20 },
  { filter: { kinds: ['resource'], published: true, latestOnly: true, viewerId: 'p', facets: { access_status: ['restricted'] } } },
  { filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: 'stranger' } },
];

/**
 * Each request answered as it is when asked with the ids of every document held (`ids`), a filter
 * the listings' own paths do not take, so every match is read: the sum of their totals.
 */
async function expectEveryMatchAnswers(index: SearchIndex, ids: readonly string[], requests: readonly SearchRequest[]): Promise<number> {
  let found = 0;
  for (const request of requests) {
    const everyMatch = await index.search({ ...request, filter: { ...request.filter, ids } });
    expect(await index.search(request), `${request.q} ${JSON.stringify(request.bbox)} ${JSON.stringify({ ...request, q: undefined, bbox: undefined })}`).toEqual(everyMatch);
    found += everyMatch.total;
  }
  return found;
}

/** A new database with the index's schema, and the index over it. */
async function open() {
  const handle = createPgDb(await freshDatabase());
  await createPostgresSearchSchema(handle.db);
  return { handle, index: createPostgresSearchIndex(handle.db) };
}

describe("search index (PostgreSQL): the planner's statistics", () => {
  it('are gathered on demand, so the planner knows the rows a bulk projection wrote', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert(Array.from({ length: 120 }, (_, i) => doc(`d${i}`, { title: `Record ${i}` })));
      // What the planner takes the table to hold: -1 until it is first analyzed.
      const planned = async () => Number((await sql<{ n: number }>`select reltuples as n from pg_class where relname = 'search_doc'`.execute(handle.db)).rows[0]?.n);
      expect(await planned()).toBe(-1);
      await index.analyze();
      expect(await planned()).toBe(120);
    } finally {
      await handle.close();
    }
  });
});

describe('search index (PostgreSQL): text decided in SQL', () => {
  it('never lets a phrase span two values', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('apart', { title: 'Apart', subjects: ['sea', 'ice'] }), doc('together', { title: 'Together', subjects: ['sea ice'] })]);
      expect((await index.search(find('"sea ice"'))).hits.map((h) => h.id)).toEqual(['together']);
    } finally {
      await handle.close();
    }
  });

  it('finds a phrase in the title or anywhere else, and excludes both under NOT', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([
        doc('title', { title: 'Sea ice extent' }),
        // The title holds both words, but the phrase only in the description.
        doc('body', { title: 'Ice over the sea', description: 'Arctic sea ice' }),
        doc('neither', { title: 'Ice and sea', description: 'ice, then sea' }),
        doc('mixed', { title: 'Sea ice', subjects: ['glacier'] }),
      ]);
      const ids = async (q: string) => (await index.search(find(q))).hits.map((h) => h.id).sort();
      expect(await ids('"sea ice"')).toEqual(['body', 'mixed', 'title']);
      expect(await ids('"sea ice" AND glacier')).toEqual(['mixed']);
      expect(await ids('"sea ice" AND _exists_:metadata.description')).toEqual(['body']);
      expect(await ids('ice AND NOT "sea ice"')).toEqual(['neither']);
      // The title holds the phrase and not the word: the vector decides.
      expect(await ids('"sea ice" AND NOT glacier')).toEqual(['body', 'title']);
      expect(await ids('"ice over" OR "arctic sea"')).toEqual(['body']);
    } finally {
      await handle.close();
    }
  });

  it('finds documents past a tsvector\'s limits as the evaluator does', { timeout: 30_000 }, async () => {
    const { handle, index } = await open();
    try {
      // Past 16,383 positions: the phrase is at the end, where no position is kept.
      const long = doc('long', { title: 'Long report', description: `${'filler '.repeat(17_000)}sea ice`, publication_date: '2021-03-04' });
      // Past a tsvector's size: no vector at all.
      const huge = doc('huge', { title: 'Huge glacier inventory', description: Array.from({ length: 100_000 }, (_, i) => `distinctword${i}`).join(' ') });
      await index.upsert([long, huge, doc('small', { title: 'Glacier', description: 'sea ice' })]);
      expect((await index.search(find('"sea ice"'))).hits.map((h) => h.id).sort()).toEqual(['long', 'small']);
      expect((await index.search(find('glacier'))).hits.map((h) => h.id).sort()).toEqual(['huge', 'small']);
      expect((await index.search(find('metadata.title:inventory'))).hits.map((h) => h.id)).toEqual(['huge']);
      expect((await index.search(find('distinctword99999'))).total).toBe(1);
      // Positions cut, the date's bucket kept: a word and a range together decided in SQL.
      expect((await index.search(find('report AND metadata.publication_date:[2021-03 TO 2021-03]'))).hits.map((h) => h.id)).toEqual(['long']);
      expect((await index.search(find('filler AND metadata.publication_date:[2021-03-05 TO *]'))).total).toBe(0);
      // Neither has a field vector: a field query that may match them is the evaluator's.
      expect((await index.search(find('metadata.description:"sea ice"'))).hits.map((h) => h.id).sort()).toEqual(['long', 'small']);
      expect((await index.search(find('metadata.description:distinctword5 OR metadata.description:ice'))).hits.map((h) => h.id).sort()).toEqual(['huge', 'long', 'small']);
      // Ranked as the evaluator ranks them, the large ones scored in turns of their own.
      for (const q of ['glacier OR ice', 'distinct* OR sea~', 'filler~ AND NOT glacier', '(sea* OR huge) AND _exists_:metadata.description']) {
        const query = parseQuery(q);
        const expected = runSearch([long, huge, doc('small', { title: 'Glacier', description: 'sea ice' })], find(q), (d) => matchesQuery(query, d), (d) => scoreQuery(query, d));
        expect((await index.search(find(q))).hits.map((h) => h.id), q).toEqual(expected.hits.map((h) => h.id));
      }
    } finally {
      await handle.close();
    }
  });

  it('answers words no tsquery can hold (over 2,047 bytes) as the evaluator does', async () => {
    const { handle, index } = await open();
    try {
      const long = '語'.repeat(800);
      await index.upsert([doc('long', { title: 'Long word', description: long }), doc('short', { title: 'Short word' })]);
      for (const q of [long, `"${long} x"`, `${long}*`, `${long}~`, `metadata.title:${long}`, `_exists_:${'é'.repeat(1000)}`]) {
        await expect(index.search(find(q)), q.slice(0, 12)).resolves.toBeDefined();
      }
      expect((await index.search(find(long))).hits.map((h) => h.id)).toEqual(['long']);
      expect((await index.search(find(`word ${long.slice(0, 10)}*`))).hits.map((h) => h.id)).toEqual(['long']);
    } finally {
      await handle.close();
    }
  });

  it('ranks title words above the same words in other fields, and more of them higher', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([
        doc('body', { title: 'Survey', description: 'A glacier survey.' }),
        doc('title', { title: 'Glacier survey', description: 'A survey.' }),
        doc('both', { title: 'Glacier survey', description: 'Glacier after glacier.' }),
      ]);
      expect((await index.search(find('glacier'))).hits.map((h) => h.id)).toEqual(['both', 'title', 'body']);
    } finally {
      await handle.close();
    }
  });

  it('ranks a two-word phrase by where the phrase is, not where its words are apart', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([
        // Both words in the title, the phrase only in the description.
        { ...doc('apart', { title: 'Ice over the sea', description: 'sea ice' }), created: '2026-01-02T00:00:00.000Z' },
        { ...doc('phrase', { title: 'Sea ice over water', description: 'survey' }), created: '2026-01-01T00:00:00.000Z' },
      ]);
      expect((await index.search(find('"sea ice"'))).hits.map((h) => h.id)).toEqual(['phrase', 'apart']);
    } finally {
      await handle.close();
    }
  });

  it('damps a score by the document\'s words, not its word pairs', async () => {
    const { handle, index } = await open();
    try {
      const distinct = Array.from({ length: 60 }, (_, k) => `w${k}`);
      await index.upsert([
        // The same words, in one value (59 pairs) and in values of their own (none): the same score, so the newer first.
        { ...doc('apart', { title: 'Glacier', subjects: distinct }), created: '2026-01-01T00:00:00.000Z' },
        { ...doc('paired', { title: 'Glacier', description: distinct.join(' ') }), created: '2026-01-02T00:00:00.000Z' },
      ]);
      expect((await index.search(find('glacier'))).hits.map((h) => h.id)).toEqual(['paired', 'apart']);
    } finally {
      await handle.close();
    }
  });

  it('gives every page of a ranked query the order of scoring every match, ties included', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      // Seeded: titles and descriptions of a few words each, so words fall in titles, bodies or
      // both, lengths differ, and many matches tie (identical titles, shared creation dates).
      let seed = 7;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['glacier', 'glaciers', 'glacial', 'ice', 'sea', 'drought', 'flood', 'map', 'survey', 'river', 'delta', 'soil'];
      const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const docs = Array.from({ length: 400 }, (_, i) => {
        const id = `d${String(i).padStart(3, '0')}`;
        const created = `2026-01-${String(1 + next(5)).padStart(2, '0')}T00:00:00.000Z`;
        return { ...doc(id, { title: i % 7 === 0 ? 'Glacier survey' : words(1 + next(4)), description: words(next(30)) }), created };
      });
      await index.upsert(docs);
      for (const q of ['glacier', 'glacier survey', 'glac*', '"sea ice"', 'metadata.title:glacier', 'metadata.title:glac*', 'ice OR soil', 'glacier -flood']) {
        const all = await index.search({ ...find(q), size: 400 });
        for (const [page, size] of [[1, 10], [2, 10], [5, 7], [30, 10]] as const) {
          const hits = (await index.search({ ...find(q), page, size })).hits.map((h) => h.id);
          expect(hits, `${q} page ${page}`).toEqual(all.hits.slice((page - 1) * size, page * size).map((h) => h.id));
        }
      }
    } finally {
      await handle.close();
    }
  });

  it('counts and ranks a public listing of one word, or of a prefix or fuzzy word one word stands for, as every match does, through writes that change what is public', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 11;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['glacier', 'ice', 'sea', 'drought', 'survey', 'river'];
      const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const make = (i: number, round: number): SearchDocument => {
        const id = `d${String(i).padStart(3, '0')}`;
        // Every title holds a word in some documents (many title matches) and in few in others.
        const title = i % 3 === 0 ? `Glacier ${words(next(3))}` : words(1 + next(3));
        const restricted = next(6) === 0;
        return {
          ...doc(id, { title, description: words(next(20)), ...(next(4) === 0 ? {} : { subjects: [words(2)] }) }),
          key: `${round}:${id}`,
          ...listingFields(next, restricted),
        };
      };
      await index.upsert(Array.from({ length: 300 }, (_, i) => make(i, 0)));
      // 'delta' in the titles of a few long documents only, whose length damps their scores below
      // those of shorter documents holding it elsewhere.
      const long = Array.from({ length: 5000 }, (_, k) => `w${k}`).join(' ');
      await index.upsert([
        ...Array.from({ length: 12 }, (_, i) => ({ ...doc(`long${i}`, { title: 'Delta survey', description: long }), created: `2026-02-0${1 + (i % 3)}T00:00:00.000Z` })),
        ...Array.from({ length: 30 }, (_, i) => doc(`short${i}`, { title: words(2), description: `delta delta delta delta delta ${words(next(8))}` })),
      ]);
      // Rewritten (visibility, words, facets, kind changed), removed, and written in batches with repeats.
      await index.upsert(Array.from({ length: 120 }, (_, i) => make(i * 2, 0)));
      await index.remove(Array.from({ length: 40 }, (_, i) => `0:d${String(i * 7).padStart(3, '0')}`));
      await index.upsert([...Array.from({ length: 50 }, (_, i) => make(i + 5, 1)), ...Array.from({ length: 30 }, (_, i) => make(i + 5, 1))]);
      // One document a write, enough writes for a word's groups to be folded.
      for (let i = 0; i < 30; i++) await index.upsert([make(i * 3, 2)]);
      const ids = (await sql<{ id: string }>`select distinct id from search_doc`.execute(handle.db)).rows.map((r) => r.id);
      const listing = (q: string, over: Partial<SearchRequest>): SearchRequest => ({
        ...find(q),
        filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
        aggregations: ['resource_type', 'access_status', 'record_type'],
        ...over,
      });
      for (const q of ['glacier', 'ice', 'river', 'delta', 'metadata.title:delta', 'metadata.title:glacier', 'metadata.title:river', '"survey"', '_exists_:metadata.subjects', 'absent',
        '"sea ice"', '"glacier glacier"', '"delta survey"', 'metadata.title:"delta survey"', 'metadata.title:"glacier ice"', '"ice absent"',
        // Prefixes and fuzzy words one word stands for (answered as that word), and some several words do.
        'glac*', 'riv*', 'delt*', 'dr*', 's*', 'absen*', 'glacer~', 'rivr~', 'survy~', 'se~', 'w12~']) {
        for (const over of [{}, { page: 2 }, { page: 4, size: 7 }, { size: 60 }, { sort: 'newest' as const }, { filter: { kinds: ['package' as const], published: true, latestOnly: true, viewerId: null } }]) {
          const request = listing(q, over);
          // The same documents asked by id: a filter the kept counts do not answer, so every match is visited.
          const everyMatch = await index.search({ ...request, filter: { ...request.filter, ids } });
          expect(await index.search(request), `${q} ${JSON.stringify(over)}`).toEqual(everyMatch);
          const faceted = { ...request, filter: { ...request.filter, facets: { resource_type: ['dataset'] } } };
          expect(await index.search(faceted), `${q} ${JSON.stringify(over)} faceted`).toEqual(await index.search({ ...faceted, filter: { ...faceted.filter, ids } }));
        }
      }
      expect((await index.search(listing('glacier', {}))).total).toBeGreaterThan(0);
      await index.clear();
      expect(await index.search(listing('glacier', {}))).toEqual({ total: 0, hits: [], aggregations: { resource_type: [], access_status: [], record_type: [] } });
    } finally {
      await handle.close();
    }
  });

  it('ranks a listing of one word held at several places outside the titles as every match does, a document with more repeated words than its row keeps included, through writes', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      // Every document long (the shortest sets the bound of a word held once), so the repeated
      // words' kept scores decide the page; 'big' holds 'kumar' six times among too many repeated
      // words for its row, and scores above every other document outside the titles.
      const filler = Array.from({ length: 100 }, (_, k) => `f${k}`).join(' ');
      const repeated = Array.from({ length: 80 }, (_, k) => `r${k} r${k}`).join(' ');
      const at = (i: number) => `2026-01-${String(1 + (i % 9)).padStart(2, '0')}T00:00:00.000Z`;
      const write = (id: string, title: string, description: string, i: number, over: Partial<SearchDocument> = {}) =>
        ({ ...doc(id, { title, description, publication_date: `202${i % 4}-0${1 + (i % 9)}-01`, creators: [{ person_or_org: { name: i % 2 === 0 ? 'Kumar, Ada' : 'Obi, Linh' } }] }), created: at(i), ...over });
      const docs = [
        ...Array.from({ length: 12 }, (_, i) => write(`rep${i}`, 'Survey', `${filler} kumar kumar`, i)),
        ...Array.from({ length: 20 }, (_, i) => write(`one${i}`, 'Survey', `${filler} kumar`, i)),
        ...Array.from({ length: 2 }, (_, i) => write(`titled${i}`, 'Kumar survey', filler, i)),
        write('big', 'Survey', `kumar kumar kumar kumar kumar kumar ${repeated}`, 3),
        write('own', 'Survey', `${filler} kumar kumar kumar`, 5, { isPublic: false, accessStatus: 'restricted', readers: ['o'] }),
        write('package', 'Survey', `${filler} kumar kumar`, 7, { kind: 'package' }),
      ];
      await index.upsert(docs);
      const ids = docs.map((d) => d.id);
      const queries = ['kumar', 'metadata.description:kumar', 'metadata.creators.person_or_org.name:kumar', '"kumar kumar"', 'kumar AND metadata.publication_date:[2021 TO *]', 'kumar AND metadata.publication_date:[2021-03 TO *]'];
      const check = async () => {
        for (const q of queries) await expectEveryMatchAnswers(index, ids, LISTING_VARIANTS.map((over) => ({ ...listingRequest(q), ...over })));
      };
      await check();
      expect((await index.search(listingRequest('kumar'))).hits.map((h) => h.id).slice(0, 3)).toEqual(['titled0', 'titled1', 'big']);
      // Rewritten without the word, back with it at one place, removed.
      await index.upsert([write('big', 'Survey', repeated, 3), write('rep3', 'Survey', `${filler} kumar`, 3)]);
      await index.remove(['published:rep5', 'published:titled1']);
      await check();
      await index.upsert([write('big', 'Survey', `kumar kumar kumar kumar kumar kumar ${repeated}`, 3)]);
      await check();
      // A short document holding it once, above most repeats: only every match's scores place it.
      await index.upsert([write('short', 'Survey', 'kumar', 1)]);
      ids.push('short');
      await check();
      expect((await index.search(listingRequest('metadata.description:kumar'))).hits[0]?.id).toBe('big');
    } finally {
      await handle.close();
    }
  });

  it('ranks a field query from the kept scores only as far as it read them: repeated words outside the field past the entries read', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      const creators = (name: string) => [{ person_or_org: { name } }];
      const long = Array.from({ length: 5400 }, (_, k) => `w${k}`).join(' ');
      // 'kumar' three times in short descriptions by others (the best repeated scores, outside the
      // field), twice in a few by Kumar (below them, above the titles of long documents by Kumar).
      const docs = [
        ...Array.from({ length: 100 }, (_, i) => doc(`other${i}`, { title: 'Survey', description: 'kumar kumar kumar', creators: creators('Obi, Linh') })),
        ...Array.from({ length: 4 }, (_, i) => doc(`by${i}`, { title: 'Survey', description: 'kumar', creators: creators('Kumar, Ada') })),
        ...Array.from({ length: 12 }, (_, i) => doc(`long${i}`, { title: 'Kumar survey', description: long, creators: creators('Kumar, Ada') })),
      ];
      await index.upsert(docs);
      const request = listingRequest('metadata.creators.person_or_org.name:kumar');
      const expected = await index.search({ ...request, filter: { ...request.filter, ids: docs.map((d) => d.id) } });
      expect(expected.hits.slice(0, 4).map((h) => h.id).sort()).toEqual(['by0', 'by1', 'by2', 'by3']);
      expect(await index.search(request)).toEqual(expected);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before the repeated words\' scores were kept, so every record is projected again with them', async () => {
    const { handle, index } = await open();
    try {
      const filler = Array.from({ length: 100 }, (_, k) => `f${k}`).join(' ');
      const docs = Array.from({ length: 12 }, (_, i) => doc(`rep${i}`, { title: 'Survey', description: `${filler} kumar kumar` }));
      await index.upsert(docs);
      await sql`update search_meta set layout = 18`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(listingRequest('kumar'))).total).toBe(0);
      await index.upsert(docs);
      expect((await sql<{ n: string }>`select count(*) as n from search_repeat where lexeme = 'kumar'`.execute(handle.db)).rows[0]?.n).toBe('12');
      expect((await index.search(listingRequest('kumar'))).total).toBe(12);
    } finally {
      await handle.close();
    }
  });

  it('counts and ranks a signed-in reader\'s listing of one word or phrase as every match does: their own restricted records added once, through writes', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 23;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['glacier', 'ice', 'sea', 'river', 'survey'];
      const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const owners = ['ann', 'bob', 'cy'];
      const make = (i: number, round: number): SearchDocument => {
        const id = `r${String(i).padStart(3, '0')}`;
        const title = i % 4 === 0 ? `Glacier ${words(next(3))}` : words(1 + next(3));
        const owner = owners[next(owners.length)] as string;
        // Public documents their owner (and those they are shared with) may read too: counted once.
        return {
          ...doc(id, { title, description: words(next(15)), ...(next(3) === 0 ? {} : { subjects: [words(2)] }) }),
          key: `${round}:${id}`,
          ownerId: owner,
          readers: next(4) === 0 ? [owner, 'dee'] : [owner],
          ...listingFields(next, next(3) === 0),
        };
      };
      // Rewritten (visibility, readers, words, facets changed), removed, and written one at a time.
      const held = await writeThroughChanges(index, make, {
        count: 300,
        rewrite: [100, 3],
        remove: Array.from({ length: 30 }, (_, i) => `0:r${String(i * 9).padStart(3, '0')}`),
        oneAtATime: [20, 7],
      });
      const ids = [...new Set([...held.values()].map((d) => d.id))];
      const listing = (q: string, viewerId: string, over: Partial<SearchRequest>): SearchRequest => ({
        ...find(q),
        filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId },
        aggregations: ['resource_type', 'access_status', 'record_type'],
        ...over,
      });
      for (const q of ['glacier', 'ice', 'metadata.title:glacier', '"sea ice"', 'metadata.title:"glacier ice"', '_exists_:metadata.subjects', 'absent', 'glac*', 'riv*', 'glaceir~']) {
        for (const viewerId of ['ann', 'dee', 'zed']) {
          for (const over of [{}, { page: 2 }, { page: 3, size: 7 }, { size: 60 }, { sort: 'newest' as const }, { filter: { kinds: ['package' as const], published: true, latestOnly: true, viewerId } }]) {
            const request = listing(q, viewerId, over);
            // The same documents asked by id: a filter the kept counts do not answer, so every match is visited.
            const everyMatch = await index.search({ ...request, filter: { ...request.filter, ids } });
            expect(await index.search(request), `${q} ${viewerId} ${JSON.stringify(over)}`).toEqual(everyMatch);
            const faceted = { ...request, filter: { ...request.filter, facets: { access_status: ['restricted'], resource_type: ['dataset'] } } };
            expect(await index.search(faceted), `${q} ${viewerId} ${JSON.stringify(over)} faceted`).toEqual(await index.search({ ...faceted, filter: { ...faceted.filter, ids } }));
          }
        }
      }
      // The reader's own restricted records are among the best matches (the second page's) and in the counts.
      const restricted = new Set([...held.values()].filter((d) => !d.isPublic && d.readers.includes('ann')).map((d) => d.id));
      const ann = await index.search(listing('glacier', 'ann', { page: 2 }));
      expect(ann.hits.some((h) => restricted.has(h.id))).toBe(true);
      expect(ann.total).toBeGreaterThan((await index.search(listing('glacier', 'zed', {}))).total);
    } finally {
      await handle.close();
    }
  });

  it('counts and ranks a listing of a prefix or fuzzy word several words stand for as every match does, anonymous or signed in, through writes', { timeout: 120_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 41;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      // Words a prefix or a fuzzy word stands for several of, mostly apart and some met in one
      // document (visiting those few rather than every match pays only then).
      const several = ['glacier', 'glaciers', 'glacial', 'glacer', 'river', 'rivers', 'riven'];
      const others = ['ice', 'sea', 'survey', 'delta', 'soil'];
      const words = (n: number) => Array.from({ length: n }, () => (next(8) === 0 ? several[next(several.length)] : others[next(others.length)])).join(' ');
      const owners = ['ann', 'bob'];
      const make = (i: number, round: number): SearchDocument => {
        const id = `g${String(i).padStart(3, '0')}`;
        // Identical short titles tie in score far past a page's end; others hold several of the
        // words; and a word of its own in a few (`r*` then stands for more words than are visited
        // one by one).
        const title = i % 5 === 0 ? 'Glacier survey' : i % 5 === 1 || i % 5 === 2 ? 'River survey' : words(1 + next(4));
        const rare = i % 13 === 0 ? ` rv${i}` : '';
        const owner = owners[next(owners.length)] as string;
        return {
          ...doc(id, { title, description: `${words(next(12))}${rare}` }),
          key: `${round}:${id}`,
          ownerId: owner,
          readers: [owner],
          ...listingFields(next, next(4) === 0),
        };
      };
      const held = await writeThroughChanges(index, make, {
        count: 400,
        rewrite: [120, 3],
        remove: Array.from({ length: 30 }, (_, i) => `0:g${String(i * 11).padStart(3, '0')}`),
        oneAtATime: [20, 9],
      });
      const ids = [...new Set([...held.values()].map((d) => d.id))];
      const variants: Partial<SearchRequest>[] = [{}, { page: 2 }, { page: 6, size: 7 }, { size: 60 }, { sort: 'newest' }, { aggregations: [] }];
      for (const q of ['glacer~', 'glaciers~', 'rivr~', 'rivers~', 'glac*', 'riv*', 'g*', 'r*']) {
        const requests = [null, 'ann', 'zed'].flatMap((viewerId) =>
          [undefined, ['package' as const]].flatMap((kinds) =>
            [undefined, { resource_type: ['dataset'] }].flatMap((facets) =>
              variants.map((over) => {
                const base = listingRequest(q);
                return { ...base, ...over, filter: { ...base.filter, viewerId, ...(kinds === undefined ? {} : { kinds }), ...(facets === undefined ? {} : { facets }) } };
              }),
            ),
          ),
        );
        expect(await expectEveryMatchAnswers(index, ids, requests), q).toBeGreaterThan(0);
      }
    } finally {
      await handle.close();
    }
  });

  it('expands a fuzzy word to the words written since it was last asked, outside a transaction and inside one', async () => {
    const { handle, index } = await open();
    try {
      const ids = async (q: string, on: SearchIndex = index) => (await on.search({ ...find(q), size: 50 })).hits.map((h) => h.id).sort();
      await index.upsert([doc('a', { title: 'Glacier survey' }), doc('b', { title: 'Grace gravity' }), doc('x', { title: 'Glacier ice' })]);
      expect(await ids('glacer~')).toEqual(['a', 'b', 'x']);
      expect(await ids('glacer~')).toEqual(['a', 'b', 'x']);
      // A word of the same slice (first letter, near length), within two edits, written later.
      await index.upsert([doc('c', { title: 'Glaceer mapping' })]);
      expect(await ids('glacer~')).toEqual(['a', 'b', 'c', 'x']);
      // One written in a transaction is found there, before it commits, and never once it rolls back.
      await (handle.db as unknown as Kysely<object>)
        .transaction()
        .execute(async (trx) => {
          const inside = index.withTransaction(trx);
          await inside.upsert([doc('d', { title: 'Glacers' })]);
          expect(await ids('glacer~', inside)).toEqual(['a', 'b', 'c', 'd', 'x']);
          throw new Error('rolled back');
        })
        .catch((e: unknown) => expect(String(e)).toContain('rolled back'));
      // As many words in the slice again, other ones.
      await index.upsert([doc('e', { title: 'Glaxer' })]);
      expect(await ids('glacer~')).toEqual(['a', 'b', 'c', 'e', 'x']);
    } finally {
      await handle.close();
    }
  });

  it('ranks a document holding several of a fuzzy or prefix word\'s words outside its title above long titled ones, as every match does', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      // Twelve documents of many words titled with one of the words: each scores a title word's
      // part damped by its length, under the two untitled words' parts of the short document
      // holding both (and read in no word's title scores), which so heads the page.
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`).join(' ');
      const docs = [
        ...Array.from({ length: 12 }, (_, i) => doc(`t${i}`, { title: i % 2 === 0 ? 'Glacier' : 'Glaciers', description: filler(800 + i) })),
        doc('short', { title: 'Survey', description: Array.from({ length: 10 }, () => 'glacier glaciers').join(' ') }),
        ...Array.from({ length: 6 }, (_, i) => doc(`d${i}`, { title: 'Delta survey', description: `${i % 2 === 0 ? 'glacier' : 'glaciers'} ${filler(30)}` })),
      ];
      await index.upsert(docs);
      const ids = docs.map((d) => d.id);
      for (const q of ['glacer~', 'glac*']) {
        const request = listingRequest(q);
        expect((await index.search(request)).hits[0]?.id, q).toBe('short');
        const requests = [request, { ...request, page: 2 }, { ...request, filter: { ...request.filter, viewerId: 'ann' } }];
        expect(await expectEveryMatchAnswers(index, ids, requests), q).toBeGreaterThan(0);
      }
    } finally {
      await handle.close();
    }
  });

  it('matches, counts and pages phrases (word pairs) exactly as the evaluator does, through writes', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 31;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['sea', 'ice', 'glacier', 'river', 'arctic'];
      const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const make = (i: number, round: number): SearchDocument => {
        const id = `p${String(i).padStart(3, '0')}`;
        // Subjects are values of their own: a pair across two of them is no phrase.
        const subjects = Array.from({ length: next(4) }, () => words(1 + next(2)));
        return {
          ...doc(id, { title: words(1 + next(4)), description: words(next(12)), subjects }),
          key: `${round}:${id}`,
          ...listingFields(next, next(6) === 0),
        };
      };
      const held = await writeThroughChanges(index, make, {
        count: 250,
        rewrite: [80, 3],
        remove: Array.from({ length: 30 }, (_, i) => `0:p${String(i * 8).padStart(3, '0')}`),
        oneAtATime: [20, 5],
      });
      const queries = ['"sea ice"', '"ice sea"', '"glacier glacier"', 'metadata.title:"sea ice"', '"sea ice" AND river', '"sea ice" OR "arctic river"', 'ice -"sea ice"',
        'metadata.title:glacier -"river sea"', '"arctic sea ice"', '"sea absent"', '"ice ice ice"', 'metadata.title:"sea ice river"', '-"glacier sea ice" sea',
        '"sea ice sea ice"'];
      await expectEvaluatorAnswers(index, held, queries);
      expect((await index.search({ ...find('"sea ice"'), filter: LISTING_FILTERS[0] as SearchRequest['filter'] })).total).toBeGreaterThan(10);
    } finally {
      await handle.close();
    }
  });

  it('counts and pages a listing\'s box as every match does, a signed-in reader\'s own documents added, through writes that move, hide and remove documents', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 23;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      // On a grid of whole degrees, so that parts touch the query boxes' edges and corners exactly.
      const geometry = (): unknown => {
        const [x, y, w, h] = [next(60) - 30 + (next(3) === 0 ? 150 : 0), next(40) - 20, 1 + next(8), 1 + next(6)];
        const rectangle = [[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]];
        switch (next(9)) {
          case 0:
            return { type: 'Point', coordinates: [x, y] };
          case 1:
            return { type: 'Polygon', coordinates: [rectangle] };
          case 2:
            // The same rectangle, its ring not closed and run the other way.
            return { type: 'Polygon', coordinates: [[[x, y], [x, y + h], [x + w, y + h], [x + w, y]]] };
          case 3:
            // A triangle: its bounds meet boxes near its long side that it does not.
            return { type: 'Polygon', coordinates: [[[x, y], [x + w, y], [x, y + h], [x, y]]] };
          case 4:
            // A rectangle's corners crossed (a bow tie): not the rectangle.
            return { type: 'Polygon', coordinates: [[[x, y], [x + w, y + h], [x + w, y], [x, y + h], [x, y]]] };
          case 5:
            return { type: 'Polygon', coordinates: [rectangle, [[x + 0.25, y + 0.25], [x + w - 0.25, y + 0.25], [x + w - 0.25, y + h - 0.25], [x + 0.25, y + h - 0.25], [x + 0.25, y + 0.25]]] };
          case 6:
            return { type: 'LineString', coordinates: [[x, y], [x + w, y + h]] };
          case 7:
            return { type: 'MultiPolygon', coordinates: [[rectangle], [[[x + 90, y], [x + 92, y], [x + 90, y + 2], [x + 90, y]]]] };
          default:
            return { type: 'MultiPoint', coordinates: [[x, y], [-x, -y]] };
        }
      };
      const make = (i: number, round: number): SearchDocument => {
        const id = `g${String(i).padStart(3, '0')}`;
        const locations = { features: [{ geometry: geometry() }] };
        const shapes = geometryShapes(locations);
        const restricted = next(6) === 0;
        return {
          ...doc(id, { title: `Place ${i}`, locations }),
          key: `${round}:${id}`,
          ...listingFields(next, restricted),
          updated: `2026-02-${String(1 + next(5)).padStart(2, '0')}T00:00:00.000Z`,
          versionIndex: 1 + next(3),
          bounds: shapes.map(shapeBounds),
          // Some documents carry their bounds alone, which are then exact.
          ...(next(10) === 0 ? {} : { shapes }),
        };
      };
      await index.upsert(Array.from({ length: 400 }, (_, i) => make(i, 0)));
      // Rewritten (moved, visibility, kind and facets changed), removed, written again one at a time.
      await index.upsert(Array.from({ length: 150 }, (_, i) => make(i * 2, 0)));
      await index.remove(Array.from({ length: 50 }, (_, i) => `0:g${String(i * 7).padStart(3, '0')}`));
      for (let i = 0; i < 20; i++) await index.upsert([make(i * 3, 1)]);
      const ids = (await sql<{ id: string }>`select distinct id from search_doc`.execute(handle.db)).rows.map((r) => r.id);
      const boxes: BBox[] = [[-10, -5, 10, 5], [0, 0, 3, 2], [-30, -20, 30, 20], [170, -20, -170, 20], [120, -10, -150, 10], [-180, -90, 180, 90], [5, 3, 5, 3], [-2.5, -1.5, 4.5, 2.5]];
      let found = 0;
      for (const bbox of boxes) {
        const base: SearchRequest = { ...listingRequest(''), q: null, bbox };
        found += await expectEveryMatchAnswers(index, ids, LISTING_VARIANTS.map((over) => ({ ...base, ...over })));
      }
      expect(found).toBeGreaterThan(0);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written in an older layout, so a node projects every record again', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier' })]);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(1);
      // The first layout had no layout table.
      await sql`drop table search_meta`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier' })]);
      expect((await index.search(find('glacier'))).total).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('finds `_exists_` on a path first numbered after a document was written, and on no other', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('old', { title: 'Old', subjects: ['ice'] })]);
      await index.upsert([doc('new', { title: 'New', subjects: ['ice'], funding: [{ funder: 'Agency' }] })]);
      const ids = async (q: string) => (await index.search(find(q))).hits.map((h) => h.id).sort();
      expect(await ids('_exists_:metadata.funding.funder')).toEqual(['new']);
      expect(await ids('_exists_:metadata.funding')).toEqual(['new']);
      expect(await ids('_exists_:metadata.subjects')).toEqual(['new', 'old']);
      expect(await ids('_exists_:metadata.nowhere')).toEqual([]);
      // Written again without the path: its bit is cleared.
      await index.upsert([doc('new', { title: 'New', subjects: ['ice'] })]);
      expect(await ids('_exists_:metadata.funding')).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('answers `_exists_` past the numbered paths that have a bit, and takes documents holding thousands of paths', { timeout: 60_000 }, async () => {
    const { handle, index } = await open();
    try {
      // Keys nobody else uses number 25,000 paths; a document then holds an irregular half of
      // them, whose bits would not compress under what one entry of the covering index can hold.
      const keys = Array.from({ length: 25_000 }, (_, i) => `k${i}`);
      await index.upsert([doc('wide', { title: 'Wide', extra: Object.fromEntries(keys.map((k) => [k, 'x'])) })]);
      const half = keys.filter((_, i) => ((Math.imul(i, 2_654_435_761) >>> 16) & 1) === 0 || i === 24_999);
      await index.upsert([doc('late', { title: 'Late', extra: Object.fromEntries(half.map((k) => [k, 'y'])) }), doc('plain', { title: 'Plain' })]);
      const ids = async (q: string) => (await index.search(find(q))).hits.map((h) => h.id).sort();
      expect(await ids('_exists_:metadata.extra.k24999')).toEqual(['late', 'wide']);
      expect(await ids(`_exists_:metadata.extra.${keys.find((k) => !half.includes(k))}`)).toEqual(['wide']);
      expect(await ids('_exists_:metadata.title')).toEqual(['late', 'plain', 'wide']);
    } finally {
      await handle.close();
    }
  });
});

describe('search index (PostgreSQL): ranges decided in SQL', () => {
  /** A date of a random precision (year, month, day, instant) between 2019 and 2022. */
  const dateFrom = (next: (n: number) => number) => {
    const full = `${2019 + next(4)}-${String(1 + next(12)).padStart(2, '0')}-${String(1 + next(28)).padStart(2, '0')}T${String(next(24)).padStart(2, '0')}:00:00.000Z`;
    return full.slice(0, [4, 7, 10, 24][next(4)]);
  };

  it('counts, facets and pages ranges with words under AND/OR/NOT exactly as the evaluator does, through writes', { timeout: 120_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 7;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['sea', 'ice', 'glacier', 'river', 'arctic'];
      const make = (i: number, round: number): SearchDocument => {
        // An id per round: the ranked pages below tell documents by id.
        const id = `r${round}-${String(i).padStart(3, '0')}`;
        const metadata: { title: string } & Record<string, unknown> = { title: `${vocabulary[next(5)]} ${vocabulary[next(5)]}` };
        if (next(6) !== 0) metadata['publication_date'] = dateFrom(next);
        metadata['dates'] = Array.from({ length: next(3) }, () => ({ date: dateFrom(next) }));
        const base = doc(id, metadata);
        return {
          ...base,
          key: `${round}:${id}`,
          ...listingFields(next, next(6) === 0),
          body: { ...base.body, created: dateFrom(next), versions: { index: next(8) === 0 ? 'n/a' : 1 + next(9) } },
        };
      };
      const held = await writeThroughChanges(index, make, {
        count: 250,
        rewrite: [80, 3],
        remove: Array.from({ length: 30 }, (_, i) => `0:r0-${String(i * 8).padStart(3, '0')}`),
        oneAtATime: [20, 5],
      });
      const queries = [
        'metadata.publication_date:[2020 TO 2021]', 'metadata.publication_date:{2020 TO 2021}', 'metadata.publication_date:[2020-06 TO 2021-02-14}',
        'metadata.publication_date:{2020-06-15 TO *]', 'metadata.publication_date:[* TO 2019-12]', 'metadata.dates.date:[2021 TO 2021]',
        'metadata.dates.date:{2019-03 TO 2020-11-30]', 'created:[2020-02 TO 2020-02]', 'created:{2021-05-05T05 TO *}', 'versions.index:[2 TO 5]',
        'versions.index:{2 TO 5}', 'versions.index:[* TO 3}', 'versions.index:[2 TO n/a]', 'metadata.title:[a TO z]',
        'ice AND metadata.publication_date:[2020 TO 2021]', 'ice OR metadata.dates.date:[2022 TO *]', 'glacier -metadata.publication_date:[2021 TO *]',
        'NOT metadata.publication_date:[2020 TO 2021]', 'NOT (versions.index:[3 TO 6] OR "sea ice")', 'ic* AND NOT created:[* TO 2020]',
        'glaceir~ OR versions.index:{7 TO *]', '_exists_:metadata.dates.date AND NOT metadata.dates.date:[2020 TO 2020]',
        '(metadata.title:river OR metadata.publication_date:[2019-06 TO 2019-06]) AND NOT (versions.index:[4 TO *] AND arctic)',
        // Fields only the evaluator decides, its candidates narrowed by the ranges.
        'metadata.dates.date:2021 AND metadata.publication_date:[2020 TO *]', 'metadata.description:x OR created:[2021 TO *]',
        '(created:{2019 TO *] AND metadata.dates.date:2020) AND NOT metadata.publication_date:[2021-06 TO *]',
      ];
      await expectEvaluatorAnswers(index, held, queries);
      expect((await index.search({ ...find('metadata.publication_date:[2020 TO 2021]'), filter: LISTING_FILTERS[0] as SearchRequest['filter'] })).total).toBeGreaterThan(20);
      // Ranked: the pages of a word and a range are the word's ranked matches the range keeps, in the word's order.
      const ranked = (await index.search({ ...find('ice'), size: 400 })).hits;
      const range = parseQuery('metadata.publication_date:[2020 TO 2021]');
      const kept = ranked.filter((h) => [...held.values()].some((d) => d.id === h.id && d.isPublic && matchesQuery(range, d)));
      for (const page of [1, 2, 3]) {
        const asked = { ...find('ice AND metadata.publication_date:[2020 TO 2021]'), page, size: 7 };
        expect((await index.search(asked)).hits.map((h) => h.id)).toEqual(kept.slice((page - 1) * 7, page * 7).map((h) => h.id));
      }
    } finally {
      await handle.close();
    }
  });

  it('decides a range from its own index, without reading the documents', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('old', { title: 'Ice', publication_date: '2019' }), doc('new', { title: 'Ice', publication_date: '2021-03' })]);
      // Documents the evaluator would find nothing in: only the range rows can answer.
      await sql`update search_doc set doc = ${JSON.stringify({ body: {} })}`.execute(handle.db);
      const ids = async (q: string) => (await index.search(find(q))).hits.map((h) => h.id).sort();
      expect(await ids('metadata.publication_date:[2021 TO *]')).toEqual(['new']);
      expect(await ids('ice AND NOT metadata.publication_date:[2021 TO *]')).toEqual(['old']);
      expect(await ids('metadata.publication_date:[* TO 2019] OR metadata.publication_date:[2021-03 TO 2021-03]')).toEqual(['new', 'old']);
      // Removed with its document, and written again with it.
      await index.remove(['published:old']);
      await index.upsert([doc('new', { title: 'Ice', publication_date: '2018' })]);
      expect(await ids('metadata.publication_date:[* TO *]')).toEqual(['new']);
      expect(await ids('metadata.publication_date:[2018 TO 2018]')).toEqual(['new']);
      expect(Number((await sql<{ n: string }>`select count(*) as n from search_range where value is not null`.execute(handle.db)).rows[0]?.n)).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('counts and pages a listing\'s range and NOT range as every match does, a signed-in reader\'s own documents added, through writes that change what is listed', { timeout: 120_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 11;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const dateFrom = (n: (k: number) => number) => `${2019 + n(4)}-${String(1 + n(12)).padStart(2, '0')}-${String(1 + n(28)).padStart(2, '0')}`.slice(0, [4, 7, 10][n(3)]);
      const make = (i: number, round: number): SearchDocument => {
        const id = `d${String(i).padStart(3, '0')}`;
        const metadata: { title: string } & Record<string, unknown> = { title: `Dated ${i}` };
        // Some lack the field, some hold several values of it (inside and outside a range at once).
        if (next(5) !== 0) metadata['publication_date'] = dateFrom(next);
        metadata['dates'] = Array.from({ length: next(4) }, () => ({ date: dateFrom(next) }));
        const base = doc(id, metadata);
        return {
          ...base,
          key: `${round}:${id}`,
          ...listingFields(next, next(6) === 0),
          updated: `2026-02-${String(1 + next(5)).padStart(2, '0')}T00:00:00.000Z`,
          versionIndex: 1 + next(3),
          // Shared with a second reader now and then.
          readers: next(3) === 0 ? ['o', 'p'] : ['o'],
          body: { ...base.body, versions: { index: next(8) === 0 ? 'n/a' : 1 + next(9) } },
        };
      };
      await writeThroughChanges(index, make, {
        count: 300,
        rewrite: [100, 3],
        remove: Array.from({ length: 30 }, (_, i) => `0:d${String(i * 9).padStart(3, '0')}`),
        oneAtATime: [25, 4],
      });
      const ids = (await sql<{ id: string }>`select distinct id from search_doc`.execute(handle.db)).rows.map((r) => r.id);
      const queries = [
        'metadata.publication_date:[2020 TO 2021]', 'metadata.publication_date:{2020 TO 2021-06}', 'metadata.publication_date:[2021-03 TO *]',
        'metadata.publication_date:[* TO 2020-02-14}', 'metadata.publication_date:[* TO *]', 'metadata.dates.date:[2020 TO 2020]',
        'created:[2026 TO *]', 'versions.index:[2 TO 5]', 'versions.index:[* TO *]',
        'NOT metadata.publication_date:[2020 TO 2021]', 'NOT metadata.publication_date:{2020 TO 2021-06}', '-metadata.publication_date:[2021-03 TO *]',
        'NOT metadata.publication_date:[* TO 2020-02-14}', 'NOT metadata.publication_date:[* TO *]', 'NOT metadata.dates.date:[2020 TO 2020]',
        'NOT metadata.dates.date:[2019-06 TO 2021-06]', 'NOT created:[2026 TO *]', 'NOT versions.index:[2 TO 5]', 'NOT versions.index:{* TO 3}',
        // Both bounds cutting one month, months whole, a bound cutting a month under NOT.
        'metadata.publication_date:[2020-03-05 TO 2020-03-20]', 'NOT metadata.publication_date:[2020-03-05 TO 2020-03-20]',
        'metadata.publication_date:[2020-03 TO 2021-02]', 'NOT metadata.publication_date:{2020-03 TO 2021-02-11]', 'metadata.dates.date:{2019-11-30 TO *]',
        // Ranges of no value: bounds the wrong way round.
        'NOT metadata.publication_date:{2020-03-05 TO 2020-03-05}', 'metadata.publication_date:[2021 TO 2020]', 'NOT metadata.publication_date:[2021 TO 2020]', 'NOT metadata.dates.date:{2020-06 TO 2020-06}',
      ];
      let found = 0;
      for (const q of queries) found += await expectEveryMatchAnswers(index, ids, LISTING_VARIANTS.map((over) => ({ ...listingRequest(q), ...over })));
      expect(found).toBeGreaterThan(0);
    } finally {
      await handle.close();
    }
  });

  it('counts a listing of a word within publication years and months from the words\' counts kept by month as every match does, through writes, removals, a rebuild and a rolled-back transaction; a document of several months from the rows', { timeout: 240_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 29;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const words = ['glacier', 'ice', 'river'];
      const dateFrom = () => `${2019 + next(6)}-${String(1 + next(12)).padStart(2, '0')}-${String(1 + next(28)).padStart(2, '0')}`.slice(0, [4, 7, 10, 10][next(4)]);
      const make = (i: number, round: number): SearchDocument => {
        const id = `y${String(i).padStart(3, '0')}`;
        const metadata: { title: string } & Record<string, unknown> = { title: `${words[next(3)]} survey`, description: `${words[next(3)]} ${words[next(3)]} notes ${next(3)}` };
        if (next(6) !== 0) metadata['publication_date'] = dateFrom();
        const base = doc(id, metadata);
        return { ...base, key: `${round}:${id}`, ...listingFields(next, next(6) === 0), readers: next(3) === 0 ? ['o', 'p'] : ['o'] };
      };
      const ids = Array.from({ length: 300 }, (_, i) => `y${String(i).padStart(3, '0')}`);
      const queries = [
        'glacier AND metadata.publication_date:[2022-06 TO *]', 'metadata.publication_date:[2020 TO 2021] AND ice', 'river AND metadata.publication_date:[2020-03 TO 2023-02]',
        'glacier AND metadata.publication_date:[* TO 2020-06]', 'ice AND metadata.publication_date:[2021-05 TO 2021-08]', 'notes AND metadata.publication_date:[2019 TO *]',
        'glacier AND metadata.publication_date:[2030 TO *]',
        // A number: not kept by month, counted from the rows.
        '2 AND metadata.publication_date:[2020-06 TO *]',
      ];
      /** Every query under every listing variant, against every match; and the kept rows against the listed documents of one publication month, by word and year. */
      const check = async () => {
        let found = 0;
        for (const q of queries) found += await expectEveryMatchAnswers(index, ids, LISTING_VARIANTS.map((over) => ({ ...listingRequest(q), ...over })));
        expect(found).toBeGreaterThan(0);
        const kept = await sql<{ lexeme: string; year: string; kind: string; n: string }>`select lexeme, year, kind, sum(n) as n from search_count_year
          where lexeme in ('glacier', 'ice', 'river', 'notes') group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3`.execute(handle.db);
        const listed = await sql<{ lexeme: string; year: string; kind: string; n: string }>`select l as lexeme, y as year, kind, count(*) as n from search_doc,
            unnest(tsvector_to_array(words)) l, unnest(tsvector_to_array(words)) y
          where state = 'published' and is_latest and is_public and l in ('glacier', 'ice', 'river', 'notes') and y like '#y metadata.publication_date %'
            and (select count(*) from unnest(tsvector_to_array(words)) z where z like '#m metadata.publication_date %') = 1
          group by 1, 2, 3 order by 1, 2, 3`.execute(handle.db);
        expect(kept.rows).toEqual(listed.rows);
      };
      await writeThroughChanges(index, make, { count: 300, rewrite: [100, 3], remove: Array.from({ length: 30 }, (_, i) => `0:y${String(i * 9).padStart(3, '0')}`), oneAtATime: [25, 4] });
      await check();
      // One document written again and again, into and out of one month: its groups' rows crowd and are folded.
      for (let i = 0; i < 60; i++) {
        const metadata = { title: 'glacier survey', description: 'ice notes', publication_date: i % 3 === 0 ? '2022-07-04' : '2022-07' };
        await index.upsert([{ ...doc('y298', metadata), key: '0:y298', resourceType: types[1 + (i % 2)] ?? null }]);
      }
      await check();
      // Rewritten in a transaction rolled back: nothing of it counted.
      await expect(
        (handle.db as unknown as Kysely<object>).transaction().execute(async (trx) => {
          const inside = index.withTransaction(trx);
          await inside.upsert(ids.slice(0, 40).map((_, i) => make(i, 0)));
          await inside.remove(['0:y100', '0:y101']);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await check();
      // Listed documents of two publication years, of two months of one year: every listing counted from the rows while one is listed.
      for (const dates of [['2020-02', '2023-07-01'], ['2022-02', '2022-07-01']]) {
        const several = { ...doc('y299', { title: 'glacier survey', description: 'ice notes', publication_date: dates }), key: '0:y299' };
        await index.upsert([several]);
        expect((await sql<{ n: string }>`select sum(n) as n from search_count_year where lexeme = '' and year = ''`.execute(handle.db)).rows[0]?.n).toBe('1');
        await check();
        await index.remove(['0:y299']);
        await check();
      }
      // Projected again by a rebuild, which keeps nothing until its end.
      const docs = ids.slice(0, 200).map((_, i) => make(i, 2));
      const rebuild = await index.rebuild();
      await rebuild.upsert(docs);
      await rebuild.finish();
      await check();
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before the words were counted by publication month, so every record is projected again with those counts', async () => {
    const { handle, index } = await open();
    try {
      const docs = [doc('kept', { title: 'Glacier', publication_date: '2020-05' }), doc('other', { title: 'Glacier', publication_date: '2023' })];
      await index.upsert(docs);
      await sql`update search_meta set layout = 19`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(listingRequest('glacier'))).total).toBe(0);
      await index.upsert(docs);
      expect((await sql<{ n: string }>`select sum(n) as n from search_count_year where lexeme = 'glacier'`.execute(handle.db)).rows[0]?.n).toBe('2');
      expect((await index.search(listingRequest('glacier AND metadata.publication_date:[2021 TO *]'))).total).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before ranges had a table, so every record is projected again with its ranges', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020' })]);
      await sql`drop table search_range`.execute(handle.db);
      await sql`update search_meta set layout = 12`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020' })]);
      expect((await index.search(find('glacier AND metadata.publication_date:[2020 TO 2020]'))).total).toBe(1);
    } finally {
      await handle.close();
    }
  });
  it('empties an index written before the date ranges\' buckets were in the vector, so a word and a range together find every record projected again', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020-05-01' })]);
      await sql`update search_meta set layout = 17`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020-05-01' })]);
      expect((await index.search(find('glacier AND metadata.publication_date:[2020-05 TO *]'))).hits.map((h) => h.id)).toEqual(['kept']);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before the range rows were counted by bucket, so every record is projected again with its counts', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020-05-01' })]);
      await sql`update search_meta set layout = 16`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020-05-01' })]);
      const listing = { ...find('metadata.publication_date:[2020 TO *]'), filter: LISTING_FILTERS[0] as SearchRequest['filter'] };
      expect((await index.search(listing)).hits.map((h) => h.id)).toEqual(['kept']);
    } finally {
      await handle.close();
    }
  });
  it('empties an index written before range rows held their listing, so every record is projected again with them', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', publication_date: '2020' })]);
      await sql`update search_meta set layout = 14`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier' })]);
      const listing = { ...find('NOT metadata.publication_date:[2020 TO *]'), filter: LISTING_FILTERS[0] as SearchRequest['filter'] };
      expect((await index.search(listing)).hits.map((h) => h.id)).toEqual(['kept']);
    } finally {
      await handle.close();
    }
  });
});

describe('search index (PostgreSQL): fields decided in SQL', () => {
  it('decides a field query from the field vector, without reading the documents', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([
        doc('a', { title: 'Ice', description: 'Sea ice and glaciers', creators: [{ person_or_org: { name: 'Smith, Jane' } }], publication_date: '2020' }),
        doc('b', { title: 'Sea', description: 'Glacier retreat', subjects: ['ice', { subject: 'sea ice' }], creators: [{ person_or_org: { name: 'Doe, John' } }] }),
      ]);
      // Documents the evaluator would find nothing in: only the field vector can answer.
      await sql`update search_doc set doc = ${JSON.stringify({ body: {} })}`.execute(handle.db);
      const ids = async (q: string) => (await index.search(find(q))).hits.map((h) => h.id).sort();
      expect(await ids('metadata.description:"sea ice"')).toEqual(['a']);
      expect(await ids('metadata.creators.person_or_org.name:smi*')).toEqual(['a']);
      expect(await ids('metadata.creators:jon~')).toEqual(['b']);
      expect(await ids('metadata.subjects:sea')).toEqual([]);
      expect(await ids('metadata.subjects.subject:sea')).toEqual(['b']);
      expect(await ids('metadata.description:glacier* AND NOT metadata.title:sea')).toEqual(['a']);
      expect(await ids('metadata.description:retreat OR metadata.publication_date:[2020 TO 2020]')).toEqual(['a', 'b']);
      expect(await ids('ice -metadata.creators.person_or_org.name:doe')).toEqual(['a']);
      // Rewritten and removed with its document.
      await index.upsert([doc('a', { title: 'Ice', description: 'Nothing here' })]);
      await sql`update search_doc set doc = ${JSON.stringify({ body: {} })}`.execute(handle.db);
      expect(await ids('metadata.description:sea')).toEqual([]);
      expect(await ids('metadata.description:nothing')).toEqual(['a']);
      await index.remove(['published:a']);
      expect(await ids('metadata.description:nothing')).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('counts and ranks a listing of one field word, two-word field phrase or field prefix one word stands for, and one without text, as every match does, through writes that change what is listed', { timeout: 180_000 }, async () => {
    const { handle, index } = await open();
    try {
      let seed = 23;
      const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
      const vocabulary = ['glacier', 'ice', 'sea', 'drought', 'survey', 'river'];
      const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
      const names = ['Smith', 'Doe', 'Kumar', 'Tanaka'];
      const make = (i: number, round: number): SearchDocument => {
        const id = `d${String(i).padStart(3, '0')}`;
        // Titles holding the field's word or phrase in many documents (whose own field may lack it), and in few.
        const title = i % 3 === 0 ? `Sea ice ${words(next(3))}` : words(1 + next(3));
        const creators = Array.from({ length: next(3) }, () => ({ person_or_org: { name: `${names[next(names.length)]} ${names[next(names.length)]}` } }));
        // Now and then more repeated words than the row keeps: ranked from the vector.
        const repeated = i % 40 === 0 ? ` ${Array.from({ length: 80 }, (_, k) => `r${k} r${k}`).join(' ')}` : '';
        const base = doc(id, { title, description: `${words(next(14))}${repeated}`, creators });
        return { ...base, key: `${round}:${id}`, ...listingFields(next, next(6) === 0), readers: next(3) === 0 ? ['o', 'p'] : ['o'] };
      };
      await writeThroughChanges(index, make, {
        count: 240,
        rewrite: [90, 2],
        remove: Array.from({ length: 30 }, (_, i) => `0:d${String(i * 7).padStart(3, '0')}`),
        oneAtATime: [30, 3],
      });
      const ids = async () => (await sql<{ id: string }>`select distinct id from search_doc`.execute(handle.db)).rows.map((r) => r.id);
      const queries = [
        'metadata.description:sea', 'metadata.description:"sea ice"', 'metadata.description:"ice sea"', 'metadata.description:absent',
        'metadata.creators.person_or_org.name:kumar', 'metadata.creators.person_or_org.name:"kumar smith"', 'metadata.creators.person_or_org.name:"tanaka"',
        // Prefixes and fuzzy words one word stands for (answered as that word), and some several words do.
        'metadata.creators.person_or_org.name:kum*', 'metadata.description:dro*', 'metadata.creators.person_or_org.name:kumr~', 'metadata.description:s*',
        '',
      ];
      const known = await ids();
      let found = 0;
      for (const q of queries) found += await expectEveryMatchAnswers(index, known, LISTING_VARIANTS.map((over) => ({ ...listingRequest(q), ...over })));
      expect(found).toBeGreaterThan(0);
      // A public document without a vector (past a vector's size) is listed without text all the same, counted from its row.
      await index.upsert([doc('huge', { title: 'Huge inventory', description: Array.from({ length: 100_000 }, (_, i) => `distinctword${i}`).join(' ') })]);
      const withHuge = await ids();
      const listed = await expectEveryMatchAnswers(index, withHuge, LISTING_VARIANTS.map((over) => ({ ...listingRequest(''), ...over })));
      expect((await index.search(listingRequest(''))).total).toBe((await index.search({ ...listingRequest(''), filter: { ...listingRequest('').filter, ids: known } })).total + 1);
      expect(listed).toBeGreaterThan(0);
      await index.clear();
      expect((await index.search(listingRequest(''))).total).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before field words were counted, so every record is projected again with its counts and repeated words', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', description: 'Sea ice' })]);
      await sql`update search_meta set layout = 15`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(listingRequest(''))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier', description: 'Sea ice' })]);
      expect((await index.search(listingRequest('metadata.description:"sea ice"'))).total).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('empties an index written before fields had a vector, so every record is projected again with it', async () => {
    const { handle, index } = await open();
    try {
      await index.upsert([doc('kept', { title: 'Glacier', description: 'Ice' })]);
      await sql`update search_meta set layout = 13`.execute(handle.db);
      await createPostgresSearchSchema(handle.db);
      expect((await index.search(find('glacier'))).total).toBe(0);
      await index.upsert([doc('kept', { title: 'Glacier', description: 'Ice' })]);
      expect((await index.search(find('metadata.description:ice'))).total).toBe(1);
    } finally {
      await handle.close();
    }
  });
});
