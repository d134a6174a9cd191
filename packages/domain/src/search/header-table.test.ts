import { describe, expect, it } from 'vitest';
import type { RecordKind } from '../model/types.ts';
import type { SearchDocument, SearchFilter, SearchRequest, SortOption } from '../ports.ts';
import { firstByColumn, HeaderTable, runSteps } from './header-table.ts';
import { runSearch } from './run-search.ts';

/** Many documents sharing few timestamps and version numbers, so every sort meets ties. */
function documents(n: number): SearchDocument[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `rec${((i * 7919) % n).toString(36).padStart(4, '0')}`;
    const created = `2024-01-${String(1 + ((i * 13) % 9)).padStart(2, '0')}T00:00:00.000Z`;
    const updated = `2025-02-${String(1 + ((i * 17) % 5)).padStart(2, '0')}T10:00:00.${String((i * 31) % 3).padStart(3, '0')}Z`;
    return {
      key: `published:${id}`,
      id,
      kind: i % 5 === 0 ? 'package' : 'resource',
      state: 'published',
      parentId: `p${id}`,
      ownerId: `u${i % 3}`,
      versionIndex: 1 + (i % 3),
      isLatest: true,
      inUserListing: true,
      isUserLatest: true,
      isPublic: true,
      readers: [],
      created,
      updated,
      resourceType: null,
      accessStatus: 'open',
      bounds: [],
      body: {},
    };
  });
}

describe('HeaderTable paging', () => {
  const docs = documents(600);
  const table = new HeaderTable();
  docs.forEach((doc, rowid) => table.set(rowid, doc));
  const sorts: SortOption[] = ['newest', 'oldest', 'version', 'updated-desc', 'updated-asc', 'bestmatch'];

  // Pages far shorter than the hits take the path that looks at the leading column first.
  it.each(sorts)('gives the pages runSearch gives, ties included, sorted by %s', (sort) => {
    for (const [page, size] of [
      [1, 10],
      [3, 10],
      [7, 9],
      [1, 1],
    ] as const) {
      const request: SearchRequest = { filter: { kinds: ['resource', 'package'], published: true, viewerId: null }, q: null, bbox: null, sort, page, size, aggregations: [] };
      const expected = runSearch(docs, request, () => true, null).hits.map((h) => h.id);
      const got = table.search(null, request, null).hits.map((h) => h.id);
      expect(got).toEqual(expected);
      expect(got).toHaveLength(size);
    }
  });
});

describe('HeaderTable filters', () => {
  // Every combination of kind, state, latest flag and visibility, some restricted documents
  // listing a reader, with facet values, so each filter keeps some rows and drops others.
  const docs: SearchDocument[] = documents(480).map((doc, i) => ({
    ...doc,
    key: `${i % 3 === 0 ? 'draft' : 'published'}:${doc.id}`,
    state: i % 3 === 0 ? 'draft' : 'published',
    isLatest: i % 4 !== 1,
    isPublic: i % 5 < 3,
    readers: i % 5 === 3 ? ['viewer', 'other'] : i % 5 === 4 ? ['other'] : [],
    accessStatus: (['open', 'restricted', 'embargoed', 'metadata-only'] as const)[i % 4] ?? 'open',
    resourceType: i % 6 === 0 ? null : { id: `type${i % 6}`, label: `Type ${i % 6}` },
  }));
  const table = new HeaderTable();
  docs.forEach((doc, rowid) => table.set(rowid, doc));
  const kinds: RecordKind[] = ['resource', 'package'];

  it.each<[string, SearchFilter]>([
    ['a public listing', { kinds: [...kinds], published: true, latestOnly: true, viewerId: null }],
    ['a viewer, every version', { kinds: [...kinds], published: true, viewerId: 'viewer' }],
    ['a viewer, drafts and published', { kinds: ['package'], viewerId: 'viewer' }],
    ['drafts only, anonymous', { kinds: ['resource'], published: false, viewerId: null }],
    ['an owner', { kinds: [...kinds], userListing: { ownerId: 'u1', allVersions: false }, viewerId: 'u1' }],
    ['a public listing, one facet value', { kinds: [...kinds], published: true, latestOnly: true, viewerId: null, facets: { access_status: ['open', 'embargoed'] } }],
  ])('gives the hits and facet counts runSearch gives for %s', (_, filter) => {
    const request: SearchRequest = { filter, q: null, bbox: null, sort: 'newest', page: 1, size: 500, aggregations: ['resource_type', 'access_status', 'record_type'] };
    const expected = runSearch(docs, request, () => true, null);
    const got = table.search(null, request, null);
    expect(got.total).toBeGreaterThan(0);
    expect(got.total).toBeLessThan(docs.length);
    expect(got).toEqual(expected);
    // Rows given in a list (a query's match) are filtered alike.
    const rows = Int32Array.from(docs.keys()).filter((rowid) => rowid % 2 === 0);
    expect(table.search(rows, request, null)).toEqual(runSearch(docs.filter((_, rowid) => rowid % 2 === 0), request, () => true, null));
  });

  it('counts a row rewritten with other facet values under its new values alone, and a removed row nowhere', () => {
    const rewritten = new HeaderTable();
    docs.forEach((doc, rowid) => rewritten.set(rowid, doc));
    const now = docs.map((doc, i) =>
      i % 7 === 0
        ? {
            ...doc,
            kind: doc.kind === 'package' ? ('resource' as const) : ('package' as const),
            accessStatus: doc.accessStatus === 'open' ? ('embargoed' as const) : ('open' as const),
            resourceType: doc.resourceType === null ? { id: 'type-new', label: 'New' } : i % 2 === 0 ? null : { id: 'type1', label: 'Type 1' },
          }
        : doc,
    );
    now.forEach((doc, rowid) => {
      if (rowid % 7 === 0) rewritten.set(rowid, doc);
    });
    for (let rowid = 3; rowid < now.length; rowid += 11) rewritten.delete(rowid);
    const left = now.filter((_, rowid) => (rowid - 3) % 11 !== 0 || rowid < 3);
    const request: SearchRequest = { filter: { kinds: [...kinds], published: true, viewerId: 'viewer' }, q: null, bbox: null, sort: 'newest', page: 1, size: 500, aggregations: ['resource_type', 'access_status', 'record_type'] };
    expect(rewritten.search(null, request, null)).toEqual(runSearch(left, request, () => true, null));
  });
});

