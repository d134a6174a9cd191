import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markLarge, type SearchDocument, type SearchRequest } from '@krs/domain';
import { createMiniSearchIndex } from '../src/search/index.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { searchDocument } from './contracts/builders.ts';
import { tempDir } from './sqlite-fixture.ts';
import { snapshotCorpus } from './minisearch-corpus.ts';

searchIndexContract('minisearch', async () => createMiniSearchIndex());

const doc = (id: string, title: string) => searchDocument(id, title);

const glacier: SearchRequest = { filter: { kinds: ['resource'], published: true, viewerId: null }, q: 'glacier', bbox: null, sort: 'bestmatch', page: 1, size: 10, aggregations: [] };
const snapshotFile = () => join(tempDir(), 'snapshot.json');

describe('minisearch snapshots', () => {
  it('answers the same after a save and load, returning the watermark it was saved with', async () => {
    const file = snapshotFile();
    const first = createMiniSearchIndex();
    await first.upsert([doc('a', 'Glacier retreat in the Alps'), doc('b', 'Coastal erosion'), doc('c', 'Glacier velocity')]);
    await first.remove(['published:c']);
    await first.saveSnapshot(file, '2026-05-01T00:00:00.000Z');
    const second = createMiniSearchIndex();
    expect(await second.loadSnapshot(file)).toBe('2026-05-01T00:00:00.000Z');
    expect(second.size()).toBe(2);
    expect((await second.search(glacier)).hits.map((h) => h.id)).toEqual(['a']);
    // Documents loaded from a snapshot are replaced, not added twice.
    await second.upsert([doc('a', 'Sea ice'), doc('c', 'Glacier again')]);
    expect((await second.search(glacier)).hits.map((h) => h.id)).toEqual(['c']);
    expect(second.size()).toBe(3);
  });

  it('refuses missing, corrupt, foreign and inconsistent snapshots, keeping its contents', async () => {
    const file = snapshotFile();
    const source = createMiniSearchIndex();
    await source.upsert([doc('a', 'Glacier retreat'), doc('b', 'Glacier velocity')]);
    await source.saveSnapshot(file, 'w');
    const good = readFileSync(file);
    const footerLength = good.readUInt32LE(good.length - 4);
    const footer = JSON.parse(good.toString('utf8', good.length - 4 - footerLength, good.length - 4)) as { sections: Record<string, [number, number]> } & Record<string, unknown>;
    const body = good.subarray(0, good.length - 4 - footerLength);
    /** The snapshot's sections with another footer. */
    const withFooter = (over: Record<string, unknown>, sections: Buffer = body) => {
      const f = Buffer.from(JSON.stringify({ ...footer, ...over }));
      const length = Buffer.alloc(4);
      length.writeUInt32LE(f.length);
      return Buffer.concat([sections, f, length]);
    };
    const [rowsStart, rowsEnd] = footer.sections['rowStrings'] ?? [0, 0];
    const rows = body.toString('utf8', rowsStart, rowsEnd);
    const [codesStart] = footer.sections['rowCodes'] ?? [0, 0];

    const target = createMiniSearchIndex();
    await target.upsert([doc('keep', 'Glacier kept')]);
    const refuse = async (content: Buffer | string | null) => {
      const f = snapshotFile();
      if (content !== null) writeFileSync(f, content);
      expect(await target.loadSnapshot(f)).toBeNull();
      expect((await target.search(glacier)).hits.map((h) => h.id)).toEqual(['keep']);
    };
    await refuse(null);
    await refuse('');
    await refuse('{"format":');
    await refuse(good.subarray(0, good.length - 1));
    await refuse(good.subarray(10));
    await refuse(withFooter({ format: 'krs-minisearch-3' }));
    await refuse(withFooter({ format: 'krs-minisearch-4' }));
    await refuse(withFooter({ format: 'krs-minisearch-5' }));
    await refuse(withFooter({ watermark: 5 }));
    await refuse(withFooter({ rows: 1 }));
    await refuse(withFooter({ sections: { ...footer.sections, rowStrings: [0, good.length * 2] } }));
    // The rows' strings broken, a row named twice, a row the word index does not hold, a section
    // of numbers cut inside one.
    const replaced = (from: string, to: string) => Buffer.concat([body.subarray(0, rowsStart), Buffer.from(rows.replace(from, to)), body.subarray(rowsEnd)]);
    await refuse(withFooter({ sections: shifted(footer.sections, rowsEnd, -1) }, replaced('[', '')));
    await refuse(withFooter({}, replaced('"published:b"', '"published:a"')));
    const renumbered = Buffer.from(body);
    renumbered.writeInt32LE(7, codesStart);
    await refuse(withFooter({}, renumbered));
    await refuse(withFooter({ sections: { ...footer.sections, rowCodes: [codesStart, codesStart + 6] } }));
    expect(await target.loadSnapshot(file)).toBe('w');
    expect((await target.search(glacier)).hits.map((h) => h.id).sort()).toEqual(['a', 'b']);
  });
});

