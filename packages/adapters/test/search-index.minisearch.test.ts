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
    await source.upsert([doc('a', 'Glacier retreat')]);
    await source.saveSnapshot(file, 'w');
    const good = JSON.parse(readFileSync(file, 'utf8')) as { format: string; docs: unknown[]; mini: { documentCount: number } };

    const target = createMiniSearchIndex();
    await target.upsert([doc('keep', 'Glacier kept')]);
    const refuse = async (content: string | null) => {
      const f = snapshotFile();
      if (content !== null) writeFileSync(f, content);
      expect(await target.loadSnapshot(f)).toBeNull();
      expect((await target.search(glacier)).hits.map((h) => h.id)).toEqual(['keep']);
    };
    await refuse(null);
    await refuse('');
    await refuse('{"format":');
    await refuse('null');
    await refuse(JSON.stringify({ ...good, format: 'krs-minisearch-0' }));
    await refuse(JSON.stringify({ ...good, watermark: 5 }));
    await refuse(JSON.stringify({ ...good, docs: [{ key: 'x' }] }));
    await refuse(JSON.stringify({ ...good, docs: [...good.docs, ...good.docs] }));
    await refuse(JSON.stringify({ ...good, docs: [] }));
    await refuse(JSON.stringify({ ...good, mini: { nonsense: true } }));
    await refuse(JSON.stringify({ ...good, docs: [{ ...(good.docs[0] as object), key: 'published:other' }] }));
  });
});
