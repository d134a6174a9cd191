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
