import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE, makeApp } from './make-app.ts';

const fixtures = resolve(import.meta.dirname, '../../../packages/domain/test/fixtures/vocabularies');
const fixture = (path: string) => readFileSync(resolve(fixtures, path), 'utf8');

type Hit = { id: string; type: string; title: Record<string, string>; props: Record<string, string>; tags: string[]; icon?: string; links: { self: string } };

/** The words a title sorts by, as a reader compares them: lowercased, accents dropped. */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();

async function imported() {
  const app = await makeApp();
  await app.core.vocabularies.importFile('resource_types', fixture('resources/resource_types.yaml'), 'yaml');
  await app.core.vocabularies.importFile('subjects', fixture('subjects/subjects_oecd_fos.yaml'), 'yaml');
  await app.core.vocabularies.importFile('roles', fixture('roles/roles.yaml'), 'yaml');
  await app.core.vocabularies.importFile('engagement_priorities', fixture('custom/engagement_priorities.yaml'), 'yaml');
  await app.core.vocabularies.import('affiliations', [
    { type: 'affiliations', id: '01swzsf04', title: { en: 'Université de Genève', fr: 'Université de Genève' } },
    { type: 'affiliations', id: '05a28rw58', title: { en: 'ETH Zurich' } },
    { type: 'affiliations', id: '02s376052', title: { en: 'École Polytechnique Fédérale de Lausanne' } },
  ]);
  return app;
}

/** Follows `next` from `path` to the end, as a client paging through a picker does. */
async function followAll(call: Awaited<ReturnType<typeof makeApp>>['call'], path: string) {
  const hits: Hit[] = [];
  const pages: { status: number; json: { hits: { hits: Hit[]; total: number }; links: { self: string; next?: string; prev?: string } } }[] = [];
  let next: string | undefined = `${BASE}${path}`;
  while (next !== undefined) {
    const res = await call('GET', next.slice(BASE.length));
    expect(res.status).toBe(200);
    pages.push(res);
    hits.push(...res.json.hits.hits);
    next = res.json.links.next;
  }
  return { hits, pages };
}