describe('minisearch field paths', () => {
  it('forgets the sets of field paths no document holds any more, so a stream of new field names leaves none behind', async () => {
    const index = createMiniSearchIndex();
    await index.upsert([doc('kept', 'Glacier kept')]);
    for (let i = 0; i < 50; i++) await index.upsert([searchDocument('a', 'Glacier', { body: { id: 'a', metadata: { title: 'Glacier' }, [`custom_${i}`]: 'x' } })]);
    const exists = async (field: string) => (await index.search({ ...glacier, q: `_exists_:${field}` })).hits.map((h) => h.id);
    expect(await exists('custom_49')).toEqual(['a']);
    expect(await exists('custom_48')).toEqual([]);
    expect(await exists('metadata.title')).toEqual(expect.arrayContaining(['a', 'kept']));
    const file = snapshotFile();
    await index.saveSnapshot(file, 'w');
    const saved = readFileSync(file);
    const footer = JSON.parse(saved.toString('utf8', saved.length - 4 - saved.readUInt32LE(saved.length - 4), saved.length - 4)) as { pathSets: number[][] };
    // The kept document's set and the last custom one's, not one per name ever seen.
    expect(footer.pathSets).toHaveLength(2);
    const loaded = createMiniSearchIndex();
    expect(await loaded.loadSnapshot(file)).toBe('w');
    expect((await loaded.search({ ...glacier, q: '_exists_:custom_49' })).hits.map((h) => h.id)).toEqual(['a']);
    expect((await loaded.search({ ...glacier, q: '_exists_:metadata.title' })).total).toBe(2);
  });
});

