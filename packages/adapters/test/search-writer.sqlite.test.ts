import { join } from 'node:path';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { describe, expect, it } from 'vitest';
import { createSqliteSearchIndex } from '../src/search/index.ts';
import { createThreadWriter, type PreparedDoc } from '../src/search/sqlite-writer.ts';
import { tempDir } from './sqlite-fixture.ts';

const prepared = (key: string, boxes: PreparedDoc['boxes'] = []): PreparedDoc => ({
  key,
  header: {
    id: key,
    kind: 'resource',
    state: 'published',
    parentId: 'parent',
    ownerId: 'owner',
    versionIndex: 1,
    isLatest: 1,
    inUserListing: 1,
    isUserLatest: 1,
    isPublic: 1,
    readers: '[]',
    created: '2024-01-01T00:00:00.000Z',
    updated: '2024-01-01T00:00:00.000Z',
    resourceType: 'dataset',
    resourceTypeLabel: 'Dataset',
    accessStatus: 'open',
  },
  body: '{}',
  title: `Title ${key}`,
  text: 'flood extent',
  paths: '',
  fields: [['metadata.description', 'flood extent', 0]],
  ranges: [],
  boxes,
  shapes: null,
});

/** A file with the index's tables, as the server's own connection creates them. */
function indexFile(): string {
  const file = join(tempDir(), 'search.sqlite');
  createSqliteSearchIndex(file).close();
  return file;
}

describe('sqlite search writer thread', () => {
  it('answers each of the writes asked for together on its own: one the index refuses fails alone and leaves nothing behind', async () => {
    const writer = createThreadWriter(indexFile());
    try {
      // West of east is a box the R*Tree refuses.
      const refused = prepared('c', [[10, 0, 5, 1]]);
      const writes = [prepared('a'), prepared('b'), refused, prepared('d'), prepared('e')].map((doc) => writer.upsert([doc]));
      const outcomes = await Promise.allSettled(writes);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/constraint/i);
      const generations = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.generation] : []));
      // Each write that committed counts once, in the order asked.
      expect(generations).toEqual([...generations].sort((x, y) => x - y));
      expect(new Set(generations).size).toBe(4);
      expect((await writer.keysOfParent('parent')).sort()).toEqual(['a', 'b', 'd', 'e']);
    } finally {
      writer.close();
    }
  });

  it('writes the documents of the writes asked for together into one segment of the text index', async () => {
    const file = indexFile();
    const writer = createThreadWriter(file);
    try {
      await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((key) => writer.upsert([prepared(key)])));
    } finally {
      await writer.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      // FTS5 numbers each segment's pages from segment id << 37; id 10 is the structure record.
      const segments = db.prepare('SELECT count(DISTINCT id >> 37) FROM doc_fts_data WHERE id >> 37 > 0').pluck().get();
      expect(segments).toBe(1);
    } finally {
      db.close();
    }
  });

  it('completes the writes asked for before a close, and refuses those after', async () => {
    const file = indexFile();
    const writer = createThreadWriter(file);
    const before = writer.upsert([prepared('a')]);
    const alsoBefore = writer.upsert([prepared('b')]);
    writer.close();
    await expect(before).resolves.toMatchObject({ rowids: [expect.any(Number)] });
    await expect(alsoBefore).resolves.toMatchObject({ rowids: [expect.any(Number)] });
    await expect(writer.upsert([prepared('c')])).rejects.toThrow();
    const again = createThreadWriter(file);
    try {
      expect((await again.keysOfParent('parent')).sort()).toEqual(['a', 'b']);
    } finally {
      again.close();
    }
  });
});

describe('sqlite search writer thread, long texts', () => {
  // Accents, a pair of surrogates, and the size of the largest legal record's text.
  const long = (tag: string) => `${'é'.repeat(65_535)}😀${tag} ${'Zanzibarite '.repeat(20_000)}`;
  const large = (key: string, tag: string): PreparedDoc => ({ ...prepared(key), body: JSON.stringify({ tag, pad: long(tag) }), text: long(tag), title: tag });
  const small = (key: string, tag: string): PreparedDoc => ({ ...prepared(key), body: JSON.stringify({ tag }), text: tag, title: tag });

  it('keeps the order writes were asked in when large and small documents of one key alternate', async () => {
    const file = indexFile();
    const writer = createThreadWriter(file);
    try {
      const writes = [
        writer.upsert([large('x', 'x1')]),
        writer.upsert([small('y', 'y1')]),
        writer.remove(['x']),
        writer.upsert([small('x', 'x2')]),
        writer.upsert([large('y', 'y2')]),
        writer.upsert([large('x', 'x3')]),
        writer.remove(['y']),
        writer.upsert([small('x', 'x4')]),
        writer.upsert([large('z', 'z1')]),
      ];
      await Promise.all(writes);
    } finally {
      await writer.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      const rows = db.prepare('SELECT doc.key, doc_fts.title, doc_fts.text, doc_body.doc AS body FROM doc JOIN doc_fts ON doc_fts.rowid = doc.rowid JOIN doc_body ON doc_body.rowid = doc.rowid ORDER BY doc.key').all();
      const z = large('z', 'z1');
      expect(rows).toEqual([
        { key: 'x', title: 'x4', text: 'x4', body: JSON.stringify({ tag: 'x4' }) },
        { key: 'z', title: 'z1', text: z.text, body: z.body },
      ]);
    } finally {
      db.close();
    }
  }, 60_000);
});
