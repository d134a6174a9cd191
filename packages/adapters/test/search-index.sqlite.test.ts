import { openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { describe, expect, it } from 'vitest';
import type { SearchRequest } from '@krs/domain';
import { fieldPaths, flatten } from '@krs/domain/search';
import { largestLegalMetadata } from '@krs/domain/testing';
import { createSqliteSearchIndex } from '../src/search/index.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { searchDocument } from './contracts/builders.ts';
import { pathToken } from '../src/search/path-token.ts';
import { tempDir } from './sqlite-fixture.ts';

const dbFile = () => join(tempDir(), 'search.sqlite');

searchIndexContract('sqlite fts5', async () => createSqliteSearchIndex(dbFile()));

describe('sqlite search index file', () => {
  it('fails its readiness check once the file is overwritten or removed under it', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    await index.upsert([searchDocument('a', 'Glacier retreat')]);
    await expect(index.check()).resolves.toBeUndefined();
    const fd = openSync(file, 'r+');
    writeSync(fd, new Uint8Array(64).fill(0x55), 0, 64, 0);
    closeSync(fd);
    await expect(index.check()).rejects.toThrow(/not an SQLite database/);
    rmSync(file);
    await expect(index.check()).rejects.toThrow();
    index.close();
  });

  it('stores the largest legal record, prepared in steps, as it stores one prepared at once', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const doc = searchDocument('big', 'Big', { body: { id: 'big', metadata: largestLegalMetadata() } });
    await index.upsert([doc]);
    index.close();
    const db = new Database(file, { readonly: true });
    const flat = flatten(doc.body);
    expect(db.prepare('SELECT title, text, paths FROM doc_fts').all()).toEqual([
      {
        title: (flat.get('metadata.title') ?? []).join(' '),
        text: Array.from(flat.values(), (values) => values.join(' ')).join(' '),
        paths: fieldPaths(flat).map(pathToken).join(' '),
      },
    ]);
    expect(db.prepare('SELECT doc FROM doc_body').all()).toEqual([{ doc: JSON.stringify({ ...doc, shapes: undefined }) }]);
    db.close();
    // Building the largest legal record takes seconds on a busy machine.
  }, 60_000);

  it('keeps its documents when closed and opened again', async () => {
    const file = dbFile();
    const doc = searchDocument('a', 'Glacier retreat', { bounds: [[1, 1, 2, 2]] });
    const first = createSqliteSearchIndex(file);
    await first.upsert([doc]);
    first.close();
    const again = createSqliteSearchIndex(file);
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: 'glacier', bbox: [0, 0, 5, 5], sort: 'bestmatch', page: 1, size: 10, aggregations: [] };
    expect((await again.search(request)).hits.map((h) => h.id)).toEqual(['a']);
    expect(again.size()).toBe(1);
    again.close();
  });

  it('sees what another connection wrote to the file (krs reindex while the server runs)', async () => {
    const file = dbFile();
    const server = createSqliteSearchIndex(file);
    const cli = createSqliteSearchIndex(file);
    const doc = (id: string, title: string, isPublic = true) =>
      searchDocument(id, title, { isPublic, resourceType: { id: 'dataset', label: 'Dataset' }, accessStatus: isPublic ? 'open' : 'restricted' });
    await server.upsert([doc('a', 'Glacier retreat')]);
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: null, bbox: null, sort: 'newest', page: 1, size: 10, aggregations: ['access_status'] };
    expect((await server.search(request)).total).toBe(1);
    await cli.clear();
    await cli.upsert([doc('b', 'Sea ice'), doc('c', 'Snow cover', false)]);
    const seen = await server.search(request);
    expect(seen.hits.map((h) => h.id)).toEqual(['b']);
    expect(seen.aggregations.access_status?.map((b) => [b.key, b.docCount])).toEqual([['open', 1]]);
    expect((await server.search({ ...request, filter: { kinds: ['resource'], viewerId: 'o' } })).hits.map((h) => h.id).sort()).toEqual(['b', 'c']);
    expect(server.size()).toBe(2);
    server.close();
    cli.close();
  });

  it('answers searches made while its own writes and those of another connection are under way with what has been written', async () => {
    const file = dbFile();
    const server = createSqliteSearchIndex(file);
    const cli = createSqliteSearchIndex(file);
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: null, bbox: null, sort: 'newest', page: 1, size: 100, aggregations: [] };
    const writes: Promise<void>[] = [];
    const totals: Promise<number>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(server.upsert([searchDocument(`s${i}`, `Server document ${i}`)]));
      if (i % 10 === 0) writes.push(cli.upsert([searchDocument(`c${i}`, `Other process ${i}`)]));
      totals.push(server.search(request).then((r) => r.total));
    }
    await Promise.all(writes);
    // Each answer counts only documents written by then, never more.
    for (const total of await Promise.all(totals)) expect(total).toBeLessThanOrEqual(44);
    const after = await server.search(request);
    expect(after.total).toBe(44);
    expect(after.hits.map((h) => h.id).sort()).toEqual([...Array.from({ length: 4 }, (_, i) => `c${i * 10}`), ...Array.from({ length: 40 }, (_, i) => `s${i}`)].sort());
    expect(server.size()).toBe(44);
    await server.remove(['published:s0', 'published:c0']);
    expect(server.size()).toBe(42);
    expect((await cli.search(request)).total).toBe(42);
    server.close();
    cli.close();
  });

  it('refuses a file of an older layout, so the caller starts it afresh', () => {
    const file = dbFile();
    const old = new Database(file);
    old.exec('CREATE TABLE doc (rowid INTEGER PRIMARY KEY, key TEXT)');
    old.close();
    expect(() => createSqliteSearchIndex(file)).toThrow(/layout/);
    // Its own layout opens again.
    const current = dbFile();
    createSqliteSearchIndex(current).close();
    expect(() => createSqliteSearchIndex(current).close()).not.toThrow();
  });
});
