import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { SearchDocument, SearchRequest } from '@krs/domain';
import { createPgDb, createPostgresSearchIndex, createPostgresSearchSchema } from '../src/index.ts';
import { searchDocument } from './contracts/builders.ts';
import { freshDatabase, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const types = [null, { id: 'dataset', label: 'Dataset' }, { id: 'software', label: 'Software' }];
const vocabulary = ['glacier', 'ice', 'sea', 'drought', 'survey', 'river'];

/** `count` documents of varied words, titles, kinds, visibility and facets, the same on every call. */
function documents(count: number): SearchDocument[] {
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
  const words = (n: number) => Array.from({ length: n }, () => vocabulary[next(vocabulary.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => {
    const id = `d${String(i).padStart(3, '0')}`;
    const restricted = next(6) === 0;
    const title = i % 3 === 0 ? `Glacier ${words(next(3))}` : words(1 + next(3));
    return {
      ...searchDocument(id, title, {
        body: { id, metadata: { title, description: words(next(20)), publication_date: `${2019 + (i % 5)}-0${1 + (i % 9)}`, ...(next(4) === 0 ? {} : { subjects: [words(2)] }) } },
      }),
      kind: next(5) === 0 ? ('package' as const) : ('resource' as const),
      state: next(8) === 0 ? ('draft' as const) : ('published' as const),
      isLatest: next(7) !== 0,
      isPublic: !restricted,
      accessStatus: restricted ? ('restricted' as const) : ('open' as const),
      resourceType: types[next(types.length)] ?? null,
      created: `2026-01-${String(1 + next(9)).padStart(2, '0')}T00:00:00.000Z`,
    };
  });
}

async function open() {
  const handle = createPgDb(await freshDatabase());
  await createPostgresSearchSchema(handle.db);
  return { handle, index: createPostgresSearchIndex(handle.db) };
}

type Opened = Awaited<ReturnType<typeof open>>;

/** What the index keeps beside the documents, as searches read it: each group's count summed (by word, and by word and publication month), every title score and repeated word's score. */
async function kept({ handle }: Opened) {
  const counts = await sql`select lexeme, in_title, kind, resource_type, resource_type_label, access_status, sum(n)::integer as n from search_count
    group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6`.execute(handle.db);
  const titles = await sql`select lexeme, score, created, id, key, kind, resource_type, access_status from search_title order by key, lexeme`.execute(handle.db);
  const repeats = await sql`select lexeme, score, created, id, key, kind, resource_type, access_status from search_repeat order by key, lexeme`.execute(handle.db);
  const years = await sql`select lexeme, year, month, kind, resource_type, resource_type_label, access_status, sum(n)::integer as n from search_count_year
    group by 1, 2, 3, 4, 5, 6, 7 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6, 7`.execute(handle.db);
  return { counts: counts.rows, titles: titles.rows, repeats: repeats.rows, years: years.rows };
}

const listing = (q: string, over: Partial<SearchRequest> = {}): SearchRequest => ({
  filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null },
  q,
  bbox: null,
  sort: 'bestmatch',
  page: 1,
  size: 10,
  aggregations: ['resource_type', 'access_status', 'record_type'],
  ...over,
});

async function answers({ index }: Opened) {
  const out = [];
  for (const q of ['glacier', 'ice', 'river', 'metadata.title:glacier', '"sea ice"', '', 'glac*', 'survy~', 'ice AND metadata.publication_date:[2020-06 TO *]']) {
    for (const over of [{}, { page: 2 }, { sort: 'newest' as const }, { filter: { kinds: ['package' as const], published: true, latestOnly: true, viewerId: null } }]) {
      out.push(await index.search(listing(q, over)));
    }
  }
  return out;
}

describe('search index (PostgreSQL): a rebuild', () => {
  it('keeps the same counts, title and repeated words\' scores and answers as writing each document, another node writing during it', { timeout: 60_000 }, async () => {
    const docs = documents(240);
    const byWrites = await open();
    const rebuilt = await open();
    try {
      // Document by document (a unit of work's writes), in batches and one at a time.
      await byWrites.index.upsert(docs.slice(0, 100));
      for (const d of docs.slice(100, 140)) await byWrites.index.upsert([d]);
      await byWrites.index.upsert(docs.slice(140));

      // An index holding other documents before, emptied by the rebuild.
      await rebuilt.index.upsert(documents(300).map((d) => ({ ...d, key: `old:${d.key}` })));
      const rebuild = await rebuilt.index.rebuild();
      await rebuild.upsert(docs.slice(0, 150));
      // Another node's writes, kept as they commit: one the rebuild writes again after it, one it never writes.
      await rebuilt.index.upsert([...docs.slice(140, 160).map((d) => ({ ...d, isPublic: !d.isPublic, state: 'published' as const })), { ...(docs[0] as SearchDocument), key: 'other' }]);
      await rebuild.upsert(docs.slice(140));
      await rebuild.remove(['other']);
      await rebuild.finish();

      expect((await kept(byWrites)).counts.length).toBeGreaterThan(50);
      expect((await kept(byWrites)).years.length).toBeGreaterThan(50);
      expect((await kept(byWrites)).repeats.length).toBeGreaterThan(50);
      await expectCountedAsWritten(rebuilt, byWrites);
      expect((await rebuilt.index.search(listing('glacier'))).total).toBeGreaterThan(0);
    } finally {
      await byWrites.handle.close();
      await rebuilt.handle.close();
    }
  });

  /**
   * `count` documents written one by one in one index, and by a rebuild that never finished in
   * another; `check` is given both, which are closed after it.
   */
  async function afterInterruptedRebuild(count: number, check: (byWrites: Opened, rebuilt: Opened) => Promise<void>): Promise<void> {
    const docs = documents(count);
    const byWrites = await open();
    const rebuilt = await open();
    try {
      await byWrites.index.upsert(docs);
      const rebuild = await rebuilt.index.rebuild();
      await rebuild.upsert(docs);
      // No finish: the process ended there.
      await check(byWrites, rebuilt);
    } finally {
      await byWrites.handle.close();
      await rebuilt.handle.close();
    }
  }

  /** The rebuilt index keeps and answers what the one written document by document does. */
  async function expectCountedAsWritten(rebuilt: Opened, byWrites: Opened): Promise<void> {
    expect(await kept(rebuilt)).toEqual(await kept(byWrites));
    expect(await answers(rebuilt)).toEqual(await answers(byWrites));
  }

  it('ended before it counted what it wrote is counted when a node next opens the index', { timeout: 60_000 }, () =>
    afterInterruptedRebuild(120, async (byWrites, rebuilt) => {
      await createPostgresSearchSchema(rebuilt.handle.db);
      await expectCountedAsWritten(rebuilt, byWrites);
    }));

  it('that a node fails to count fails its opening, and is counted by the next node once mended', { timeout: 60_000 }, () =>
    afterInterruptedRebuild(60, async (byWrites, rebuilt) => {
      // A count that fails (here a trigger refusing it) fails the opening, rather than leaving short counts behind.
      await sql`create function krs_test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(rebuilt.handle.db);
      await sql`create trigger krs_test_refuse before delete on search_count for each statement execute function krs_test_refuse()`.execute(rebuilt.handle.db);
      await expect(createPostgresSearchSchema(rebuilt.handle.db)).rejects.toThrow('refused');
      await sql`drop trigger krs_test_refuse on search_count`.execute(rebuilt.handle.db);
      expect((await sql`select count(*)::integer as n from search_rebuild`.execute(rebuilt.handle.db)).rows).toEqual([{ n: 1 }]);
      await createPostgresSearchSchema(rebuilt.handle.db);
      await expectCountedAsWritten(rebuilt, byWrites);
    }));
});