describe('firstByColumn', () => {
  it('gives the first k of a full sort, for scores with ties, larger first', () => {
    const scores = Float64Array.from({ length: 1000 }, (_, i) => ((i * 37) % 11) / 4);
    const hits = Int32Array.from({ length: 1000 }, (_, i) => (i * 619) % 1000);
    const compare = (a: number, b: number) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b;
    for (const k of [1, 10, 99]) expect(firstByColumn(hits, k, scores, true, compare)).toEqual(Array.from(hits).sort(compare).slice(0, k));
  });
});

describe('HeaderTable passes in turns', () => {
  const request: SearchRequest = {
    filter: { kinds: ['resource', 'package'], published: true, viewerId: null, latestOnly: true },
    q: null,
    bbox: null,
    sort: 'newest',
    page: 1,
    size: 10,
    aggregations: ['record_type'],
  };
  const filled = (docs: SearchDocument[]) => {
    const table = new HeaderTable();
    docs.forEach((doc, rowid) => table.set(rowid, doc));
    return table;
  };

  it('pauses between steps of a large pass and answers as a pass without pauses', async () => {
    const docs = documents(50_000);
    const table = filled(docs);
    let pauses = 0;
    const pause = async () => {
      pauses++;
    };
    const selection = await table.inTurns(() => table.selectSteps(null, request), pause);
    const page = await table.inTurns(() => table.pageSteps(selection, request, null), pause);
    expect(pauses).toBeGreaterThan(2);
    expect(page).toEqual(table.search(null, request, null));
  });

  // Steps of 16,384 rows ran 0.5-1 ms each past a half-millisecond slice beside the cheap GETs.
  it('offers a pause at least every 4,096 rows of a pass over the table', async () => {
    const table = filled(documents(20_000));
    let pauses = 0;
    await table.inTurns(
      () => table.selectSteps(null, request),
      async () => {
        pauses++;
      },
    );
    expect(pauses).toBeGreaterThanOrEqual(4);
  });

  it('selects into an array kept from an earlier, larger selection as into a fresh one', () => {
    const table = filled(documents(1_000));
    const kept = new Int32Array(2_000).fill(-7);
    const rows = Int32Array.from({ length: 300 }, (_, i) => i * 3);
    const fresh = table.select(rows, request);
    const into = runSteps(table.selectSteps(rows, request, kept));
    expect(Array.from(into.hits)).toEqual(Array.from(fresh.hits));
    expect(into.aggregations).toEqual(fresh.aggregations);
    expect(table.page(into, request, null)).toEqual(table.page(fresh, request, null));
  });

  it('never mixes the table before and after a write made during a pause', async () => {
    const docs = documents(50_000);
    const table = filled(docs);
    const replaced = docs[0] as SearchDocument;
    const before = table.select(null, request);
    let written = false;
    // A new version is published while the pass waits: the first row stops being the latest and a
    // new row, read after the pause, becomes it. Seen half, both would count.
    const pause = async () => {
      if (written) return;
      written = true;
      table.set(0, { ...replaced, isLatest: false });
      table.set(docs.length, { ...replaced, id: 'newversion', isLatest: true });
    };
    const selection = await table.inTurns(() => table.selectSteps(null, request), pause);
    expect(written).toBe(true);
    expect(selection.hits.length).toBe(before.hits.length);
    expect(Array.from(selection.hits)).toContain(docs.length);
    expect(Array.from(selection.hits)).not.toContain(0);
    expect(selection.aggregations).toEqual(before.aggregations);
  });
});
