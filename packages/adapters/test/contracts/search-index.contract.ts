import { describe, expect, it } from 'vitest';
import type { BBox, SearchDocument, SearchFilter, SearchIndex, SearchRequest } from '@krs/domain';
import { geometryShapes, matchesQuery, parseQuery, runSearch, scoreQuery, shapeBounds } from '@krs/domain/search';
import { randomSearch, seeded } from './random-search.ts';

const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`;

function doc(id: string, over: Partial<SearchDocument> = {}, metadata: { [key: string]: unknown } = {}): SearchDocument {
  const state = over.state ?? 'published';
  const parentId = over.parentId ?? `p-${id}`;
  return {
    key: `${state}:${id}`,
    id,
    kind: 'resource',
    state,
    parentId,
    ownerId: 'owner',
    versionIndex: 1,
    isLatest: state === 'published',
    inUserListing: true,
    isUserLatest: true,
    isPublic: state === 'published',
    readers: ['owner'],
    created: day(1),
    updated: day(1),
    resourceType: { id: 'dataset', label: 'Dataset' },
    accessStatus: 'open',
    bounds: [],
    ...over,
    body: {
      id,
      parent: { id: parentId },
      access: { record: over.isPublic === false ? 'restricted' : 'public' },
      metadata: { title: `Record ${id}`, ...metadata },
    },
  };
}

const PUBLIC: SearchFilter = { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null };

const request = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  filter: PUBLIC,
  q: null,
  bbox: null,
  sort: 'newest',
  page: 1,
  size: 100,
  aggregations: [],
  ...over,
});

/** A document placed by GeoJSON geometries, its bounds and exact shapes as the projection computes them. */
function placed(id: string, ...geometries: unknown[]): SearchDocument {
  const shapes = geometryShapes({ features: geometries.map((geometry) => ({ geometry })) });
  return doc(id, { bounds: shapes.map(shapeBounds), shapes });
}
const ring = (...xy: [number, number][]) => [...xy, xy[0]];
const square = (w: number, s: number, e: number, n: number) => ring([w, s], [e, s], [e, n], [w, n]);

/** Ids of the hits, sorted: for checks of which documents match, not of their order. */
const ids = async (index: SearchIndex, over: Partial<SearchRequest> = {}) => (await index.search(request(over))).hits.map((h) => h.id).sort();
/** Ids in the order the engine returned them. */
const ordered = async (index: SearchIndex, over: Partial<SearchRequest> = {}) => (await index.search(request(over))).hits.map((h) => h.id);
const q = (index: SearchIndex, text: string) => ids(index, { q: text });
/** Ids of the documents the domain's evaluator matches, sorted: what every engine answers. */
const expected = (docs: SearchDocument[], text: string) => docs.filter((d) => matchesQuery(parseQuery(text), d)).map((d) => d.id).sort();
/** Each query answered on `docs` as the evaluator answers it. */
async function expectEvaluated(index: SearchIndex, docs: SearchDocument[], queries: readonly string[]): Promise<void> {
  for (const text of queries) expect({ text, ids: await q(index, text) }).toEqual({ text, ids: expected(docs, text) });
}
const buckets = (list: { key: string; docCount: number; label: string }[] | undefined) => list?.map((b) => [b.key, b.docCount, b.label]);

async function corpus(make: () => Promise<SearchIndex>): Promise<SearchIndex> {
  const index = await make();
  await index.upsert([
    doc(
      'flood-a',
      {},
      {
        title: 'Flood risk in the Niger delta',
        description: 'Sentinel-1 flood maps for the rainy season.',
        publication_date: '2020-05-01',
        creators: [{ person_or_org: { name: 'Obi, Chidi' } }, { person_or_org: { name: 'Müller, Eva' } }],
        resource_type: { id: 'dataset' },
      },
    ),
    doc(
      'drought-b',
      { parentId: 'shared-parent' },
      {
        title: 'Drought monitoring in the Sahel',
        description: 'Soil moisture anomalies.',
        publication_date: '2022-01-01',
        version: 'v2',
        creators: [{ person_or_org: { name: 'Silva, João' } }],
        resource_type: { id: 'software' },
      },
    ),
    doc(
      'mixed-c',
      {},
      {
        title: 'Flood and drought indices',
        description: 'Indices combining rainfall and deforestation data.',
        publication_date: '2024',
        creators: [{ person_or_org: { name: 'Nguyen, Linh' } }],
        resource_type: { id: 'dataset' },
      },
    ),
  ]);
  return index;
}

/**
 * `stamps: 'in-store'` for an index written in the store's own transactions (one shared by every
 * node): its stamp never moves, the store's change stamp moving with its writes instead (tested
 * beside the store).
 */
export function searchIndexContract(name: string, make: () => Promise<SearchIndex>, options: { stamps?: 'own' | 'in-store' } = {}): void {
  describe(`search index contract: ${name}`, () => {
    it('answers a readiness check, empty or not', async () => {
      const index = await make();
      await expect(index.check()).resolves.toBeUndefined();
      await index.upsert([doc('ready-a', {}, { title: 'Ready' })]);
      await expect(index.check()).resolves.toBeUndefined();
    });

    if (options.stamps === 'in-store') {
      it('has one stamp, before and after a write', async () => {
        const index = await make();
        const before = index.stamp();
        expect(before).not.toBeNull();
        await index.upsert([doc('stamp-a', {}, { title: 'Stamped' })]);
        expect(index.stamp()).toBe(before);
      });
    } else {
      it('has a stamp that every write moves, and searches leave as it is', async () => {
        const index = await make();
        const stamps = [index.stamp()];
        await index.upsert([doc('stamp-a', {}, { title: 'Stamped' })]);
        stamps.push(index.stamp());
        await index.upsert([doc('stamp-a', {}, { title: 'Stamped again' }), doc('stamp-b', {}, { title: 'Another' })]);
        stamps.push(index.stamp());
        await index.remove(['published:stamp-b']);
        stamps.push(index.stamp());
        await index.clear();
        stamps.push(index.stamp());
        expect(stamps).not.toContain(null);
        expect(new Set(stamps).size).toBe(stamps.length);
        await index.search(request({ q: 'stamped' }));
        await index.keysOfParent('p-stamp-a');
        expect(index.stamp()).toBe(stamps.at(-1));
      });
    }

    describe('query syntax', () => {
      it('ANDs bare terms, case- and accent-insensitively', async () => {
        const index = await corpus(make);
        expect(await q(index, 'flood')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'FLOOD drought')).toEqual(['mixed-c']);
        expect(await q(index, 'flood sahel')).toEqual([]);
        expect(await q(index, 'muller')).toEqual(['flood-a']);
        expect(await q(index, 'Müller')).toEqual(['flood-a']);
      });

      it('treats an empty or blank query as none', async () => {
        const index = await corpus(make);
        expect(await q(index, '')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, '   ')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
      });

      it('matches phrases only with their words in order', async () => {
        const index = await corpus(make);
        expect(await q(index, '"niger delta"')).toEqual(['flood-a']);
        expect(await q(index, '"delta niger"')).toEqual([]);
        expect(await q(index, '"flood maps"')).toEqual(['flood-a']);
        expect(await q(index, 'metadata.title:"flood maps"')).toEqual([]);
      });

      it('matches field:value on dotted paths', async () => {
        const index = await corpus(make);
        expect(await q(index, 'metadata.title:drought')).toEqual(['drought-b', 'mixed-c']);
        expect(await q(index, 'metadata.title:rainfall')).toEqual([]);
        expect(await q(index, 'metadata.description:rainfall')).toEqual(['mixed-c']);
        expect(await q(index, 'metadata.creators.person_or_org.name:obi')).toEqual(['flood-a']);
        expect(await q(index, 'metadata.creators.person_or_org.name:"Silva, João"')).toEqual(['drought-b']);
        expect(await q(index, 'metadata.resource_type.id:dataset')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'id:drought-b')).toEqual(['drought-b']);
        expect(await q(index, 'parent.id:shared-parent')).toEqual(['drought-b']);
        expect(await q(index, 'access.record:public')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, 'metadata.title:(flood indices)')).toEqual(['mixed-c']);
      });

      it('combines with AND, OR, NOT, + and -, and parentheses, AND binding tighter than OR', async () => {
        const index = await corpus(make);
        expect(await q(index, 'flood OR sahel')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, 'flood AND drought')).toEqual(['mixed-c']);
        expect(await q(index, 'flood -drought')).toEqual(['flood-a']);
        expect(await q(index, 'flood NOT drought')).toEqual(['flood-a']);
        expect(await q(index, 'flood AND NOT drought')).toEqual(['flood-a']);
        expect(await q(index, '+flood -metadata.title:drought')).toEqual(['flood-a']);
        expect(await q(index, '-flood')).toEqual(['drought-b']);
        expect(await q(index, 'NOT flood')).toEqual(['drought-b']);
        expect(await q(index, 'niger AND flood OR sahel')).toEqual(['drought-b', 'flood-a']);
        expect(await q(index, 'sahel OR niger AND flood')).toEqual(['drought-b', 'flood-a']);
        expect(await q(index, '(sahel OR niger) AND drought')).toEqual(['drought-b']);
        expect(await q(index, 'drought -(sahel OR niger)')).toEqual(['mixed-c']);
      });

      it('matches prefixes and fuzzy terms', async () => {
        const index = await corpus(make);
        expect(await q(index, 'monitor*')).toEqual(['drought-b']);
        expect(await q(index, 'defor*')).toEqual(['mixed-c']);
        expect(await q(index, 'metadata.title:ind*')).toEqual(['mixed-c']);
        expect(await q(index, 'metadata.title:moist*')).toEqual([]);
        expect(await q(index, 'drougth~')).toEqual(['drought-b', 'mixed-c']);
        expect(await q(index, 'sentinal~1')).toEqual(['flood-a']);
      });

      it('matches _exists_ and ranges on dates, inclusive and exclusive', async () => {
        const index = await corpus(make);
        expect(await q(index, '_exists_:metadata.version')).toEqual(['drought-b']);
        expect(await q(index, 'flood -_exists_:metadata.version')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'metadata.publication_date:[2021 TO 2024]')).toEqual(['drought-b', 'mixed-c']);
        expect(await q(index, 'metadata.publication_date:[2020-05-01 TO 2022-01-01]')).toEqual(['drought-b', 'flood-a']);
        expect(await q(index, 'metadata.publication_date:{2020-05-01 TO 2022-01-01}')).toEqual([]);
        expect(await q(index, 'metadata.publication_date:{2020-05-01 TO *]')).toEqual(['drought-b', 'mixed-c']);
        expect(await q(index, 'metadata.publication_date:[* TO 2021]')).toEqual(['flood-a']);
        expect(await q(index, 'flood AND metadata.publication_date:[2023 TO *]')).toEqual(['mixed-c']);
      });

      it('answers unparsable text with a plain match of its words instead of failing', async () => {
        const index = await corpus(make);
        expect(await q(index, 'flood ((')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'a:b:c ((')).toEqual([]);
        expect(await q(index, '"niger delta')).toEqual(['flood-a']);
        expect(await q(index, ')(')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
      });
    });

    describe('fuzzy, prefix, _exists_, ranges and hostile shapes', () => {
      it('matches fuzzy terms within the edit distance of their length, keeping the first letter', async () => {
        const index = await corpus(make);
        expect(await q(index, 'flod~')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'sahle~')).toEqual([]);
        expect(await q(index, 'sahl~')).toEqual(['drought-b']);
        // Two edits from six letters on; never a different first letter.
        expect(await q(index, 'monitorign~')).toEqual(['drought-b']);
        expect(await q(index, 'ronitoring~')).toEqual([]);
        expect(await q(index, 'dlood~')).toEqual([]);
        // Up to two letters, no edits at all.
        expect(await q(index, 'sx~')).toEqual([]);
        expect(await q(index, 'metadata.title:indces~')).toEqual(['mixed-c']);
        expect(await q(index, 'metadata.title:anomalies~')).toEqual([]);
        expect(await q(index, 'flod~ -drougth~')).toEqual(['flood-a']);
        expect(await q(index, 'zzzzzz~ OR sahel')).toEqual(['drought-b']);
      });

      it('matches prefixes down to one letter, on all fields or on the title', async () => {
        const index = await corpus(make);
        expect(await q(index, 's*')).toEqual(['drought-b', 'flood-a']);
        expect(await q(index, 'metadata.title:s*')).toEqual(['drought-b']);
        expect(await q(index, 'nig* -metadata.title:flo*')).toEqual([]);
        expect(await q(index, 'indic* OR moist*')).toEqual(['drought-b', 'mixed-c']);
      });

      it('counts, facets and pages a fuzzy word of several expansions and a prefix of several words as the evaluator does, anonymous or signed in', async () => {
        const index = await make();
        const pad = (i: number) => String(i).padStart(2, '0');
        const types = [{ id: 'dataset', label: 'Dataset' }, { id: 'software', label: 'Software' }, null];
        // Expansions mostly apart, some in one document; titles that tie; some readable by `reader` only.
        const titles = ['Glacier survey', 'Glaciers survey', 'Glacial lakes', 'Glacier and glaciers', 'Survey of glacial glaciers', 'Sea ice'];
        const docs = Array.from({ length: 48 }, (_, i) =>
          doc(
            `g${pad(i)}`,
            {
              created: day(1 + ((i * 7) % 20)),
              resourceType: types[i % 3] ?? null,
              kind: i % 11 === 0 ? 'package' : 'resource',
              ...(i % 6 === 5 ? { isPublic: false, readers: ['owner', 'reader'], accessStatus: 'restricted' as const } : {}),
            },
            { title: titles[i % titles.length], description: i % 4 === 0 ? 'Glacial retreat of a glacier' : 'Field notes' },
          ),
        );
        await index.upsert(docs);
        const aggregations: SearchRequest['aggregations'] = ['resource_type', 'access_status', 'record_type'];
        for (const text of ['glacer~', 'glaciers~', 'glac*']) {
          const query = parseQuery(text);
          for (const viewerId of [null, 'reader']) {
            for (const facets of [undefined, { resource_type: ['dataset'] }]) {
              const filter = { ...PUBLIC, viewerId, ...(facets === undefined ? {} : { facets }) };
              const label = `${text} ${viewerId} ${JSON.stringify(facets)}`;
              const wanted = runSearch(docs, request({ q: text, filter, aggregations, size: 100 }), (d) => matchesQuery(query, d), null);
              expect(wanted.total, label).toBeGreaterThan(7);
              // Ranked: the engines order by their own relevance, so the pages are checked to cover every match once.
              const seen: string[] = [];
              for (let page = 1; page <= Math.ceil(wanted.total / 7) + 1; page++) {
                const r = await index.search(request({ q: text, filter, aggregations, sort: 'bestmatch', page, size: 7 }));
                expect({ label, total: r.total, aggregations: r.aggregations }).toEqual({ label, total: wanted.total, aggregations: wanted.aggregations });
                seen.push(...r.hits.map((h) => h.id));
              }
              expect(seen.sort(), label).toEqual(wanted.hits.map((h) => h.id).sort());
              const newest = await index.search(request({ q: text, filter, aggregations, page: 2, size: 7 }));
              expect(newest.hits.map((h) => h.id), label).toEqual(wanted.hits.slice(7, 14).map((h) => h.id));
            }
          }
        }
      });

      it('matches _exists_ on any path, its parents included, combined with the rest', async () => {
        const index = await corpus(make);
        expect(await q(index, '_exists_:metadata.creators.person_or_org.name')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, '_exists_:metadata.creators')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, '_exists_:metadata.creators.person_or_org.name.first')).toEqual([]);
        expect(await q(index, '_exists_:metadata.vers')).toEqual([]);
        expect(await q(index, 'NOT _exists_:metadata.version')).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, '_exists_:metadata.version OR niger')).toEqual(['drought-b', 'flood-a']);
        expect(await q(index, 'metadata.version:*')).toEqual(['drought-b']);
        await index.upsert([doc('nested-d', {}, { title: { en: 'Nested title' }, additional_titles: [] })]);
        expect(await q(index, '_exists_:metadata.title.en')).toEqual(['nested-d']);
        expect((await q(index, '_exists_:metadata.title')).length).toBe(4);
        // An empty list holds no value.
        expect(await q(index, '_exists_:metadata.additional_titles')).toEqual([]);
      });

      it('matches ranges on the date fields only, on the precision of each bound', async () => {
        const index = await corpus(make);
        expect(await q(index, 'metadata.publication_date:[2020 TO 2020]')).toEqual(['flood-a']);
        expect(await q(index, 'metadata.publication_date:{2020 TO 2024}')).toEqual(['drought-b']);
        expect(await q(index, 'metadata.publication_date:[2020-05 TO 2022-01}')).toEqual(['flood-a']);
        expect(await q(index, 'metadata.publication_date:[2023-06-01 TO *]')).toEqual(['mixed-c']);
        expect(await q(index, 'metadata.publication_date:[* TO *]')).toEqual(['drought-b', 'flood-a', 'mixed-c']);
        expect(await q(index, 'metadata.publication_date:[2030 TO 2040]')).toEqual([]);
        expect(await q(index, '-metadata.publication_date:[2021 TO *] OR metadata.publication_date:[2024 TO 2024]')).toEqual(['flood-a', 'mixed-c']);
        // Not a range field: nothing, whatever the values.
        expect(await q(index, 'metadata.title:[a TO z]')).toEqual([]);
        expect(await q(index, '[2020 TO 2024]')).toEqual([]);
      });

      it('answers ranges of every shape on every range field as the evaluator does, through rewrites and removals', async () => {
        const index = await make();
        // Dates at every precision, several per document, the fields outside the metadata, and
        // version indexes that are numbers, not numbers, and past a double's range.
        const dated = (id: string, over: Partial<SearchDocument>, values: { publication?: string; dates?: string[]; created?: string; updated?: string; index?: unknown }, title = 'Glacier survey') => {
          const base = doc(id, over, { title, ...(values.publication === undefined ? {} : { publication_date: values.publication }), dates: (values.dates ?? []).map((date) => ({ date, type: 'collected' })) });
          return { ...base, body: { ...base.body, ...(values.created === undefined ? {} : { created: values.created }), ...(values.updated === undefined ? {} : { updated: values.updated }), versions: { index: values.index } } };
        };
        const held = new Map<string, SearchDocument>();
        const write = async (docs: SearchDocument[]) => {
          await index.upsert(docs);
          for (const d of docs) held.set(d.key, d);
        };
        await write([
          dated('r01', {}, { publication: '2020', dates: ['2019-12-31', '2021-01'], created: '2020-12-31T23:59:59.999Z', updated: '2021-01-01T00:00:00.000Z', index: 1 }),
          dated('r02', {}, { publication: '2020-06', dates: ['2020-06-15'], created: '2021-01-01T00:00:00.000Z', index: 2 }, 'River flood'),
          dated('r03', {}, { publication: '2020-06-30', created: '2021-06-01T12:00:00.000Z', updated: '2022-02-02T00:00:00.000Z', index: 10 }),
          dated('r04', {}, { publication: '2021', dates: ['2010', '2030-01-01'], index: '3a' }, 'Glacier flood'),
          dated('r05', {}, { publication: '2021-12-31', created: '2019-01-01T00:00:00.000Z', index: -1.5 }),
          dated('r06', {}, { dates: ['2020'], index: 2.0 }, 'Sea ice'),
          dated('r07', {}, { publication: '2022-01-01T00:00:00Z', index: '1'.repeat(400) }),
          dated('r08', { isPublic: false }, { publication: '2020-01-01', index: 5 }),
          dated('r09', {}, { publication: 'abc', dates: ['2020-13'], index: 7 }, 'River survey'),
          dated('r10', {}, {}, 'Nothing dated'),
        ]);
        const queries = [
          'metadata.publication_date:[2020 TO 2020]', 'metadata.publication_date:{2020 TO 2021}', 'metadata.publication_date:[2020-06 TO 2021}',
          'metadata.publication_date:{2020-06 TO 2021-12-31]', 'metadata.publication_date:[2020-06-30 TO *]', 'metadata.publication_date:{* TO 2020-06}',
          'metadata.publication_date:[* TO *]', 'metadata.publication_date:{2021 TO *}', 'metadata.publication_date:[2022-01-01 TO 2022-01-01]',
          'metadata.dates.date:[2020 TO 2020]', 'metadata.dates.date:{2019-12-31 TO 2021-01}', 'metadata.dates.date:[2030 TO *]', 'metadata.dates.date:[2020-12 TO 2021]',
          'created:[2021 TO 2021]', 'created:{2020-12-31 TO *]', 'created:[* TO 2020-12-31T23:59:59.999Z}', 'updated:[2021-01-01 TO *]', 'updated:{* TO 2022]',
          'versions.index:[2 TO 5]', 'versions.index:{2 TO 10}', 'versions.index:[* TO 2]', 'versions.index:{-2 TO 1]', 'versions.index:[10 TO *]',
          'versions.index:[2 TO x]', 'versions.index:[a TO *]', `versions.index:[${'1'.repeat(400)} TO *]`, `versions.index:[* TO ${'1'.repeat(400)}}`,
          'metadata.title:[a TO z]', '[2020 TO 2024]', 'versions:[1 TO 2]',
          'glacier AND metadata.publication_date:[2021 TO *]', 'flood OR metadata.dates.date:[2020 TO 2020]', 'glacier -metadata.publication_date:[2021 TO *]',
          'NOT versions.index:[2 TO 5]', 'NOT (created:[2021 TO *] OR river)', 'surv* AND NOT metadata.dates.date:[* TO 2020]', 'glaceir~ AND versions.index:[1 TO 3]',
          '"glacier survey" OR versions.index:{5 TO *]', '_exists_:metadata.dates AND NOT metadata.dates.date:[2020 TO 2021]',
          '(metadata.title:glacier OR metadata.publication_date:[2020-06 TO 2020-06]) AND NOT (versions.index:[3 TO *] AND flood)',
          // Words and date ranges ANDed: whole months, months a bound cuts, values of their own
          // month (`2020`, `abc`), several values, several ranges, none in the range.
          'glacier AND metadata.publication_date:[2020-06 TO *]', 'glacier AND metadata.publication_date:[2020-06-15 TO 2021-12-31]',
          'glacier AND metadata.publication_date:[2020-06-30T TO 2021-12-30]', 'glacier AND metadata.publication_date:{2020-06-30 TO 2021-12-31}',
          // A month a bound cuts holding matches of the words on both sides of the bound.
          'glacier AND metadata.publication_date:[* TO 2020-06-15]', '(glacier OR flood) AND metadata.publication_date:[2020-06-20 TO 2021]',
          'survey AND metadata.dates.date:[2020 TO 2021-01]', 'survey AND metadata.dates.date:{2019-12-31 TO 2020-06-15}', 'survey AND metadata.dates.date:{2019-12-31 TO 2021-01]',
          'glacier AND created:[2021 TO *] AND metadata.publication_date:[* TO 2020-06-30]', 'NOT river AND metadata.publication_date:[2020 TO 2021]',
          '"glacier survey" AND metadata.publication_date:{2020 TO *]', 'river AND metadata.publication_date:[abc TO abd]', 'survey AND metadata.publication_date:[2020 TO 2020]',
          'glacier AND metadata.publication_date:[2050 TO *]', 'glacier AND updated:[2021-01-01T00:00:00.000Z TO 2022-02-02]', 'surv* AND metadata.dates.date:[2020-13 TO 2020-13]',
          '(glacier OR flood) AND metadata.publication_date:[2020-06 TO 2021] AND NOT versions.index:[3 TO *]', 'metadata.title:glacier AND metadata.dates.date:[2010 TO 2030-01-01]',
        ];
        const compare = async (label: string) => {
          for (const text of queries) {
            for (const filter of [PUBLIC, { ...PUBLIC, viewerId: 'owner' }]) {
              const asked = request({ q: text, filter, aggregations: ['access_status'], sort: text.includes('glacier') ? 'bestmatch' : 'oldest' });
              const query = parseQuery(text);
              const expected = runSearch(held.values(), asked, (d) => matchesQuery(query, d), null);
              const found = await index.search(asked);
              expect({ total: found.total, hits: found.hits.map((h) => h.id).sort(), aggregations: found.aggregations }, `${label}: ${text}`).toEqual({
                total: expected.total,
                hits: expected.hits.map((h) => h.id).sort(),
                aggregations: expected.aggregations,
              });
            }
          }
        };
        await compare('written');
        // The bounds a test could get wrong by one: precision and inclusion.
        expect(await q(index, 'metadata.publication_date:[2020 TO 2020]')).toEqual(['r01', 'r02', 'r03']);
        expect(await q(index, 'metadata.publication_date:{2020 TO 2021]')).toEqual(['r04', 'r05']);
        expect(await q(index, 'versions.index:[2 TO 10}')).toEqual(['r02', 'r06', 'r09']);
        await write([
          dated('r01', {}, { publication: '2024', index: 4 }),
          dated('r04', {}, { publication: '2020-02', dates: ['2020-02-02'], created: '2021-03-03T00:00:00.000Z', index: 3 }, 'Glacier flood'),
        ]);
        await index.remove(['published:r03', 'published:r06']);
        held.delete('published:r03');
        held.delete('published:r06');
        await compare('rewritten');
        expect(await q(index, 'metadata.publication_date:[2020 TO 2020]')).toEqual(['r02', 'r04']);
      });

      it('answers deep nesting, unclosed groups and long queries with the same plain-word fallback everywhere', async () => {
        const index = await corpus(make);
        let deep = 'flood';
        for (let i = 0; i < 20; i++) deep = `(${deep} ${i % 2 === 0 ? 'OR' : 'AND'} delta)`;
        expect(await q(index, deep)).toEqual(['flood-a']);
        expect(await q(index, '(flood '.repeat(20))).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, '(niger OR (drought AND (sahel OR (soil AND (moisture)))))')).toEqual(['drought-b', 'flood-a']);
        const many = Array.from({ length: 40 }, (_, i) => `flood${i}~`).join(' OR ');
        expect(await q(index, many)).toEqual([]);
        expect(await q(index, `flood ${'"'.repeat(3)}`)).toEqual(['flood-a', 'mixed-c']);
        expect(await q(index, 'sahel '.repeat(500))).toEqual(['drought-b']);
      });
    });

    describe('field queries, as the domain evaluator decides them', () => {
      /**
       * Values side by side in one array, one path ending where the next begins, nested arrays, a
       * path holding values of its own beside members that hold others: where a field index
       * that let values run together, or a span off by one, would answer otherwise.
       */
      const fielded = (): SearchDocument[] => [
        doc('fa', {}, {
          title: 'Sea level',
          description: 'Glacier retreat near the sea',
          version: 'ice shelf',
          subjects: [{ subject: 'sea' }, { subject: 'ice' }],
          keywords: ['alpha beta', 'gamma'],
          creators: [{ person_or_org: { name: 'Smith, John' } }, { person_or_org: { name: 'Doe, Jane' } }],
        }),
        doc('fb', {}, {
          title: 'Ice cores',
          description: 'Sea ice thickness from glacial cores',
          subjects: [{ subject: 'sea ice' }],
          keywords: ['beta gamma'],
          creators: [{ person_or_org: { name: 'Doe, John' } }, { person_or_org: { name: 'Smyth, Anna' } }],
        }),
        doc('fc', {}, {
          title: 'Flood maps of the sea',
          description: 'Flooding and sea level',
          subjects: ['plain ice', { subject: 'hidden' }, { subject: 'ice plain' }],
          keywords: ['gamma', 'alpha'],
          creators: [{ person_or_org: { name: 'Jane Smith' } }],
        }),
        doc('fd', {}, {
          title: 'Hidden subjects',
          description: 'Nothing about the cold',
          subjects: [{ subject: 'hidden glacier' }],
          creators: [{ person_or_org: { name: 'Müller, Eva' } }],
        }),
        // Values of its own with no words beside a member's: the field's own values, none, count.
        doc('fe', {}, {
          title: 'Marks only',
          description: 'Sea',
          subjects: ['--', { subject: 'ice' }],
        }),
      ];
      const QUERIES = [
        'metadata.description:sea',
        'metadata.description:the',
        'metadata.description:flood',
        'metadata.title:sea',
        'metadata.title:ice',
        'metadata.subjects.subject:"sea ice"',
        'metadata.subjects.subject:sea',
        'metadata.subjects:"sea ice"',
        'metadata.subjects:hidden',
        'metadata.subjects:ice',
        'metadata.subjects.subject:hidden',
        'metadata.keywords:"beta gamma"',
        'metadata.keywords:"alpha beta"',
        'metadata.keywords:"gamma alpha"',
        'metadata.description:"the sea"',
        'metadata.description:"sea ice"',
        'metadata.description:"sea glacier"',
        'metadata.creators.person_or_org.name:smith',
        'metadata.creators.person_or_org.name:"john doe"',
        'metadata.creators.person_or_org.name:"smith john"',
        'metadata.creators.person_or_org.name:"doe john"',
        'metadata.creators.person_or_org.name:muller',
        'metadata.creators:smith',
        'metadata.creators.person_or_org:jane',
        'metadata:hidden',
        'metadata:"sea level"',
        'metadata.description:glac*',
        'metadata.description:gla',
        'metadata.description:sea-glac*',
        'metadata.subjects.subject:hid*',
        'metadata.creators.person_or_org.name:smyth~',
        'metadata.description:glaciar~',
        'metadata.description:flodding~',
        'metadata.creators.person_or_org.name:smith AND metadata.creators.person_or_org.name:john',
        'metadata.creators.person_or_org.name:smith OR metadata.subjects.subject:hidden',
        'metadata.description:sea AND NOT metadata.title:sea',
        'NOT metadata.description:sea',
        'metadata.description:sea -metadata.keywords:gamma',
        'cores AND metadata.creators.person_or_org.name:doe',
        'metadata.description:sea OR metadata.publication_date:[2020 TO *]',
        '(metadata.keywords:alpha OR metadata.keywords:beta) AND NOT metadata.subjects:ice',
        'metadata.version:shelf',
        'metadata.version:"sea ice"',
        'metadata.nothing:sea',
        'metadata.descr:sea',
        'id:fb',
        // No words: the evaluator's own rules for those.
        'metadata.description:--',
        'metadata.description:"--"',
        'metadata.keywords:(-- OR gamma)',
        'metadata.subjects:"--"',
        // Words of one term in different values of a path, or in different paths below a field.
        'metadata.creators.person_or_org.name:smith-jane',
        'metadata.creators:doe-smyth',
        'metadata.subjects:(sea ice)',
        // Prefixes, fuzzy words and phrases on the paths below a field, and on a path holding
        // values of its own beside members.
        'metadata.creators:smi*',
        'metadata.creators:smyth~',
        'metadata:glacer~',
        'metadata.subjects:hid*',
        'metadata.subjects:hiden~',
        'metadata.subjects:ic*',
        'metadata.subjects:"plain ice"',
        'metadata.subjects:"hidden glacier"',
        'metadata.subjects:"ice plain"',
        'metadata.creators.person_or_org.name:"muller eva"',
        'metadata.subjects:hidden OR metadata.subjects:ice',
        'NOT metadata.subjects:ice',
      ];

      it('finds on each field, phrase, prefix, fuzzy word and boolean what the evaluator finds, values kept apart', async () => {
        const index = await make();
        const docs = fielded();
        await index.upsert(docs);
        await expectEvaluated(index, docs, QUERIES);
        // The evaluator's answers are the ones meant: values and paths never run together.
        expect(expected(docs, 'metadata.subjects.subject:"sea ice"')).toEqual(['fb']);
        expect(expected(docs, 'metadata.keywords:"beta gamma"')).toEqual(['fb']);
        expect(expected(docs, 'metadata.description:"sea ice"')).toEqual(['fb']);
        expect(expected(docs, 'metadata.creators.person_or_org.name:"john doe"')).toEqual([]);
        expect(expected(docs, 'metadata.subjects:hidden')).toEqual(['fd']);
        expect(expected(docs, 'metadata.version:"sea ice"')).toEqual([]);
        expect(expected(docs, 'metadata.subjects:ice')).toEqual(['fa', 'fb', 'fc']);
      });

      it('answers field queries after rewrites and removals as the evaluator does on what is left', async () => {
        const index = await make();
        const docs = fielded();
        await index.upsert(docs);
        const changed = doc('fa', {}, {
          title: 'Sea level',
          description: 'Retreat of the ice',
          subjects: ['cold', { subject: 'hidden sea' }],
          keywords: ['gamma alpha'],
          creators: [{ person_or_org: { name: 'Jones, Jane' } }],
        });
        // The one path holding both now holds its members alone.
        const unmixed = doc('fe', {}, { title: 'Marks only', description: 'Sea', subjects: [{ subject: 'ice' }] });
        await index.upsert([changed, unmixed]);
        await index.remove(['published:fd']);
        const left = [changed, unmixed, ...docs.filter((d) => !['fa', 'fd', 'fe'].includes(d.id))];
        await expectEvaluated(index, left, QUERIES);
        expect(await q(index, 'metadata.creators.person_or_org.name:smith')).toEqual(['fc']);
        expect(await q(index, 'metadata.subjects:hidden')).toEqual([]);
        expect(await q(index, 'metadata.subjects:ice')).toEqual(['fb', 'fc', 'fe']);
      });
    });

    describe('values kept apart, as the evaluator keeps them', () => {
      /**
       * A title that is an object of languages, values side by side in lists and from one path to
       * the next, dates nested under a range field, version indexes that are not numbers: where an
       * index that joins values, reads only a field's own values or skips what is not a number
       * would answer otherwise than the evaluator.
       */
      const apart = (): SearchDocument[] => {
        const versioned = (id: string, index: unknown, metadata: { [key: string]: unknown }): SearchDocument => {
          const base = doc(id, {}, metadata);
          return { ...base, body: { ...base.body, versions: { index } } };
        };
        return [
          versioned('ta', 1, { title: { en: 'Glacier mass balance', fr: 'Bilan de masse' }, keywords: ['ice sheet', 'melt water'], description: 'Balance of the ice' }),
          versioned('tb', '3a', { title: ['Sheet melt', 'Water balance'], keywords: ['sheet melt'], publication_date: { start: '2020-01-01', end: '2020-12-31' } }),
          versioned('tc', { number: 2 }, { title: 'Levels of the sea', description: 'Sea level rise', dates: [{ date: { start: '2020-05-01' } }, { date: '2021-02' }] }),
          versioned('td', 'draft', { title: 'Melt season', subjects: [{ subject: 'balance' }, { subject: 'sheet ice' }], publication_date: '2020-06' }),
          // Words outside ASCII as the domain's tokenizer makes them: Hangul decomposed, a private-use character between two words.
          versioned('te', 2, { title: 'Données 한국어', description: 'melt\u{E001}water ÉTÉ' }),
          // A key holding a dot and a nested key make one path: both values are its.
          doc('tf', {}, { title: 'Keys', custom: { 'a.b': 'dotted key', a: { b: 'nested key' } } }),
        ];
      };
      const QUERIES = [
        'metadata.title:glacier', 'metadata.title:"mass balance"', 'metadata.title:"balance bilan"', 'metadata.title:bil*', 'metadata.title:glaciar~',
        'metadata.title:masse', 'metadata.title:(glacier OR season)', 'metadata.title:balance -metadata.title:water', 'metadata.title.en:balance',
        '"sheet melt"', '"ice sheet"', '"sheet melt water"', '"melt water"', '"balance balance"', '"balance sheet"', '"sea level"', '"sea levels"', '"levels sea"',
        '"bilan de masse"', '"masse balance"', 'metadata.keywords:"sheet melt"', 'metadata.title:"melt water"', 'metadata.title:"sheet melt"',
        'lev-se*', 'sea-lev*', 'metadata.title:lev-se*', 'metadata.title:sea-lev*', 'metadata.title:mel-she*', 'metadata.keywords:mel-she*', 'metadata.description:lev-se*',
        'metadata.publication_date:[2020 TO 2020]', 'metadata.publication_date:[* TO *]', 'metadata.dates.date:[2020 TO 2021]', 'metadata.dates.date:[* TO *]',
        'dotted', 'nested', '"dotted key"', '"key nested"', 'metadata.custom.a.b:dotted', 'metadata.custom.a.b:nested', 'metadata.custom.a:dotted', '_exists_:metadata.custom.a.b',
        '한국*', '한국어', 'donnees', 'metadata.title:donn*', 'water', 'metadata.description:melt', 'ete',
        'versions.index:[* TO *]', 'versions.index:{* TO *}', 'versions.index:[* TO 5]', 'versions.index:[1 TO *]', 'NOT versions.index:[* TO *]', 'melt AND versions.index:[* TO *]',
      ];

      it('searches the members of an object-valued title as the title, and never runs a phrase from one value into the next', async () => {
        const index = await make();
        const docs = apart();
        await index.upsert(docs);
        await expectEvaluated(index, docs, QUERIES);
        // The evaluator's answers are the ones meant.
        expect(expected(docs, 'metadata.title:glacier')).toEqual(['ta']);
        expect(expected(docs, 'metadata.title:"balance bilan"')).toEqual([]);
        expect(expected(docs, '"sheet melt water"')).toEqual([]);
        expect(expected(docs, '"melt water"')).toEqual(['ta', 'te']);
        expect(expected(docs, '"balance sheet"')).toEqual([]);
        expect(expected(docs, '"sea level"')).toEqual(['tc']);
        expect(expected(docs, '"levels sea"')).toEqual([]);
        expect(expected(docs, 'metadata.title:"melt water"')).toEqual([]);
        expect(expected(docs, 'metadata.title:lev-se*')).toEqual(['tc']);
        expect(expected(docs, '한국*')).toEqual(['te']);
        expect(expected(docs, 'dotted')).toEqual(['tf']);
        expect(expected(docs, 'metadata.custom.a.b:dotted')).toEqual(['tf']);
      });

      it('reads a range field\'s own values only, and takes every value of an open range', async () => {
        const index = await make();
        const docs = apart();
        await index.upsert(docs);
        await expectEvaluated(index, docs, QUERIES.filter((t) => t.includes(' TO ')));
        // Values nested under a range field are not its values, as in an index that maps the field as a date.
        expect(expected(docs, 'metadata.publication_date:[* TO *]')).toEqual(['td']);
        expect(expected(docs, 'metadata.dates.date:[2020 TO 2021]')).toEqual(['tc']);
        expect(expected(docs, 'metadata.dates.date:[2020 TO 2020]')).toEqual([]);
        // An open range takes any value the field holds, a number or not; a bound compares numbers only.
        expect(expected(docs, 'versions.index:[* TO *]')).toEqual(['ta', 'tb', 'td', 'te']);
        expect(expected(docs, 'versions.index:[* TO 5]')).toEqual(['ta', 'te']);
      });

      it('answers seeded random queries on seeded random documents as the evaluator does', async () => {
        const index = await make();
        const { document, query } = randomSearch(seeded(1));
        const docs = Array.from({ length: 60 }, (_, i) => document(i));
        await index.upsert(docs);
        const departures: { text: string; ids: string[]; evaluated: string[] }[] = [];
        for (let i = 0; i < 300; i++) {
          const text = query();
          const [found, wanted] = [await q(index, text), expected(docs, text)];
          if (found.join() !== wanted.join()) departures.push({ text, ids: found, evaluated: wanted });
        }
        expect(departures).toEqual([]);
      }, 60_000);
    });

    describe('filters and visibility', () => {
      async function listings(make2: () => Promise<SearchIndex>) {
        const index = await make2();
        await index.upsert([
          // One parent, three versions: v1 published (old), v2 published (latest), v3 a draft.
          doc('v1', { parentId: 'p1', versionIndex: 1, isLatest: false, inUserListing: true, isUserLatest: false, created: day(1) }),
          doc('v2', { parentId: 'p1', versionIndex: 2, isLatest: true, inUserListing: true, isUserLatest: false, created: day(2) }),
          doc('v3', { parentId: 'p1', state: 'draft', versionIndex: 3, inUserListing: true, isUserLatest: true, created: day(3) }),
          // An edit draft of v2 hides v2 in the owner's listing: both documents exist.
          doc('pkg', { kind: 'package', resourceType: { id: 'knowledge', label: 'Knowledge' }, created: day(4) }),
          doc('secret', { isPublic: false, readers: ['owner', 'manager'], accessStatus: 'restricted', created: day(5) }),
          doc('others', { ownerId: 'someone', readers: ['someone'], isPublic: false, accessStatus: 'restricted', created: day(6) }),
          doc('their-draft', { state: 'draft', ownerId: 'someone', readers: ['someone'], created: day(7) }),
        ]);
        return index;
      }

      it('shows anonymous callers only public published latest versions', async () => {
        const index = await listings(make);
        expect(await ids(index)).toEqual(['pkg', 'v2']);
        expect(await ids(index, { filter: { kinds: ['resource', 'package'], published: true, viewerId: null } })).toEqual(['pkg', 'v1', 'v2']);
      });

      it('shows a signed-in caller also what lists them as a reader', async () => {
        const index = await listings(make);
        expect(await ids(index, { filter: { ...PUBLIC, viewerId: 'owner' } })).toEqual(['pkg', 'secret', 'v2']);
        expect(await ids(index, { filter: { ...PUBLIC, viewerId: 'manager' } })).toEqual(['pkg', 'secret', 'v2']);
        expect(await ids(index, { filter: { ...PUBLIC, viewerId: 'someone' } })).toEqual(['others', 'pkg', 'v2']);
        expect(await ids(index, { filter: { ...PUBLIC, viewerId: 'stranger' } })).toEqual(['pkg', 'v2']);
      });

      it('filters by kind and by state', async () => {
        const index = await listings(make);
        expect(await ids(index, { filter: { ...PUBLIC, kinds: ['package'] } })).toEqual(['pkg']);
        expect(await ids(index, { filter: { ...PUBLIC, kinds: [] } })).toEqual([]);
        expect(await ids(index, { filter: { kinds: ['resource'], published: false, viewerId: 'owner' } })).toEqual(['v3']);
        expect(await ids(index, { filter: { kinds: ['resource'], viewerId: 'someone' } })).toEqual(['others', 'their-draft', 'v1', 'v2']);
      });

      it("lists an owner's documents, latest per parent unless all versions are asked for", async () => {
        const index = await listings(make);
        const mine = (allVersions: boolean) => ({ kinds: ['resource' as const, 'package' as const], userListing: { ownerId: 'owner', allVersions }, viewerId: 'owner' });
        expect(await ids(index, { filter: mine(false) })).toEqual(['pkg', 'secret', 'v3']);
        expect(await ids(index, { filter: mine(true) })).toEqual(['pkg', 'secret', 'v1', 'v2', 'v3']);
        expect(await ids(index, { filter: { ...mine(false), userListing: { ownerId: 'someone', allVersions: false }, viewerId: 'someone' } })).toEqual(['others', 'their-draft']);
      });

      it('filters by parent and by ids', async () => {
        const index = await listings(make);
        expect(await ids(index, { filter: { kinds: ['resource'], published: true, parentId: 'p1', viewerId: null } })).toEqual(['v1', 'v2']);
        expect(await ids(index, { filter: { ...PUBLIC, ids: ['v2', 'pkg', 'secret', 'nope'] } })).toEqual(['pkg', 'v2']);
        expect(await ids(index, { filter: { ...PUBLIC, ids: [] } })).toEqual([]);
      });

      it('applies filters together with a query', async () => {
        const index = await listings(make);
        expect(await ids(index, { q: 'record', filter: { ...PUBLIC, viewerId: 'owner' } })).toEqual(['pkg', 'secret', 'v2']);
        expect(await ids(index, { q: 'v1 OR secret OR others', filter: PUBLIC })).toEqual([]);
      });
    });

    describe('facets', () => {
      async function faceted(make2: () => Promise<SearchIndex>) {
        const index = await make2();
        await index.upsert([
          doc('d1', { created: day(1) }, { title: 'Glacier mass balance' }),
          doc('d2', { created: day(2), accessStatus: 'embargoed' }, { title: 'Glacier velocity' }),
          doc('s1', { created: day(3), resourceType: { id: 'software', label: 'Software' } }, { title: 'Glacier model code' }),
          doc('k1', { created: day(4), kind: 'package', resourceType: { id: 'knowledge', label: 'Knowledge' }, accessStatus: 'metadata-only' }, { title: 'Sea ice package' }),
          doc('n1', { created: day(5), resourceType: null }, { title: 'Untyped glacier notes' }),
          doc('hidden', { created: day(6), isPublic: false, readers: ['owner'], accessStatus: 'restricted', resourceType: { id: 'secret-type', label: 'Secret' } }, { title: 'Glacier secret' }),
        ]);
        return index;
      }
      const all: SearchRequest['aggregations'] = ['resource_type', 'access_status', 'record_type'];

      it('counts buckets with labels, largest first then by key, only the facets asked for', async () => {
        const index = await faceted(make);
        const r = await index.search(request({ aggregations: all }));
        expect(r.total).toBe(5);
        expect(buckets(r.aggregations.resource_type)).toEqual([
          ['dataset', 2, 'Dataset'],
          ['knowledge', 1, 'Knowledge'],
          ['software', 1, 'Software'],
        ]);
        expect(buckets(r.aggregations.access_status)).toEqual([
          ['open', 3, 'Open'],
          ['embargoed', 1, 'Embargoed'],
          ['metadata-only', 1, 'Metadata only'],
        ]);
        expect(buckets(r.aggregations.record_type)).toEqual([
          ['resource', 4, 'Knowledge Resource'],
          ['package', 1, 'Knowledge Package'],
        ]);
        const some = await index.search(request({ aggregations: ['record_type'] }));
        expect(Object.keys(some.aggregations)).toEqual(['record_type']);
        expect((await index.search(request())).aggregations).toEqual({});
      });

      it('never counts documents the viewer may not read', async () => {
        const index = await faceted(make);
        const anonymous = await index.search(request({ aggregations: all }));
        expect(anonymous.aggregations.resource_type?.some((b) => b.key === 'secret-type')).toBe(false);
        expect(anonymous.aggregations.access_status?.some((b) => b.key === 'restricted')).toBe(false);
        const owner = await index.search(request({ aggregations: all, filter: { ...PUBLIC, viewerId: 'owner' } }));
        expect(buckets(owner.aggregations.access_status)).toContainEqual(['restricted', 1, 'Restricted']);
        expect(owner.total).toBe(6);
      });

      it('counts what the query and the box leave', async () => {
        const index = await faceted(make);
        const r = await index.search(request({ q: 'glacier', aggregations: all }));
        expect(r.total).toBe(4);
        expect(buckets(r.aggregations.record_type)).toEqual([['resource', 4, 'Knowledge Resource']]);
        await index.upsert([doc('boxed', { created: day(9), bounds: [[10, 10, 11, 11]], resourceType: { id: 'software', label: 'Software' } }, { title: 'Glacier boxed' })]);
        const boxed = await index.search(request({ bbox: [0, 0, 20, 20], aggregations: ['resource_type'] }));
        expect(buckets(boxed.aggregations.resource_type)).toEqual([['software', 1, 'Software']]);
      });

      it('filters OR within a facet and AND across facets; counts ignore the facet filters themselves', async () => {
        const index = await faceted(make);
        const facets = (f: SearchFilter['facets']) => request({ aggregations: all, filter: { ...PUBLIC, facets: f } });
        expect(await ids(index, facets({ resource_type: ['dataset'] }))).toEqual(['d1', 'd2']);
        expect(await ids(index, facets({ resource_type: ['dataset', 'software'] }))).toEqual(['d1', 'd2', 's1']);
        expect(await ids(index, facets({ resource_type: ['dataset', 'software'], access_status: ['open'] }))).toEqual(['d1', 's1']);
        expect(await ids(index, facets({ record_type: ['package'] }))).toEqual(['k1']);
        expect(await ids(index, facets({ record_type: ['package'], resource_type: ['dataset'] }))).toEqual([]);
        expect(await ids(index, facets({ resource_type: ['nothing'] }))).toEqual([]);
        expect(await ids(index, facets({ resource_type: [] }))).toEqual(['d1', 'd2', 'k1', 'n1', 's1']);
        const r = await index.search(facets({ record_type: ['package'] }));
        expect(r.total).toBe(1);
        // As InvenioRDM's post_filter: a selected facet still shows its alternatives.
        expect(buckets(r.aggregations.record_type)).toEqual([
          ['resource', 4, 'Knowledge Resource'],
          ['package', 1, 'Knowledge Package'],
        ]);
        // Filters on two facets: the total is what both leave, each facet's buckets count every match.
        const both = await index.search(facets({ resource_type: ['dataset', 'software'], access_status: ['open'] }));
        expect(both.total).toBe(2);
        expect(buckets(both.aggregations.access_status)?.map(([key, count]) => [key, count])).toEqual([
          ['open', 3],
          ['embargoed', 1],
          ['metadata-only', 1],
        ]);
        expect(buckets(both.aggregations.resource_type)?.map(([key, count]) => [key, count])).toEqual([
          ['dataset', 2],
          ['knowledge', 1],
          ['software', 1],
        ]);
      });

      it('pages and totals after facet filters', async () => {
        const index = await faceted(make);
        const r = await index.search(request({ size: 1, page: 2, sort: 'oldest', filter: { ...PUBLIC, facets: { resource_type: ['dataset', 'software'] } } }));
        expect(r.total).toBe(3);
        expect(r.hits.map((h) => h.id)).toEqual(['d2']);
      });
    });

    describe('bounding boxes', () => {
      async function mapped(make2: () => Promise<SearchIndex>) {
        const index = await make2();
        await index.upsert([
          doc('fiji', { bounds: [[178, -18, 179, -17]] }),
          doc('samoa', { bounds: [[-172.8, -14.1, -171.4, -13.4]], resourceType: { id: 'software', label: 'Software' } }),
          doc('paris', { bounds: [[2.3, 48.8, 2.4, 48.9]] }, { title: 'Paris heat' }),
          // Two parts far apart: matched by either, not by the space between them.
          doc('two-parts', { bounds: [[-75, 40, -73, 41], [139, 35, 140, 36]] }),
          doc('nowhere'),
        ]);
        return index;
      }

      it('matches documents with any part inside or across the box, edges included', async () => {
        const index = await mapped(make);
        expect(await ids(index, { bbox: [0, 40, 10, 50] })).toEqual(['paris']);
        expect(await ids(index, { bbox: [2.4, 48.9, 3, 50] })).toEqual(['paris']);
        expect(await ids(index, { bbox: [2.35, 48.85, 2.36, 48.86] })).toEqual(['paris']);
        expect(await ids(index, { bbox: [130, 30, 145, 40] })).toEqual(['two-parts']);
        expect(await ids(index, { bbox: [-80, 38, -70, 42] })).toEqual(['two-parts']);
        expect(await ids(index, { bbox: [0, 0, 100, 30] })).toEqual([]);
        expect(await ids(index, { bbox: [-180, -90, 180, 90] })).toEqual(['fiji', 'paris', 'samoa', 'two-parts']);
      });

      it('handles a box crossing the antimeridian', async () => {
        const index = await mapped(make);
        const pacific: BBox = [170, -30, -170, -10];
        expect(await ids(index, { bbox: pacific })).toEqual(['fiji', 'samoa']);
        expect(await ids(index, { bbox: [179.5, -30, -173, -10] })).toEqual([]);
      });

      async function shaped(make2: () => Promise<SearchIndex>) {
        const index = await make2();
        await index.upsert([
          // A rough Alps outline: a 1° box inside it holds none of its vertices or edges.
          placed('alps', { type: 'Polygon', coordinates: [ring([5.5, 44], [16.5, 46.2], [14, 48], [8, 47.9], [5.7, 46.4])] }),
          placed('donut', { type: 'Polygon', coordinates: [square(20, 0, 30, 10), square(23, 3, 27, 7)] }),
          placed('islands', { type: 'MultiPolygon', coordinates: [[square(40, 0, 41, 1)], [square(48, 8, 49, 9)]] }),
          placed('diagonal', { type: 'LineString', coordinates: [[60, 10], [70, 0]] }),
          placed('fiji', { type: 'Polygon', coordinates: [square(177, -19, 179.9, -16)] }),
          placed('mixed', { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [100, 50] }, { type: 'LineString', coordinates: [[110, 40], [120, 40]] }] }),
        ]);
        return index;
      }

      it('finds a polygon that contains the whole box, and one inside the box', async () => {
        const index = await shaped(make);
        expect(await ids(index, { bbox: [9.5, 46, 10.5, 47] })).toEqual(['alps']);
        expect(await ids(index, { bbox: [0, 40, 20, 50] })).toEqual(['alps']);
        // Crossed by the south edge, no vertex inside the box.
        expect(await ids(index, { bbox: [10, 44.5, 11, 45.5] })).toEqual(['alps']);
      });

      it('misses a polygon whose bounds meet the box but whose area does not', async () => {
        const index = await shaped(make);
        expect(await ids(index, { bbox: [15, 44, 16, 44.5] })).toEqual([]);
        expect(await ids(index, { bbox: [66, 6, 69, 9] })).toEqual([]);
        expect(await ids(index, { bbox: [64, 4, 66, 6] })).toEqual(['diagonal']);
      });

      it('misses a box inside a hole, finds one across the hole edge or in the ring', async () => {
        const index = await shaped(make);
        expect(await ids(index, { bbox: [24, 4, 26, 6] })).toEqual([]);
        expect(await ids(index, { bbox: [24, 4, 28, 6] })).toEqual(['donut']);
        expect(await ids(index, { bbox: [21, 1, 22, 2] })).toEqual(['donut']);
      });

      it('decides each part of a multi-polygon and a geometry collection on its own', async () => {
        const index = await shaped(make);
        expect(await ids(index, { bbox: [44, 4, 45, 5] })).toEqual([]);
        expect(await ids(index, { bbox: [48.5, 8.5, 50, 10] })).toEqual(['islands']);
        expect(await ids(index, { bbox: [105, 42, 115, 45] })).toEqual([]);
        expect(await ids(index, { bbox: [105, 35, 115, 45] })).toEqual(['mixed']);
        expect(await ids(index, { bbox: [99, 49, 101, 51] })).toEqual(['mixed']);
      });

      it('decides exactly across the antimeridian', async () => {
        const index = await shaped(make);
        expect(await ids(index, { bbox: [178, -20, -171, -10] })).toEqual(['fiji']);
        expect(await ids(index, { bbox: [179.95, -20, -171, -10] })).toEqual([]);
      });

      it('forgets the shape of a replaced or removed document', async () => {
        const index = await shaped(make);
        await index.upsert([placed('alps', { type: 'Point', coordinates: [0, 0] })]);
        expect(await ids(index, { bbox: [9.5, 46, 10.5, 47] })).toEqual([]);
        await index.remove(['published:donut']);
        expect(await ids(index, { bbox: [21, 1, 22, 2] })).toEqual([]);
      });

      it('combines the box with a query and facet filters', async () => {
        const index = await mapped(make);
        const pacific: BBox = [170, -30, -170, -10];
        expect(await ids(index, { bbox: pacific, filter: { ...PUBLIC, facets: { resource_type: ['software'] } } })).toEqual(['samoa']);
        expect(await ids(index, { bbox: [-180, -90, 180, 90], q: 'heat' })).toEqual(['paris']);
        expect(await ids(index, { bbox: pacific, q: 'heat' })).toEqual([]);
      });
    });

    describe('sorting and paging', () => {
      async function dated(make2: () => Promise<SearchIndex>) {
        const index = await make2();
        await index.upsert([
          doc('b', { created: day(2), updated: day(9), versionIndex: 3 }),
          doc('a', { created: day(2), updated: day(8), versionIndex: 1 }),
          doc('c', { created: day(1), updated: day(7), versionIndex: 2 }),
          doc('d', { created: day(3), updated: day(6), versionIndex: 4 }),
        ]);
        return index;
      }

      it('sorts by every option, breaking ties by id', async () => {
        const index = await dated(make);
        expect(await ordered(index, { sort: 'newest' })).toEqual(['d', 'a', 'b', 'c']);
        expect(await ordered(index, { sort: 'oldest' })).toEqual(['c', 'a', 'b', 'd']);
        expect(await ordered(index, { sort: 'version' })).toEqual(['d', 'b', 'c', 'a']);
        expect(await ordered(index, { sort: 'updated-desc' })).toEqual(['b', 'a', 'c', 'd']);
        expect(await ordered(index, { sort: 'updated-asc' })).toEqual(['d', 'c', 'a', 'b']);
      });

      it('sorts bestmatch by relevance with a query, and as newest without one', async () => {
        const index = await make();
        await index.upsert([
          doc('weak', { created: day(5) }, { title: 'Coastal erosion study', description: 'A long report that mentions a glacier once among many other words about coasts and sand.' }),
          doc('strong', { created: day(1) }, { title: 'Glacier retreat', description: 'Glacier retreat measured from glacier outlines.' }),
          doc('none', { created: day(3) }, { title: 'Sand dunes' }),
        ]);
        expect(await ordered(index, { sort: 'bestmatch', q: 'glacier' })).toEqual(['strong', 'weak']);
        expect(await ordered(index, { sort: 'bestmatch' })).toEqual(['weak', 'none', 'strong']);
        expect(await ordered(index, { sort: 'bestmatch', q: '-glacier' })).toEqual(['none']);
        expect(await ordered(index, { sort: 'newest', q: 'glacier' })).toEqual(['weak', 'strong']);
      });

      it('orders equal relevance as newest then by id, across pages, past better matches the viewer may not see', async () => {
        const index = await make();
        const pad = (i: number) => String(i).padStart(3, '0');
        const hidden = Array.from({ length: 120 }, (_, i) => doc(`h${pad(i)}`, { isPublic: false, readers: ['someone'] }, { title: 'Glacier glacier glacier' }));
        const shown = Array.from({ length: 30 }, (_, i) => doc(`s${pad(i)}`, { created: day(1 + (i % 10)) }, { title: 'Glacier survey' }));
        await index.upsert([...hidden, ...shown]);
        const expected = [...shown].sort((a, b) => (a.created !== b.created ? (a.created < b.created ? 1 : -1) : a.id < b.id ? -1 : 1)).map((d) => d.id);
        const seen: string[] = [];
        for (let page = 1; page <= 3; page++) seen.push(...(await ordered(index, { sort: 'bestmatch', q: 'glacier', page, size: 10 })));
        expect(seen).toEqual(expected);
        expect((await index.search(request({ sort: 'bestmatch', q: 'glacier', filter: { ...PUBLIC, viewerId: 'someone' }, size: 1 }))).hits[0]?.id).toMatch(/^h/);
      });

      it('orders more equally relevant hits than one read of the best holds as newest, then by id', async () => {
        const index = await make();
        const pad = (i: number) => String(i).padStart(3, '0');
        // Same words, same length: one score for all; creation days scrambled, some shared.
        const docs = Array.from({ length: 150 }, (_, i) => doc(`t${pad((i * 37) % 150)}`, { created: day(1 + ((i * 11) % 28)) }, { title: 'Glacier survey' }));
        await index.upsert(docs);
        const expected = [...docs].sort((a, b) => (a.created !== b.created ? (a.created < b.created ? 1 : -1) : a.id < b.id ? -1 : 1)).map((d) => d.id);
        for (const [page, size] of [
          [1, 10],
          [2, 10],
          [1, 70],
        ] as const)
          expect(await ordered(index, { sort: 'bestmatch', q: 'glacier', page, size })).toEqual(expected.slice((page - 1) * size, page * size));
      });

      it('orders a field query\'s matches as the evaluator does: title matches first, then by length, ties as newest then by id', async () => {
        const index = await make();
        const pad = (i: number) => String(i).padStart(3, '0');
        // The field holds the word once in each; the title of one holds it too, one is long, the rest tie.
        const docs = [
          doc('weak', { created: day(28) }, { title: 'Coastal erosion study', description: 'A long report that mentions a glacier once among many other words about coasts and sand.' }),
          doc('strong', { created: day(1) }, { title: 'Glacier retreat', description: 'Glacier outlines.' }),
          ...Array.from({ length: 40 }, (_, i) => doc(`t${pad((i * 17) % 40)}`, { created: day(1 + ((i * 11) % 27)) }, { title: 'Survey', description: 'Glacier survey' })),
        ];
        await index.upsert(docs);
        for (const text of ['metadata.description:glacier', 'metadata.description:glac*']) {
          const query = parseQuery(text);
          const expected = runSearch(docs, request({ q: text, size: 100, sort: 'bestmatch' }), (d) => matchesQuery(query, d), (d) => scoreQuery(query, d)).hits.map((h) => h.id);
          expect(expected[0]).toBe('strong');
          expect(expected[expected.length - 1]).toBe('weak');
          for (const [page, size] of [[1, 10], [2, 10], [1, 100]] as const) {
            expect(await ordered(index, { sort: 'bestmatch', q: text, page, size }), `${text} page ${page} of ${size}`).toEqual(expected.slice((page - 1) * size, page * size));
          }
        }
      });

      it('pages with an exact total, without overlap or gaps, stable across calls', async () => {
        const index = await make();
        // Pairs share a creation time so only the id tie-break orders them.
        const docs = Array.from({ length: 25 }, (_, i) => doc(`r${String(i).padStart(2, '0')}`, { created: day(1 + Math.floor(i / 2)) }, { title: `Ocean colour ${i}` }));
        await index.upsert(docs.reverse());
        for (const sort of ['newest', 'oldest', 'bestmatch'] as const) {
          const seen: string[] = [];
          for (let page = 1; page <= 3; page++) {
            const r = await index.search(request({ sort, page, size: 10, q: sort === 'bestmatch' ? 'ocean' : null }));
            expect(r.total).toBe(25);
            expect(r.hits.length).toBe(page === 3 ? 5 : 10);
            seen.push(...r.hits.map((h) => h.id));
          }
          expect(new Set(seen).size).toBe(25);
          const again = await index.search(request({ sort, page: 2, size: 10, q: sort === 'bestmatch' ? 'ocean' : null }));
          expect(again.hits.map((h) => h.id)).toEqual(seen.slice(10, 20));
        }
        const oldest = await ordered(index, { sort: 'oldest', size: 4 });
        expect(oldest).toEqual(['r00', 'r01', 'r02', 'r03']);
        const past = await index.search(request({ page: 4, size: 10 }));
        expect(past.total).toBe(25);
        expect(past.hits).toEqual([]);
      });

      it('returns id, kind and state per hit', async () => {
        const index = await make();
        await index.upsert([doc('x', { kind: 'package', state: 'draft', isPublic: false }), doc('x', { kind: 'package' })]);
        const r = await index.search(request({ filter: { kinds: ['package'], viewerId: 'owner' }, sort: 'oldest' }));
        expect(r.hits).toEqual([
          { id: 'x', kind: 'package', state: 'draft' },
          { id: 'x', kind: 'package', state: 'published' },
        ]);
      });
    });

    describe('writes', () => {
      it('replaces a document by key: old text, flags, facets and bounds no longer match', async () => {
        const index = await make();
        await index.upsert([doc('r1', { bounds: [[0, 0, 1, 1]] }, { title: 'Original title' })]);
        await index.upsert([doc('r1', { bounds: [[50, 50, 51, 51]], resourceType: { id: 'software', label: 'Software' }, accessStatus: 'embargoed' }, { title: 'Renamed' })]);
        expect(await q(index, 'renamed')).toEqual(['r1']);
        expect(await q(index, 'original')).toEqual([]);
        expect(await ids(index, { bbox: [-1, -1, 2, 2] })).toEqual([]);
        expect(await ids(index, { bbox: [49, 49, 52, 52] })).toEqual(['r1']);
        const r = await index.search(request({ aggregations: ['resource_type', 'access_status'] }));
        expect(r.total).toBe(1);
        expect(buckets(r.aggregations.resource_type)).toEqual([['software', 1, 'Software']]);
        expect(buckets(r.aggregations.access_status)).toEqual([['embargoed', 1, 'Embargoed']]);
        await index.upsert([doc('r1', { isLatest: false }, { title: 'Renamed' })]);
        expect(await ids(index)).toEqual([]);
      });

      it('keeps a draft and the published version of one id apart', async () => {
        const index = await make();
        await index.upsert([doc('r1', {}, { title: 'Published words' }), doc('r1', { state: 'draft' }, { title: 'Draft words' })]);
        expect(await index.keysOfParent('p-r1').then((k) => k.sort())).toEqual(['draft:r1', 'published:r1']);
        expect(await q(index, 'draft')).toEqual([]);
        expect(await ids(index, { q: 'draft', filter: { kinds: ['resource'], published: false, viewerId: 'owner' } })).toEqual(['r1']);
        await index.remove(['draft:r1']);
        expect(await index.keysOfParent('p-r1')).toEqual(['published:r1']);
        expect(await q(index, 'published')).toEqual(['r1']);
      });

      it('removes documents, ignoring unknown keys, and upserts one again after removal', async () => {
        const index = await make();
        await index.upsert([doc('r1'), doc('r2'), doc('r3')]);
        await index.remove(['published:r1', 'published:nope']);
        expect(await ids(index)).toEqual(['r2', 'r3']);
        expect(await q(index, 'r1')).toEqual([]);
        await index.upsert([doc('r1', {}, { title: 'Back again' })]);
        expect(await q(index, 'back')).toEqual(['r1']);
        await index.remove([]);
        expect(await ids(index)).toEqual(['r1', 'r2', 'r3']);
      });

      it('upserts the same key twice in one batch, the last one winning', async () => {
        const index = await make();
        await index.upsert([doc('r1', {}, { title: 'First' }), doc('r1', {}, { title: 'Second' })]);
        expect(await q(index, 'first')).toEqual([]);
        expect(await q(index, 'second')).toEqual(['r1']);
        expect((await index.search(request())).total).toBe(1);
      });

      it('lists the keys of a parent and clears everything', async () => {
        const index = await make();
        await index.upsert([doc('v1', { parentId: 'p' }), doc('v2', { parentId: 'p' }), doc('v2', { parentId: 'p', state: 'draft' }), doc('other')]);
        expect((await index.keysOfParent('p')).sort()).toEqual(['draft:v2', 'published:v1', 'published:v2']);
        expect(await index.keysOfParent('none')).toEqual([]);
        await index.clear();
        expect(await index.keysOfParent('p')).toEqual([]);
        expect((await index.search(request({ filter: { kinds: ['resource'], viewerId: 'owner' } }))).total).toBe(0);
        await index.upsert([doc('v1', { parentId: 'p' }, { title: 'After clear' })]);
        expect(await q(index, 'after')).toEqual(['v1']);
      });

      it('does not change when a caller mutates a document after upserting it', async () => {
        const index = await make();
        const d = doc('r1', {}, { title: 'Stable' });
        await index.upsert([d]);
        d.isPublic = false;
        d.readers.push('intruder');
        expect(await ids(index)).toEqual(['r1']);
      });
    });
  });
}
