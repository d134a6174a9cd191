import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SearchRequest } from '@krs/domain';
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

describe('minisearch snapshots of the format before (a JSON line per row)', () => {
  // Written by the release before from `snapshotCorpus()`, then d5 removed and d7 replaced.
  const fixture = join(import.meta.dirname, 'fixtures', 'minisearch-snapshot-format-4.bin');
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
  ];
  const answers = async (index: ReturnType<typeof createMiniSearchIndex>) =>
    Promise.all(requests.map((r) => index.search({ ...glacier, size: 20, ...r, filter: { ...glacier.filter, ...r.filter } })));

  it('loads it and answers as the index it was written from, and saves it in the current format', async () => {
    const fresh = createMiniSearchIndex();
    const docs = snapshotCorpus();
    await fresh.upsert(docs);
    await fresh.remove(['published:d5']);
    await fresh.upsert([{ ...docs[7]!, body: { id: 'd7', metadata: { title: 'glacier glaze' } } }]);
    const loaded = createMiniSearchIndex();
    expect(await loaded.loadSnapshot(fixture)).toBe('2026-11-26T00:00:00.000Z');
    expect(loaded.size()).toBe(119);
    const expected = await answers(fresh);
    expect(expected.map((a) => a.total).every((t) => t > 0)).toBe(true);
    expect(await answers(loaded)).toEqual(expected);

    const file = snapshotFile();
    await loaded.saveSnapshot(file, 'again');
    expect(readFileSync(file).toString('latin1')).toContain('"format":"krs-minisearch-5"');
    const reloaded = createMiniSearchIndex();
    expect(await reloaded.loadSnapshot(file)).toBe('again');
    expect(await answers(reloaded)).toEqual(expected);
    // Written to after loading: the rows, words and range values read from the file are replaced.
    for (const index of [fresh, reloaded]) {
      await index.upsert([{ ...docs[1]!, body: { id: 'd1', metadata: { title: 'glacial seal', publication_date: '2024-02-02' } } }]);
      await index.remove(['published:d2', 'published:d3']);
    }
    expect(await answers(reloaded)).toEqual(await answers(fresh));
  });
});

/** Sections moved by `by` bytes from `at` on, for a body edited before them. */
function shifted(sections: Record<string, [number, number]>, at: number, by: number): Record<string, [number, number]> {
  const move = (n: number) => (n >= at ? n + by : n);
  return Object.fromEntries(Object.entries(sections).map(([name, [start, end]]) => [name, [move(start), move(end)]]));
}