describe('GET /api/vocabularies/{vocabulary}', () => {
  it("lists an imported vocabulary anonymously, in title order, in InvenioRDM's hit shape", async () => {
    const { core, call } = await imported();
    const res = await call('GET', '/api/vocabularies/resourcetypes?size=100');
    expect(res.status).toBe(200);
    const stored = await core.vocabularies.list('resource_types');
    expect(res.json.hits.total).toBe(stored.length);
    expect(res.json.sortBy).toBe('title');
    const hits: Hit[] = res.json.hits.hits;
    expect(hits.map((h) => h.id).sort()).toEqual(stored.map((e) => e.id).sort());
    const titles = hits.map((h) => folded(h.title['en'] ?? ''));
    expect(titles).toEqual([...titles].sort());
    const dataset = hits.find((h) => h.id === 'dataset');
    expect(dataset).toMatchObject({
      id: 'dataset',
      type: 'resourcetypes',
      title: { en: 'Dataset' },
      icon: 'table',
      tags: ['depositable', 'linkable'],
      props: { datacite_general: 'Dataset', csl: 'dataset' },
      links: { self: `${BASE}/api/vocabularies/resourcetypes/dataset` },
    });
    expect(res.json.links.self).toBe(`${BASE}/api/vocabularies/resourcetypes?page=1&size=100`);
  });

  it.each([
    ['imported', 'resourcetypes', 2, true],
    ['shipped', 'relationtypes', 5, false],
  ] as const)('pages %s entries with links a client follows to the last page, each entry once', async (_, vocabulary, size, importFirst) => {
    const { call } = importFirst ? await imported() : await makeApp();
    const whole = (await call('GET', `/api/vocabularies/${vocabulary}?size=1000`)).json.hits.hits.map((h: Hit) => h.id);
    expect(whole.length).toBeGreaterThan(size);
    const { hits, pages } = await followAll(call, `/api/vocabularies/${vocabulary}?size=${size}`);
    expect(hits.map((h) => h.id)).toEqual(whole);
    expect(pages).toHaveLength(Math.ceil(whole.length / size));
    expect(pages.every((p) => p.json.hits.total === whole.length)).toBe(true);
    expect(pages[0]?.json.links.prev).toBeUndefined();
    expect(pages[1]?.json.links.prev).toBe(`${BASE}/api/vocabularies/${vocabulary}?page=1&size=${size}`);
    expect(pages.at(-1)?.json.links.next).toBeUndefined();
  });

  it('autocompletes from the words typed so far, as prefixes of id and title words, ignoring case and accents', async () => {
    const { call } = await imported();
    const suggest = async (path: string, typed: string) =>
      (await call('GET', `${path}?suggest=${encodeURIComponent(typed)}`)).json.hits.hits.map((h: Hit) => h.id);
    expect(await suggest('/api/vocabularies/affiliations', 'univ gen')).toEqual(['01swzsf04']);
    expect(await suggest('/api/vocabularies/affiliations', 'GENEVE')).toEqual(['01swzsf04']);
    expect(await suggest('/api/vocabularies/affiliations', 'ecole féd')).toEqual(['02s376052']);
    expect(await suggest('/api/vocabularies/affiliations', 'zur')).toEqual(['05a28rw58']);
    expect(await suggest('/api/vocabularies/affiliations', 'urich')).toEqual([]);
    // Every word must start a word: "de" alone keeps both names that have one.
    expect(await suggest('/api/vocabularies/affiliations', 'de')).toEqual(['02s376052', '01swzsf04']);
    expect(await suggest('/api/vocabularies/engagementprioritiestypes', 'rams')).toEqual(['convention-ramsar']);
  });

  it('keeps with q the entries having each word whole', async () => {
    const { call } = await imported();
    const q = async (text: string) => (await call('GET', `/api/vocabularies/affiliations?q=${encodeURIComponent(text)}`)).json.hits;
    expect((await q('zurich')).hits.map((h: Hit) => h.id)).toEqual(['05a28rw58']);
    expect(await q('zur')).toEqual({ hits: [], total: 0 });
  });

  it('keeps with tags the entries carrying any of them, imported or shipped, as deposit forms ask for their pickers', async () => {
    const { core, call } = await imported();
    const ids = async (path: string) => {
      const res = await call('GET', path);
      expect(res.status, path).toBe(200);
      return (res.json.hits.hits as Hit[]).map((h) => h.id);
    };
    // Shipped: every resource type is depositable; the licenses GEO recommends.
    const fresh = await makeApp();
    const depositable = await fresh.call('GET', '/api/vocabularies/resourcetypes?tags=depositable&size=100');
    expect(depositable.json.hits.total).toBeGreaterThan(30);
    expect((depositable.json.hits.hits as Hit[]).every((h) => h.tags.includes('depositable'))).toBe(true);
    const recommended = await fresh.call('GET', '/api/vocabularies/licenses?tags=recommended');
    expect((recommended.json.hits.hits as Hit[]).map((h) => h.id).sort()).toEqual(['cc-by-4.0', 'cc0-1.0', 'pddl-1.0']);
    expect((await fresh.call('GET', '/api/vocabularies/licenses?tags=all&suggest=mit&size=100')).json.hits.hits.map((h: Hit) => h.id)).toContain('mit');
    // Imported: the file's own tags, any of several, with a suggest beside them; paging links keep them.
    await core.vocabularies.importFile('licenses', fixture('licenses/licenses.csv'), 'csv');
    expect(await ids('/api/vocabularies/licenses?tags=recommended')).toEqual(['cc-by-4.0', 'cc0-1.0']);
    expect(await ids('/api/vocabularies/licenses?tags=software&tags=data')).toEqual(['cc-by-4.0', 'cc0-1.0', 'mit']);
    expect(await ids('/api/vocabularies/licenses?tags=software')).toEqual(['mit']);
    expect(await ids('/api/vocabularies/licenses?tags=software&suggest=crea')).toEqual([]);
    expect(await ids('/api/vocabularies/licenses?tags=nothing')).toEqual([]);
    await core.vocabularies.importFile('geo_work_programme_activities', fixture('custom/geo_work-programme_activities.yaml'), 'yaml');
    expect(await ids('/api/vocabularies/geowptypes?tags=geo-focus-agriculture-and-food-security')).toHaveLength(1);
    const paged = await call('GET', '/api/vocabularies/licenses?tags=all&size=1');
    expect(paged.json.hits.total).toBe(3);
    expect(paged.json.links.next).toBe(`${BASE}/api/vocabularies/licenses?page=2&size=1&tags=all`);
    // Bounded: too many or too long tags are a 400 naming the parameter.
    const many = await call('GET', `/api/vocabularies/licenses?${Array.from({ length: 21 }, (_, i) => `tags=t${i}`).join('&')}`);
    expect(many.status).toBe(400);
    expect(many.json.errors).toEqual([{ field: 'tags', messages: [expect.stringMatching(/At most 20 tags/)] }]);
    expect((await call('GET', `/api/vocabularies/licenses?tags=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it("lists the shipped entries of a type nothing was imported for, and GEO's ids for both role vocabularies", async () => {
    const { call } = await makeApp();
    const fresh = await call('GET', '/api/vocabularies/resourcetypes?suggest=journal');
    expect(fresh.json.hits.hits.map((h: Hit) => [h.id, h.title])).toEqual([['publication-article', { en: 'Journal article' }]]);
    const languages = await call('GET', '/api/vocabularies/languages?suggest=eng&size=100');
    expect(languages.json.hits.hits.map((h: Hit) => h.id)).toContain('eng');
    const { call: withRoles } = await imported();
    const creators = (await withRoles('GET', '/api/vocabularies/creatorsroles')).json.hits;
    const contributors = (await withRoles('GET', '/api/vocabularies/contributorsroles')).json.hits;
    expect(creators.total).toBe(contributors.total);
    expect(creators.hits.every((h: Hit) => h.type === 'creatorsroles')).toBe(true);
    expect(contributors.hits.map((h: Hit) => h.id)).toEqual(creators.hits.map((h: Hit) => h.id));
  });

  it('answers a vocabulary it does not have with a 404 JSON error', async () => {
    const { call } = await imported();
    for (const path of ['/api/vocabularies/resource_types', '/api/vocabularies/datetypes', '/api/vocabularies/nope/dataset', '/api/licenses']) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json.status, path).toBe(404);
    }
  });

  it('refuses bad listing parameters with 400 and the fields at fault', async () => {
    const { call } = await imported();
    const cases: [string, string][] = [
      ['size=abc', 'size'],
      ['page=-1', 'page'],
      ['size=0', '_schema'],
      ['size=1001', '_schema'],
      ['size=100&page=101', '_schema'],
      ['sort=newest', '_schema'],
    ];
    for (const [query, field] of cases) {
      const res = await call('GET', `/api/vocabularies/resourcetypes?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.errors.map((e: { field: string }) => e.field), query).toContain(field);
    }
    expect((await call('GET', '/api/vocabularies/resourcetypes?sort=bestmatch&q=dataset')).json.sortBy).toBe('title');
  });
});

describe('GET /api/vocabularies/{vocabulary}/{entryId}', () => {
  it('reads one entry, imported or shipped, and 404s an id the vocabulary lacks', async () => {
    const { call } = await imported();
    const dataset = await call('GET', '/api/vocabularies/resourcetypes/dataset');
    expect(dataset.status).toBe(200);
    expect(dataset.json).toMatchObject({ id: 'dataset', type: 'resourcetypes', title: { en: 'Dataset' }, links: { self: `${BASE}/api/vocabularies/resourcetypes/dataset` } });
    const mit = await call('GET', '/api/vocabularies/licenses/mit');
    expect(mit.json).toMatchObject({ id: 'mit', title: { en: 'MIT License' }, props: { scheme: 'spdx' } });
    const missing = await call('GET', '/api/vocabularies/resourcetypes/no-such-type');
    expect(missing.status).toBe(404);
    expect(missing.json.message).toContain('no-such-type');
  });
});

describe("InvenioRDM's own vocabulary paths", () => {
  it('serves subjects and affiliations at /api/subjects and /api/affiliations, ids percent-encoded in links', async () => {
    const { call } = await imported();
    const subjects = await call('GET', '/api/subjects?suggest=earth');
    const [earth] = subjects.json.hits.hits as Hit[];
    expect(earth?.id).toBe('http://www.oecd.org/science/inno/38235147.pdf?1.5');
    expect(earth?.links.self).toBe(`${BASE}/api/subjects/${encodeURIComponent(earth?.id ?? '')}`);
    const one = await call('GET', (earth?.links.self ?? '').slice(BASE.length));
    expect(one.status).toBe(200);
    expect(one.json.title).toEqual({ en: 'Earth and related environmental sciences' });
    const eth = await call('GET', '/api/affiliations/05a28rw58');
    expect(eth.json).toMatchObject({ id: '05a28rw58', type: 'affiliations', links: { self: `${BASE}/api/affiliations/05a28rw58` } });
    expect((await call('GET', '/api/affiliations?size=2')).json.links.next).toBe(`${BASE}/api/affiliations?page=2&size=2`);
  });
});
