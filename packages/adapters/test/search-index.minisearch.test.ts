import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SearchRequest } from '@krs/domain';
import { createMiniSearchIndex } from '../src/search/index.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { searchDocument } from './contracts/builders.ts';
import { tempDir } from './sqlite-fixture.ts';

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
    const [rowsStart, rowsEnd] = footer.sections['rows'] ?? [0, 0];
    const rows = body.toString('utf8', rowsStart, rowsEnd);

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
    await refuse(withFooter({ watermark: 5 }));
    await refuse(withFooter({ rows: 1 }));
    await refuse(withFooter({ sections: { ...footer.sections, rows: [0, good.length * 2] } }));
    // A row's line broken, a row named twice, a row the word index does not hold.
    const replaced = (from: string, to: string) => Buffer.concat([body.subarray(0, rowsStart), Buffer.from(rows.replace(from, to)), body.subarray(rowsEnd)]);
    await refuse(withFooter({ sections: shifted(footer.sections, rowsEnd, -1) }, replaced('[', '')));
    await refuse(withFooter({}, replaced('"published:b"', '"published:a"')));
    await refuse(withFooter({}, replaced('[1,', '[7,')));
    expect(await target.loadSnapshot(file)).toBe('w');
    expect((await target.search(glacier)).hits.map((h) => h.id).sort()).toEqual(['a', 'b']);
  });
});

/** Sections moved by `by` bytes from `at` on, for a body edited before them. */
function shifted(sections: Record<string, [number, number]>, at: number, by: number): Record<string, [number, number]> {
  const move = (n: number) => (n >= at ? n + by : n);
  return Object.fromEntries(Object.entries(sections).map(([name, [start, end]]) => [name, [move(start), move(end)]]));
}
