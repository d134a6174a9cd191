import { describe, expect, it } from 'vitest';
import type { SearchDocument, SearchIndex, SearchRequest } from '@krs/domain';

function doc(id: string, over: Partial<SearchDocument> = {}, metadata: object = {}): SearchDocument {
  return {
    key: `published:${id}`,
    id,
    kind: 'resource',
    state: 'published',
    parentId: `p-${id}`,
    ownerId: 'owner',
    versionIndex: 1,
    isLatest: true,
    inUserListing: true,
    isUserLatest: true,
    isPublic: true,
    readers: ['owner'],
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    resourceType: { id: 'dataset', label: 'Dataset' },
    accessStatus: 'open',
    bounds: [],
    ...over,
    body: { id, metadata: { title: `Record ${id}`, ...metadata } },
  };
}

const request = (over: Partial<SearchRequest> = {}): SearchRequest => ({
  filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
  q: null,
  bbox: null,
  sort: 'newest',
  page: 1,
  size: 10,
  aggregations: [],
  ...over,
});

const ids = async (index: SearchIndex, over: Partial<SearchRequest> = {}) => (await index.search(request(over))).hits.map((h) => h.id).sort();

export function searchIndexContract(name: string, make: () => Promise<SearchIndex>): void {
  describe(`search index contract: ${name}`, () => {
    it('matches terms (AND-ed), phrases, fields, prefixes, NOT and ranges', async () => {
      const index = await make();
      await index.upsert([
        doc('a', {}, { title: 'Flood risk in the Niger delta', publication_date: '2020-05-01' }),
        doc('b', {}, { title: 'Drought monitoring in the Sahel', publication_date: '2022-01-01', version: 'v2' }),
        doc('c', {}, { title: 'Flood and drought indices', publication_date: '2024' }),
      ]);
      expect(await ids(index, { q: 'flood' })).toEqual(['a', 'c']);
      expect(await ids(index, { q: 'flood drought' })).toEqual(['c']);
      expect(await ids(index, { q: 'flood OR sahel' })).toEqual(['a', 'b', 'c']);
      expect(await ids(index, { q: '"niger delta"' })).toEqual(['a']);
      expect(await ids(index, { q: 'metadata.title:drought' })).toEqual(['b', 'c']);
      expect(await ids(index, { q: 'monitor*' })).toEqual(['b']);
      expect(await ids(index, { q: 'flood -drought' })).toEqual(['a']);
      expect(await ids(index, { q: '_exists_:metadata.version' })).toEqual(['b']);
      expect(await ids(index, { q: 'metadata.publication_date:[2021 TO 2024]' })).toEqual(['b', 'c']);
      expect(await ids(index, { q: 'a:b:c ((' })).toEqual([]);
    });

    it('filters by visibility, version flags and facets, and counts only what the viewer may read', async () => {
      const index = await make();
      await index.upsert([
        doc('pub'),
        doc('old', { isLatest: false }),
        doc('secret', { isPublic: false, readers: ['owner'], accessStatus: 'restricted' }),
        doc('pkg', { kind: 'package', resourceType: { id: 'knowledge', label: 'Knowledge' } }),
      ]);
      expect(await ids(index)).toEqual(['pkg', 'pub']);
      expect(await ids(index, { filter: { kinds: ['resource'], published: true, latestOnly: true, viewerId: 'owner' } })).toEqual(['pub', 'secret']);
      const faceted = await index.search(
        request({ aggregations: ['record_type', 'access_status'], filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null, facets: { record_type: ['package'] } } }),
      );
      expect(faceted.total).toBe(1);
      expect(faceted.aggregations.record_type?.map((b) => [b.key, b.docCount]).sort()).toEqual([['package', 1], ['resource', 1]]);
      expect(faceted.aggregations.access_status?.map((b) => b.key)).toEqual(['open']);
    });

    it('filters by bounding box, across the antimeridian too', async () => {
      const index = await make();
      await index.upsert([doc('fiji', { bounds: [[178, -18, 179, -17]] }), doc('paris', { bounds: [[2.3, 48.8, 2.4, 48.9]] })]);
      expect(await ids(index, { bbox: [0, 40, 10, 50] })).toEqual(['paris']);
      expect(await ids(index, { bbox: [170, -30, -170, -10] })).toEqual(['fiji']);
    });

    it('sorts, pages with an exact total, replaces and removes documents', async () => {
      const index = await make();
      await index.upsert(['1', '2', '3'].map((n) => doc(`r${n}`, { created: `2026-01-0${n}T00:00:00.000Z` })));
      const page2 = await index.search(request({ size: 2, page: 2, sort: 'oldest' }));
      expect(page2.total).toBe(3);
      expect(page2.hits.map((h) => h.id)).toEqual(['r3']);
      await index.upsert([doc('r1', { created: '2026-01-01T00:00:00.000Z' }, { title: 'Renamed' })]);
      expect(await ids(index, { q: 'renamed' })).toEqual(['r1']);
      await index.remove(['published:r1']);
      expect(await ids(index)).toEqual(['r2', 'r3']);
      expect(await index.keysOfParent('p-r2')).toEqual(['published:r2']);
    });
  });
}