describe('minisearch snapshots round trip', () => {
  const requests: Partial<SearchRequest>[] = [
    { q: 'glacier' },
    { q: 'gla*' },
    { q: 'glacer~' },
    { q: 'flood~1 map*' },
    { q: '"sea ice"' },
    { q: 'metadata.description:delta' },
    { q: '_exists_:metadata.creators', sort: 'newest', page: 2 },
    { q: 'metadata.publication_date:[2024-02-01 TO 2024-03-15]' },
    { q: 'NOT seal' },
    { q: 'müller OR ålesund' },
    { q: null, bbox: [-20, -20, 40, 40] },
    { q: 'glacier', filter: { kinds: ['resource'], published: true, viewerId: 'reader-9' } },
    { q: 'ice*', aggregations: ['resource_type', 'access_status'], size: 50 },
    // Fields from their paths' postings and the values' lines.
    { q: 'metadata.creators.name:glac*' },
    { q: 'metadata.creators:muller' },
    { q: 'metadata.description:"of the sea"' },
    { q: 'metadata.description:glacer~ -metadata.title:glacier' },
    { q: 'metadata.subjects:sea' },
    { q: 'metadata.subjects:"sea glacier"' },
    { q: 'metadata:delta*' },
  ];
  const answers = async (index: ReturnType<typeof createMiniSearchIndex>) =>
    Promise.all(requests.map((r) => index.search({ ...glacier, size: 20, ...r, filter: { ...glacier.filter, ...r.filter } })));

  it('answers as the index it was saved from, fields included, and after writes on both as well', async () => {
    const fresh = createMiniSearchIndex();
    const docs = snapshotCorpus();
    await fresh.upsert(docs);
    await fresh.remove(['published:d5']);
    await fresh.upsert([{ ...docs[7]!, body: { id: 'd7', metadata: { title: 'glacier glaze', subjects: ['sea glacier', { subject: 'ice' }] } } }]);
    const file = snapshotFile();
    await fresh.saveSnapshot(file, 'saved');
    const loaded = createMiniSearchIndex();
    expect(await loaded.loadSnapshot(file)).toBe('saved');
    const expected = await answers(fresh);
    expect(expected.map((a) => a.total).every((t) => t > 0)).toBe(true);
    expect(await answers(loaded)).toEqual(expected);
    // Written to after loading: the rows, words, postings and range values read from the file are replaced.
    for (const index of [fresh, loaded]) {
      await index.upsert([{ ...docs[1]!, body: { id: 'd1', metadata: { title: 'glacial seal', publication_date: '2024-02-02', subjects: ['delta'] } } }]);
      await index.remove(['published:d2', 'published:d3', 'published:d7']);
    }
    expect(await answers(loaded)).toEqual(await answers(fresh));
    const again = snapshotFile();
    await loaded.saveSnapshot(again, 'again');
    const reloaded = createMiniSearchIndex();
    expect(await reloaded.loadSnapshot(again)).toBe('again');
    expect(await answers(reloaded)).toEqual(await answers(fresh));
  });

  it('decides field queries from the index alone, never from the bodies', async () => {
    const fresh = createMiniSearchIndex();
    await fresh.upsert(snapshotCorpus());
    const file = snapshotFile();
    await fresh.saveSnapshot(file, 'w');
    // The same snapshot with every body `{}`: what reads a body finds no field in it.
    const saved = readFileSync(file);
    const footerLength = saved.readUInt32LE(saved.length - 4);
    const footer = JSON.parse(saved.toString('utf8', saved.length - 4 - footerLength, saved.length - 4)) as { rows: number; sections: Record<string, [number, number]> };
    const [start, end] = footer.sections['bodies'] ?? [0, 0];
    const [endsStart, endsEnd] = footer.sections['bodyEnds'] ?? [0, 0];
    const ends = Buffer.from(Uint32Array.from({ length: footer.rows }, (_, i) => 2 * (i + 1)).buffer);
    expect(endsStart).toBe(end);
    const emptied = Buffer.concat([saved.subarray(0, start), Buffer.from('{}'.repeat(footer.rows)), ends, saved.subarray(endsEnd, saved.length - 4 - footerLength)]);
    const sections = shifted(footer.sections, end, 2 * footer.rows - (end - start));
    sections['bodies'] = [start, start + 2 * footer.rows];
    const newFooter = Buffer.from(JSON.stringify({ ...footer, sections }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(newFooter.length);
    const bodiless = snapshotFile();
    writeFileSync(bodiless, Buffer.concat([emptied, newFooter, length]));
    const loaded = createMiniSearchIndex();
    expect(await loaded.loadSnapshot(bodiless)).toBe('w');
    const ids = async (index: ReturnType<typeof createMiniSearchIndex>, q: string) => (await index.search({ ...glacier, q, size: 200 })).hits.map((h) => h.id);
    for (const q of ['metadata.description:sea', 'metadata.creators.name:glac*', 'metadata.creators:muller~', 'metadata.subjects:sea', 'metadata.description:"of the sea"', 'NOT metadata.subjects:ice']) {
      const want = await ids(fresh, q);
      expect(want.length).toBeGreaterThan(0);
      expect({ q, ids: await ids(loaded, q) }).toEqual({ q, ids: want });
    }
  });

  it('refuses a snapshot of an earlier format, whose words are not filed by path, so the index is rebuilt', async () => {
    // Written by an earlier release (format 4) from `snapshotCorpus()`.
    const fixture = join(import.meta.dirname, 'fixtures', 'minisearch-snapshot-format-4.bin');
    const index = createMiniSearchIndex();
    await index.upsert([doc('keep', 'Glacier kept')]);
    expect(await index.loadSnapshot(fixture)).toBeNull();
    expect((await index.search(glacier)).hits.map((h) => h.id)).toEqual(['keep']);
  });
});

/** Sections moved by `by` bytes from `at` on, for a body edited before them. */
function shifted(sections: Record<string, [number, number]>, at: number, by: number): Record<string, [number, number]> {
  const move = (n: number) => (n >= at ? n + by : n);
  return Object.fromEntries(Object.entries(sections).map(([name, [start, end]]) => [name, [move(start), move(end)]]));
}

describe('minisearch writes of large documents in steps', () => {
  /** A large record's document: its metadata marked large (as normalisation marks it) and some 40 KB of words. */
  const large = (id: string, word: string, parentId = `p-${id}`) => {
    const metadata = {
      title: `Large ${word}`,
      description: Array.from({ length: 600 }, (_, i) => `${word} sea ice moraine number${i % 50}`).join(' '),
      subjects: Array.from({ length: 400 }, (_, i) => ({ subject: `${word} subject${i}` })),
      publication_date: '2024-03-01',
    };
    markLarge(metadata);
    return searchDocument(id, metadata.title, { parentId, body: { id, metadata } });
  };
  const small = (id: string, title: string) => searchDocument(id, title, { body: { id, metadata: { title, description: `${title} sea ice` } } });
  const queries = ['glacier', 'sea', 'gla*', 'glacer~', '"sea ice"', 'metadata.description:moraine', 'metadata.subjects.subject:glacier', '_exists_:metadata.subjects', 'NOT glacier', 'metadata.publication_date:[2024 TO *]'];
  const answersOf = (index: SearchIndexLike) => Promise.all(queries.map((q) => index.search({ ...glacier, q, size: 20, aggregations: ['resource_type'] })));
  type SearchIndexLike = ReturnType<typeof createMiniSearchIndex>;
  /** An index holding `docs`, written at once. */
  const holding = async (docs: SearchDocument[]) => {
    const index = createMiniSearchIndex();
    if (docs.length > 0) await index.upsert(docs.map((d) => ({ ...d, body: { ...d.body, metadata: { ...(d.body['metadata'] as object) } } })));
    return index;
  };
  const base = [small('a', 'Glacier retreat'), small('b', 'Sea ice extent'), small('c', 'Glacial lakes')];

  /** Slices that, at every turn, ask the index each query and expect what it answered before the write or will answer after. */
  function checkingSlices(index: () => SearchIndexLike, before: Awaited<ReturnType<typeof answersOf>>, after: Awaited<ReturnType<typeof answersOf>>, turns: { n: number }) {
    return () => ({
      due: () => true,
      turn: async () => {
        turns.n++;
        const now = await answersOf(index());
        expect(now.every((a, i) => JSON.stringify(a) === JSON.stringify(before[i])) || now.every((a, i) => JSON.stringify(a) === JSON.stringify(after[i]))).toBe(true);
      },
    });
  }

  it('never shows a search a large document half added, half replaced or half removed', async () => {
    const steps: [string, SearchDocument[], (index: SearchIndexLike) => Promise<void>, SearchDocument[]][] = [
      ['added', base, (index) => index.upsert([large('big', 'glacier')]), [...base, large('big', 'glacier')]],
      ['replaced', [...base, large('big', 'glacier')], (index) => index.upsert([large('big', 'fjord')]), [...base, large('big', 'fjord')]],
      ['replaced by a small one', [...base, large('big', 'glacier')], (index) => index.upsert([small('big', 'Sea')]), [...base, small('big', 'Sea')]],
      ['removed', [...base, large('big', 'glacier')], (index) => index.remove(['published:big', 'published:a']), base.slice(1)],
      ['added beside a small one, in one batch', base, (index) => index.upsert([large('big', 'glacier'), small('d', 'Glacier')]), [...base, large('big', 'glacier'), small('d', 'Glacier')]],
    ];
    for (const [what, from, write, to] of steps) {
      const before = await answersOf(await holding(from));
      const after = await answersOf(await holding(to));
      expect({ what, differs: JSON.stringify(before) !== JSON.stringify(after) }).toEqual({ what, differs: true });
      const turns = { n: 0 };
      let index: SearchIndexLike | null = null;
      index = createMiniSearchIndex({ slices: checkingSlices(() => index as SearchIndexLike, before, after, turns) });
      // Written at once first: the checks begin with the write under test.
      const setUp = await holding(from);
      const file = snapshotFile();
      await setUp.saveSnapshot(file, 'w');
      await index.loadSnapshot(file);
      expect(await answersOf(index)).toEqual(before);
      turns.n = 0;
      await write(index);
      expect({ what, turns: turns.n > 10 }).toEqual({ what, turns: true });
      expect({ what, answers: await answersOf(index) }).toEqual({ what, answers: after });
    }
  }, 60_000);

  it('answers searches walking the term tree in slices while a large document is written in steps beside them: each as before or as after', async () => {
    // Prefixes and fuzzy words of hundreds of expansions: their walks take turns part way.
    const walking = ['subject*', 'number*', 'subject1~', 'numbr~', 'gla* OR sea~', 'zq*', 'zq1000~'];
    // Words of one stem, every seventh number from `first`: another's words split the edges of its tree.
    const wordy = (id: string, first: number) => {
      const metadata = { title: `Numbers ${id}`, description: Array.from({ length: 3000 }, (_, i) => `zq${first + 7 * i}`).join(' ') };
      markLarge(metadata);
      return searchDocument(id, metadata.title, { body: { id, metadata } });
    };
    const answersNow = (index: SearchIndexLike) => Promise.all(walking.map(async (q) => JSON.stringify(await index.search({ ...glacier, q, size: 20 }))));
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const everyStep = () => ({ due: () => true, turn: nextTurn });
    const steps: [string, SearchDocument[], (index: SearchIndexLike) => Promise<void>, SearchDocument[]][] = [
      ['added', base, (index) => index.upsert([large('big', 'glacier')]), [...base, large('big', 'glacier')]],
      ['added beside words of its stem', [...base, wordy('w0', 0)], (index) => index.upsert([wordy('w3', 3)]), [...base, wordy('w0', 0), wordy('w3', 3)]],
      ['removed beside words of its stem', [...base, wordy('w0', 0), wordy('w3', 3)], (index) => index.remove(['published:w3']), [...base, wordy('w0', 0)]],
      ['replaced', [...base, large('big', 'glacier')], (index) => index.upsert([large('big', 'seal')]), [...base, large('big', 'seal')]],
      ['removed', [...base, large('big', 'glacier'), large('other', 'fjord')], (index) => index.remove(['published:big']), [...base, large('other', 'fjord')]],
    ];
    for (const [what, from, write, to] of steps) {
      const before = await answersNow(await holding(from));
      const after = await answersNow(await holding(to));
      const index = createMiniSearchIndex({ slices: everyStep, searchSlices: everyStep });
      await index.upsert(from.map((d) => ({ ...d, body: { ...d.body, metadata: { ...(d.body['metadata'] as object) } } })));
      let writing = true;
      const written = write(index).then(() => {
        writing = false;
      });
      while (writing) {
        const now = await answersNow(index);
        for (const [i, answer] of now.entries()) expect({ what, q: walking[i], either: answer === before[i] || answer === after[i] }).toEqual({ what, q: walking[i], either: true });
      }
      await written;
      expect({ what, answers: await answersNow(index) }).toEqual({ what, answers: after });
    }
  }, 60_000);

  it('keeps a large record prepared in steps as it keeps one prepared at once: the same snapshot, byte for byte', async () => {
    const shaped = (mark: boolean) => {
      const doc = large('big', 'glacier');
      const metadata = { ...(doc.body['metadata'] as Record<string, unknown>), keywords: [], subjects: ['sea', { subject: 'ice' }], custom: { 'a.b': 'x', a: { b: 'y' } } };
      if (mark) markLarge(metadata);
      const rings = [[0, 0, 5, 0, 5, 5, 0, 0]];
      return { ...doc, bounds: [[0, 0, 5, 5]] as SearchDocument['bounds'], shapes: [{ type: 'polygon' as const, rings }, { type: 'point' as const, xy: [1, 1] as [number, number] }], body: { ...doc.body, metadata } };
    };
    const saved = async (mark: boolean) => {
      const index = createMiniSearchIndex();
      await index.upsert(base);
      await index.upsert([shaped(mark)]);
      const file = snapshotFile();
      await index.saveSnapshot(file, 'w');
      return readFileSync(file);
    };
    expect((await saved(true)).equals(await saved(false))).toBe(true);
  });

  it('applies writes asked one after another in that order, a large one ahead of a small one, without either awaited', async () => {
    const index = createMiniSearchIndex();
    await index.upsert(base);
    const key = 'published:big';
    const asked = [index.upsert([large('big', 'glacier')]), index.remove([key]), index.upsert([large('big', 'fjord')]), index.upsert([small('big', 'Sea')]), index.upsert([large('e', 'fjord')])];
    const keys = index.keysOfParent('p-big');
    await Promise.all(asked);
    expect(await keys).toEqual([key]);
    expect(await answersOf(index)).toEqual(await answersOf(await holding([...base, small('big', 'Sea'), large('e', 'fjord')])));
    // Two upserts of one key in one batch: the last wins.
    await index.upsert([large('big', 'glacier'), large('big', 'moraine')]);
    expect(await answersOf(index)).toEqual(await answersOf(await holding([...base, large('e', 'fjord'), large('big', 'moraine')])));
    // Removed right after, unawaited: gone.
    const upserted = index.upsert([large('f', 'glacier')]);
    await Promise.all([upserted, index.remove(['published:f'])]);
    expect((await index.search({ ...glacier, q: 'metadata.subjects.subject:glacier' })).hits.map((h) => h.id)).toEqual([]);
  }, 60_000);

  it('clears after a large upsert asked before, and saves a snapshot between writes: those asked before are in it, those asked meanwhile are not', async () => {
    const index = createMiniSearchIndex();
    await index.upsert(base);
    const upserting = index.upsert([large('big', 'glacier')]);
    const clearing = index.clear();
    const after = index.upsert([small('z', 'Glacier after')]);
    await Promise.all([upserting, clearing, after]);
    expect((await index.search({ ...glacier, size: 20 })).hits.map((h) => h.id)).toEqual(['z']);

    const source = createMiniSearchIndex();
    await source.upsert(base);
    const file = snapshotFile();
    const adding = source.upsert([large('big', 'glacier')]);
    const saving = source.saveSnapshot(file, 'w');
    const later = source.upsert([large('late', 'glacier')]);
    await Promise.all([adding, saving, later]);
    const loaded = createMiniSearchIndex();
    expect(await loaded.loadSnapshot(file)).toBe('w');
    expect(await answersOf(loaded)).toEqual(await answersOf(await holding([...base, large('big', 'glacier')])));
    expect(await answersOf(source)).toEqual(await answersOf(await holding([...base, large('big', 'glacier'), large('late', 'glacier')])));
  }, 60_000);
});

describe('minisearch searches read in slices', () => {
  const query: SearchRequest = { ...glacier, q: 'gla* OR sea~ OR ice* OR fjord~ OR morain*', size: 20 };
  const from = [doc('a', 'Glacier retreat'), doc('b', 'Sea ice'), doc('c', 'Fjord glaciers'), doc('e', 'Glacial sea ice')];
  /** A search's slices, each ending in a turn that runs `onTurn` (a write, say). */
  const turning = (onTurn: () => Promise<void>) => () => ({ due: () => true, turn: onTurn });
  /** An index whose searches' turns are counted, the next of them running the write set as `pending`. */
  function writingBetweenSlices() {
    const between: { pending: (() => Promise<void>) | null; turns: number } = { pending: null, turns: 0 };
    const index = createMiniSearchIndex({
      searchSlices: turning(async () => {
        between.turns++;
        const write = between.pending;
        between.pending = null;
        if (write !== null) await write();
      }),
    });
    return { index, between };
  }

  it('answers as of the index after a write shown between two of its slices, never a mix of before and after', async () => {
    const { index, between } = writingBetweenSlices();
    await index.upsert(from);
    const before = await index.search(query);
    // Each write, and what the index holds after it.
    const writes: [string, () => Promise<void>, SearchDocument[]][] = [
      ['upsert', () => index.upsert([doc('a', 'Moraine'), doc('d', 'Glacial fjord')]), [doc('a', 'Moraine'), from[1], from[2], from[3], doc('d', 'Glacial fjord')].filter((d) => d !== undefined)],
      ['remove', () => index.remove(['published:b', 'published:e']), [doc('a', 'Moraine'), from[2], doc('d', 'Glacial fjord')].filter((d) => d !== undefined)],
      ['clear', () => index.clear().then(() => index.upsert([doc('z', 'Sea moraine')])), [doc('z', 'Sea moraine')]],
    ];
    for (const [what, write, held] of writes) {
      const reference = createMiniSearchIndex();
      await reference.upsert(held);
      between.turns = 0;
      between.pending = write;
      const answered = await index.search(query);
      expect({ what, yielded: between.turns > 4 }).toEqual({ what, yielded: true });
      expect({ what, answered }).toEqual({ what, answered: await reference.search(query) });
      expect(answered).not.toEqual(before);
    }
  });

  it('compares a range with every document in slices, and answers as of the index after a write shown between two of them', async () => {
    const { index, between } = writingBetweenSlices();
    const dated = (i: number) => searchDocument(`d${i}`, `Glacier ${i}`, { body: { id: `d${i}`, metadata: { title: `Glacier ${i}`, publication_date: String(1900 + (i % 200)) } } });
    const held = Array.from({ length: 3000 }, (_, i) => dated(i));
    await index.upsert(held);
    const ranged: SearchRequest = { ...glacier, q: 'metadata.publication_date:[2000 TO 2050]', sort: 'newest', size: 5 };
    const before = await index.search(ranged);
    expect(between.turns).toBeGreaterThanOrEqual(10);
    // 1900 + 100..150 for 51 of every 200 documents.
    expect(before.total).toBe(15 * 51);
    between.pending = () => index.remove(held.filter((_, i) => i % 2 === 0).map((d) => d.key));
    const answered = await index.search(ranged);
    const reference = createMiniSearchIndex();
    await reference.upsert(held.filter((_, i) => i % 2 === 1));
    expect(answered).toEqual(await reference.search(ranged));
    expect(answered.total).toBeLessThan(before.total);
  });

  it('still answers, as of the last write, when a write is shown between every two slices', async () => {
    let writing = true;
    let written = 0;
    const index = createMiniSearchIndex({
      searchSlices: turning(async () => {
        if (!writing) return;
        written++;
        await index.upsert([doc(`w${written}`, `Glacier ${written}`)]);
      }),
    });
    await index.upsert(from);
    const answered = await index.search(query);
    writing = false;
    expect(written).toBeGreaterThan(0);
    expect(answered.total).toBe(from.length + written);
    expect(answered).toEqual(await index.search(query));
  });
});
