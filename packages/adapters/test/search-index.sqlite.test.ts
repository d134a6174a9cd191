import { openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Sqlite as Database } from '../src/sql/sqlite-driver.ts';
import { describe, expect, it } from 'vitest';
import type { SearchDocument, SearchRequest } from '@krs/domain';
import { fieldPaths, flatten, fuzzyExpansions, matchesQuery, parseQuery, tokenize } from '@krs/domain/search';
import { largestLegalMetadata } from '@krs/domain/testing';
import { createSqliteSearchIndex, type SqliteSearchIndex } from '../src/search/index.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { searchDocument } from './contracts/builders.ts';
import { randomSearch, seeded } from './contracts/random-search.ts';
import { pathToken } from '../src/search/path-token.ts';
import { createThreadReader } from '../src/search/sqlite-reader.ts';
import { VALUE_SEPARATOR } from '../src/search/sqlite-search-index.ts';
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
    // Values apart, each outside ASCII as the domain's words.
    const column = (values: string[]) => values.map((v) => (/^[\x00-\x7f]*$/.test(v) ? v : tokenize(v).join(' '))).join(` ${VALUE_SEPARATOR} `);
    expect(db.prepare('SELECT title, text, paths FROM doc_fts').all()).toEqual([
      {
        title: column(flat.get('metadata.title') ?? []),
        text: Array.from(flat.values(), column).join(` ${VALUE_SEPARATOR} `),
        paths: fieldPaths(flat).map(pathToken).join(' '),
      },
    ]);
    expect(db.prepare('SELECT doc FROM doc_body').all()).toEqual([{ doc: JSON.stringify({ ...doc, shapes: undefined }) }]);
    db.close();
    // Building the largest legal record takes seconds on a busy machine.
  }, 60_000);

  it('applies upserts and removes of one record in the order asked, large and small documents mixed, none awaited before the next', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const big = (tag: string) => searchDocument('r', tag, { body: { id: 'r', metadata: { title: tag, description: `${tag} ${'glacier '.repeat(40_000)}` } } });
    const small = (tag: string) => searchDocument('r', tag);
    const other = (tag: string) => searchDocument('s', tag, { body: { id: 's', metadata: { title: tag, description: 'moraine '.repeat(40_000) } } });
    const last = small('Fourth');
    await Promise.all([
      index.upsert([big('First')]),
      index.remove([big('First').key]),
      index.upsert([small('Second')]),
      index.upsert([big('Third')]),
      index.upsert([other('Kept')]),
      index.upsert([last]),
      index.upsert([big('Fifth')]),
      index.remove([other('Kept').key]),
      index.upsert([other('Again')]),
      index.remove([big('Fifth').key]),
      index.upsert([last]),
    ]);
    index.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT doc.key, doc_body.doc AS body FROM doc JOIN doc_body ON doc_body.rowid = doc.rowid ORDER BY doc.key').all()).toEqual([
      { key: last.key, body: JSON.stringify({ ...last, shapes: undefined }) },
      { key: other('Again').key, body: JSON.stringify({ ...other('Again'), shapes: undefined }) },
    ]);
    db.close();
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

  it('answers a search after a turn of the event loop, so the page is read and encoded in a slice of its own', async () => {
    const index = createSqliteSearchIndex(dbFile());
    await index.upsert([searchDocument('a', 'Glacier retreat')]);
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: '', bbox: null, sort: 'newest', page: 1, size: 10, aggregations: [] };
    await index.search(request);
    const order: string[] = [];
    const answer = index.search(request).then(() => order.push('answer'));
    setImmediate(() => order.push('turn'));
    await answer;
    expect(order).toEqual(['turn', 'answer']);
    index.close();
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

  it("moves its stamp with another connection's writes, and never names two answers with one stamp while writes are under way", async () => {
    const file = dbFile();
    const server = createSqliteSearchIndex(file);
    const cli = createSqliteSearchIndex(file);
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: null, bbox: null, sort: 'newest', page: 1, size: 100, aggregations: [] };
    const before = server.stamp();
    await cli.upsert([searchDocument('c', 'Written by krs reindex')]);
    expect(server.stamp()).not.toBe(before);
    // What a listing does: the stamp, then the search. Every search under one stamp must answer alike.
    const answers = new Map<string, Set<number>>();
    const writes: Promise<void>[] = [];
    const reads: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      writes.push(server.upsert([searchDocument(`s${i}`, `Server document ${i}`)]));
      if (i % 10 === 0) writes.push(cli.upsert([searchDocument(`c${i}`, `Other process ${i}`)]));
      const stamp = server.stamp();
      reads.push(
        server.search(request).then((r) => {
          if (stamp !== null) answers.set(stamp, (answers.get(stamp) ?? new Set()).add(r.total));
        }),
      );
    }
    await Promise.all([...writes, ...reads]);
    for (const [stamp, totals] of answers) expect({ stamp, totals: [...totals] }).toEqual({ stamp, totals: [...totals].slice(0, 1) });
    const after = server.stamp();
    expect(after).not.toBeNull();
    expect((await server.search(request)).total).toBe(34);
    expect(answers.get(after as string) ?? new Set([34])).toEqual(new Set([34]));
    server.close();
    cli.close();
  });

  it("orders a word's hits, a fuzzy word's, a prefix's, a title word's, several words' and a phrase's as FTS5's bm25 does, equal scores newest first, after updates and removals", async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    let s = 11;
    const random = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const words = ['river', 'rivers', 'rover', 'delta', 'sea', 'ice', 'basin', 'flow'];
    const some = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    // Few distinct titles, lengths and creation times: many hits tie and are told apart by date, then id.
    const doc = (i: number) =>
      searchDocument(`d${String(i).padStart(3, '0')}`, some(1 + Math.floor(random() * 3)), {
        created: `2026-01-0${1 + Math.floor(random() * 4)}T00:00:00.000Z`,
        isPublic: random() > 0.1,
      });
    const withText = (d: SearchDocument) => ({ ...d, body: { ...d.body, metadata: { ...(d.body.metadata as object), description: some(Math.floor(random() * 9)) } } });
    for (let batch = 0; batch < 3; batch++) await index.upsert(Array.from({ length: 50 }, (_, i) => withText(doc(batch * 50 + i))));
    await index.upsert(Array.from({ length: 25 }, (_, i) => withText(doc(i * 3))));
    await index.remove(Array.from({ length: 10 }, (_, i) => `published:d${String(i * 7 + 1).padStart(3, '0')}`));

    const db = new Database(file, { readonly: true });
    const vocabulary = db.prepare("SELECT DISTINCT term FROM doc_vocab WHERE term >= 'r' AND term < 's' AND col IN ('title', 'text')").pluck().all() as string[];
    const bm25Order = (expression: string) =>
      db
        .prepare(
          'SELECT d.id FROM doc_fts f JOIN doc d ON d.rowid = f.rowid WHERE doc_fts MATCH ? AND d.is_public = 1 ORDER BY bm25(doc_fts, 2.0, 1.0, 0.0), d.created DESC, d.id',
        )
        .pluck()
        .all(expression) as string[];
    const request = (q: string): SearchRequest => ({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 200, aggregations: [] });
    const expectBm25Order = async (searched: typeof index) => {
      for (const [q, expression] of [
        ['river', '{title text} : "river"'],
        ['sea', '{title text} : "sea"'],
        ['rivr~', `{title text} : (${fuzzyExpansions('rivr', vocabulary).map((w) => `"${w}"`).join(' OR ')})`],
        // `river` and `rivers`: one phrase for FTS5, each document's occurrences of both counted together.
        ['riv*', '{title text} : "riv" *'],
        // The title alone: its occurrences only, its documents for the IDF.
        ['metadata.title:river', 'title : "river"'],
        // ANDs of phrases: each phrase's IDF from every document holding it, not only the AND's.
        ['river sea', '{title text} : ("river" AND "sea")'],
        ['"sea ice" river', '({title text} : "sea ice") AND ({title text} : "river")'],
      ] as const) {
        const expected = bm25Order(expression);
        expect(expected.length).toBeGreaterThan(q.includes(' ') ? 3 : 20);
        expect((await searched.search(request(q))).hits.map((h) => h.id)).toEqual(expected);
        // A page further on starts where the first left off.
        expect((await searched.search({ ...request(q), page: 2, size: 7 })).hits.map((h) => h.id)).toEqual(expected.slice(7, 14));
      }
    };
    await expectBm25Order(index);
    await index.close();
    // Opened again, the lengths are read from the file; then another connection rewrites documents.
    const again = createSqliteSearchIndex(file);
    await expectBm25Order(again);
    const other = createSqliteSearchIndex(file);
    await other.upsert(Array.from({ length: 30 }, (_, i) => withText(doc(i * 5))));
    await expectBm25Order(again);
    db.close();
    await other.close();
    await again.close();
    // Three indexes on one file, each with its threads: slow on a busy machine.
  }, 30_000);

  it('expands a fuzzy word to as many distinct words as the limit allows, a word in both title and text counted once', async () => {
    const index = createSqliteSearchIndex(dbFile());
    // Forty words within two edits of "glacier", each in a title and in a description.
    const near = Array.from({ length: 40 }, (_, i) => `glacie${String.fromCharCode(97 + (i % 20))}${i < 20 ? '' : 's'}`);
    await index.upsert(near.map((w, i) => searchDocument(`g${i}`, w, { body: { id: `g${i}`, metadata: { title: w, description: `About ${w}.` } } })));
    const found = await index.search({ filter: { kinds: ['resource'], viewerId: null }, q: 'glacier~', bbox: null, sort: 'bestmatch', page: 1, size: 100, aggregations: [] });
    expect(found.total).toBe(40);
    await index.close();
  });

  it("reads the words of a fuzzy word's letter nearest it in order up to its bound, whichever part of the letter they are in", async () => {
    const index = createSqliteSearchIndex(dbFile());
    // 21 000 words of `q`, all of one length: 15 000 before `qm`, 6 000 after, a hundred to a record.
    const words = [...Array.from({ length: 15_000 }, (_, i) => `qa${String(i).padStart(5, '0')}`), ...Array.from({ length: 6_000 }, (_, i) => `qz${String(i).padStart(5, '0')}`)];
    const docs = [];
    for (let i = 0; i < words.length; i += 100) {
      const id = words[i] as string;
      docs.push(searchDocument(id, `Record ${id}`, { body: { id, metadata: { title: `Record ${id}`, description: words.slice(i, i + 100).join(' ') } } }));
    }
    await index.upsert(docs);
    const hits = async (q: string) => (await index.search({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 100, aggregations: [] })).hits.map((h) => h.id);
    expect(await hits('qz04999~')).toContain('qz04900');
    expect(await hits('qa00050~')).toContain('qa00000');
    // Past the first 20 000 words in order, found all the same, with the words just before it
    // (qz05400's record holds qz05400 to qz05499, one and two edits away).
    const past = await hits('qz05500~');
    expect(past).toContain('qz05500');
    expect(past).toContain('qz05400');
    // The 20 000 nearest `qa14999` are the 6 001 after it and the 13 999 before it, down to
    // qa01000: qa04999 (one edit) is read, qa00999 (two) is not, though nearer than most of the 50
    // words a fuzzy word expands to.
    const far = await hits('qa14999~');
    expect(far).toContain('qa04900');
    expect(far).not.toContain('qa00900');
    // Six records removed: their 600 words, still in the segments' leaves, have rows no more, too
    // many to decide from their entries, and the slices are read from the vocabulary. The 20 000
    // words nearest qz05999 are the 14 400 qa words left and 5 600 before it: the ones after it
    // are read, and those before it are read again downwards (20 399 of them: more than the
    // bound), then at once when asked again.
    await index.remove(words.slice(0, 600).filter((_, i) => i % 100 === 0).map((id) => `published:${id}`));
    const late = await hits('qz05999~');
    expect(late).toContain('qz05900');
    expect(late).not.toContain('qa00000');
    expect(await hits('qz05999~')).toEqual(late);
    expect(await hits('qa14999~')).toEqual(far);
    // Once most of the words before qa14999 are gone, the same read takes all that are left.
    await index.remove(words.slice(1000, 14_000).filter((_, i) => i % 100 === 0).map((id) => `published:${id}`));
    const fewer = await hits('qa14999~');
    expect(fewer).toContain('qa00900');
    expect(fewer).not.toContain('qa04900');
    await index.close();
  }, 30_000);

  it("finds a fuzzy word's near words when more than the bound of longer words of its letter come before them in order", async () => {
    const index = createSqliteSearchIndex(dbFile());
    // 21 000 words of `g` twelve characters long (as parts of record ids are), all before `glacier`
    // in order: none can be within two edits of `glacer`, and they are not what the bound counts.
    const long = Array.from({ length: 21_000 }, (_, i) => `ga${String(i).padStart(10, '0')}`);
    const docs = [searchDocument('ice', 'Glacier retreat', { body: { id: 'ice', metadata: { title: 'Glacier retreat' } } })];
    for (let i = 0; i < long.length; i += 100) {
      const id = `r${i}`;
      docs.push(searchDocument(id, `Record ${id}`, { body: { id, metadata: { title: `Record ${id}`, description: long.slice(i, i + 100).join(' ') } } }));
    }
    await index.upsert(docs);
    const found = await index.search({ filter: { kinds: ['resource'], viewerId: null }, q: 'glacer~', bbox: null, sort: 'bestmatch', page: 1, size: 10, aggregations: [] });
    expect(found.hits.map((h) => h.id)).toEqual(['ice']);
    await index.close();
  }, 30_000);

  it('answers _exists_ with what its own writes and those of another connection changed since the path was last asked about', async () => {
    const file = dbFile();
    const server = createSqliteSearchIndex(file);
    const cli = createSqliteSearchIndex(file);
    const doc = (id: string, creators: boolean) =>
      searchDocument(id, `Record ${id}`, { body: { id, metadata: { title: `Record ${id}`, ...(creators ? { creators: [{ name: 'Obi' }] } : {}) } } });
    const request: SearchRequest = { filter: { kinds: ['resource'], viewerId: null }, q: '_exists_:metadata.creators', bbox: null, sort: 'newest', page: 1, size: 100, aggregations: [] };
    const ids = async (index: typeof server) => (await index.search(request)).hits.map((h) => h.id).sort();
    await server.upsert([doc('a', true), doc('b', false), doc('c', true)]);
    expect(await ids(server)).toEqual(['a', 'c']);
    await server.upsert([doc('b', true), doc('c', false), doc('d', true)]);
    await server.remove(['published:a']);
    expect(await ids(server)).toEqual(['b', 'd']);
    await cli.upsert([doc('e', true), doc('d', false)]);
    expect(await ids(server)).toEqual(['b', 'e']);
    await server.clear();
    await server.upsert([doc('f', true)]);
    expect(await ids(server)).toEqual(['f']);
    server.close();
    cli.close();
  }, 30_000);

  it('answers boxes with what its own writes and those of another connection changed, before and after a clear and a reopening', async () => {
    const file = dbFile();
    const server = createSqliteSearchIndex(file);
    const cli = createSqliteSearchIndex(file);
    const doc = (id: string, bounds: SearchDocument['bounds']) => searchDocument(id, `Record ${id}`, { bounds });
    const ids = async (index: typeof server, bbox: [number, number, number, number]) =>
      (await index.search({ filter: { kinds: ['resource'], viewerId: null }, q: null, bbox, sort: 'newest', page: 1, size: 100, aggregations: [] })).hits.map((h) => h.id).sort();
    const west: [number, number, number, number] = [0, 0, 10, 10];
    const east: [number, number, number, number] = [20, 0, 30, 10];
    const pacific: [number, number, number, number] = [170, -10, -170, 10];
    await server.upsert([doc('a', [[1, 1, 2, 2]]), doc('b', [[21, 1, 22, 2]]), doc('c', [[5, 5, 25, 6]]), doc('d', [[175, 0, 176, 1], [-175, 0, -174, 1]])]);
    expect(await ids(server, west)).toEqual(['a', 'c']);
    expect(await ids(server, east)).toEqual(['b', 'c']);
    expect(await ids(server, pacific)).toEqual(['d']);
    // A box moved, one dropped, a document removed.
    await server.upsert([doc('a', [[22, 2, 23, 3]]), doc('c', [])]);
    await server.remove(['published:b']);
    expect(await ids(server, west)).toEqual([]);
    expect(await ids(server, east)).toEqual(['a']);
    await cli.upsert([doc('e', [[3, 3, 4, 4]]), doc('d', [[-172, 0, -171, 1]])]);
    expect(await ids(server, west)).toEqual(['e']);
    expect(await ids(server, pacific)).toEqual(['d']);
    expect(await ids(server, [170, -10, 180, 10])).toEqual([]);
    await server.clear();
    await server.upsert([doc('f', [[6, 6, 7, 7]])]);
    expect(await ids(server, west)).toEqual(['f']);
    expect(await ids(server, east)).toEqual([]);
    server.close();
    cli.close();
    const again = createSqliteSearchIndex(file);
    expect(await ids(again, west)).toEqual(['f']);
    again.close();
  }, 30_000);

  it("orders a field word's, prefix's, fuzzy word's, phrase's and words' hits as FTS5's bm25 does the same in the text, after updates and removals", async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const words = ['river', 'rivers', 'rover', 'delta', 'sea'];
    const some = (i: number, n: number) => Array.from({ length: n }, (_, j) => words[(i * 7 + j * 3 + (i >> 2)) % words.length]).join(' ');
    const doc = (i: number, shift = 0) =>
      searchDocument(`f${String(i).padStart(3, '0')}`, some(i + shift, 1 + (i % 3)), {
        created: `2026-01-0${1 + (i % 4)}T00:00:00.000Z`,
        body: { id: `f${i}`, metadata: { title: some(i + shift, 1 + (i % 3)), description: some(i * 5 + shift, i % 6) } },
      });
    await index.upsert(Array.from({ length: 120 }, (_, i) => doc(i)));
    await index.upsert(Array.from({ length: 20 }, (_, i) => doc(i * 5, 1)));
    await index.remove(Array.from({ length: 8 }, (_, i) => `published:f${String(i * 9 + 2).padStart(3, '0')}`));
    const db = new Database(file, { readonly: true });
    // Only documents whose description (plain words and spaces here) holds a word like the field's.
    // `described`: one pattern, or two the description must both meet, split by `|`.
    const bm25Order = (expression: string, described: string) =>
      db
        .prepare(
          "SELECT d.id FROM doc_fts f JOIN doc d ON d.rowid = f.rowid JOIN doc_body b ON b.rowid = f.rowid WHERE doc_fts MATCH ? AND ' ' || (b.doc ->> '$.body.metadata.description') || ' ' LIKE ? AND ' ' || (b.doc ->> '$.body.metadata.description') || ' ' LIKE ? ORDER BY bm25(doc_fts, 2.0, 1.0, 0.0), d.created DESC, d.id",
        )
        .pluck()
        .all(expression, ...[described.split('|')[0], described.split('|')[1] ?? described.split('|')[0]]) as string[];
    const vocabulary = db.prepare("SELECT DISTINCT term FROM doc_vocab WHERE term >= 'r' AND term < 's' AND col IN ('title', 'text')").pluck().all() as string[];
    const request = (q: string): SearchRequest => ({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 200, aggregations: [] });
    for (const [q, expression, described] of [
      ['metadata.description:river', '{title text} : "river"', '% river %'],
      ['metadata.description:riv*', '{title text} : "riv" *', '% riv%'],
      ['metadata.description:rivr~', `{title text} : (${fuzzyExpansions('rivr', vocabulary).map((w) => `"${w}"`).join(' OR ')})`, '% river %'],
      // A phrase, and words of one field each wanted, scored from their occurrences in the text.
      ['metadata.description:"river delta"', '{title text} : "river delta"', '% river delta %'],
      ['metadata.description:river-delta', '{title text} : ("river" AND "delta")', '% river %|% delta %'],
      ['metadata.description:river AND metadata.description:sea', '{title text} : ("river" AND "sea")', '% river %|% sea %'],
    ] as const) {
      const expected = bm25Order(expression, described);
      expect(expected.length).toBeGreaterThan(20);
      expect((await index.search(request(q))).hits.map((h) => h.id)).toEqual(expected);
      expect((await index.search({ ...request(q), page: 2, size: 7 })).hits.map((h) => h.id)).toEqual(expected.slice(7, 14));
    }
    db.close();
    await index.close();
  });

  it('answers field queries of each scored shape asked side by side as it answers them one at a time', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const words = ['river', 'rivers', 'delta', 'sea', 'ice'];
    const some = (i: number, n: number) => Array.from({ length: n }, (_, j) => words[(i * 3 + j + (i >> 3)) % words.length]).join(' ');
    await index.upsert(
      Array.from({ length: 300 }, (_, i) =>
        searchDocument(`s${String(i).padStart(3, '0')}`, some(i, 1 + (i % 4)), {
          created: `2026-02-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00.000Z`,
          resourceType: i % 3 === 0 ? { id: 'dataset', label: 'Dataset' } : { id: 'image', label: 'Image' },
          body: { id: `s${i}`, metadata: { title: some(i, 1 + (i % 4)), description: some(i * 11, 1 + (i % 7)) } },
        }),
      ),
    );
    const request = (q: string, page: number): SearchRequest => ({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page, size: 9, aggregations: ['resource_type'] });
    const asked = ['metadata.description:river', 'metadata.description:riv*', 'metadata.description:"sea ice"', 'metadata.description:river AND metadata.description:delta', 'river', '"sea ice"'].flatMap((q) => [1, 3].map((page) => request(q, page)));
    const alone = [];
    for (const r of asked) alone.push(await index.search(r));
    expect(alone.every((answer) => answer.hits.length > 0)).toBe(true);
    expect(await Promise.all(asked.map((r) => index.search(r)))).toEqual(alone);
    await index.close();
  });

  it('decides field queries from the index alone, never from the stored bodies', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const body = (id: string, metadata: Record<string, unknown>) => ({ body: { id, metadata } });
    await index.upsert([
      searchDocument('a', 'Sea level', body('a', { title: 'Sea level', description: 'Glacier retreat', creators: [{ person_or_org: { name: 'Smith, John' } }, { person_or_org: { name: 'Doe, Jane' } }] })),
      searchDocument('b', 'Ice cores', body('b', { title: 'Ice cores', description: 'Sea ice from glaciers', creators: [{ person_or_org: { name: 'Doe, John' } }] })),
    ]);
    // Another connection empties the bodies without counting a write: an engine reading them would now find nothing.
    const other = new Database(file);
    other.prepare("UPDATE doc_body SET doc = '{\"body\":{}}'").run();
    other.close();
    const found = async (q: string) => (await index.search({ filter: { kinds: ['resource'], viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 10, aggregations: [] })).hits.map((h) => h.id).sort();
    expect(await found('metadata.description:glacier')).toEqual(['a']);
    expect(await found('metadata.description:glac*')).toEqual(['a', 'b']);
    expect(await found('metadata.creators.person_or_org.name:"john doe"')).toEqual([]);
    expect(await found('metadata.creators.person_or_org.name:"doe john"')).toEqual(['b']);
    expect(await found('metadata.creators:jane -metadata.description:sea')).toEqual(['a']);
    expect(await found('metadata.description:glaceir~')).toEqual(['a']);
    await index.close();
  });

  it('refuses a file written before field paths had an index of their own (layout 3), so the caller rebuilds it', () => {
    const file = dbFile();
    const old = new Database(file);
    old.exec(`CREATE TABLE doc (rowid INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
      CREATE VIRTUAL TABLE doc_fts USING fts5(title, text, paths, prefix = '1 2', tokenize = 'unicode61 remove_diacritics 2');
      PRAGMA user_version = 3;`);
    old.close();
    expect(() => createSqliteSearchIndex(file)).toThrow(/layout 3, not 5/);
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

describe('sqlite search reader threads', () => {
  it('answers exactly a query whose array is one an earlier, longer answer gave back', async () => {
    const file = dbFile();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE n (v INTEGER)');
    const insert = db.prepare('INSERT INTO n (v) VALUES (?)');
    for (let v = 1; v <= 5_000; v++) insert.run(v * 3);
    const reader = createThreadReader(file, 1);
    try {
      const long = await reader.rowids('SELECT v FROM n ORDER BY v', []);
      expect(long.length).toBe(5_000);
      reader.recycle(long);
      const short = await reader.rowids('SELECT v FROM n WHERE v < 30 ORDER BY v DESC', []);
      expect(Array.from(short)).toEqual([27, 24, 21, 18, 15, 12, 9, 6, 3]);
      reader.recycle(short);
      expect(Array.from(await reader.rowids('SELECT v FROM n WHERE v > 14990', []))).toEqual([14_991, 14_994, 14_997, 15_000]);
      expect(Array.from(await reader.rowids('SELECT v FROM n WHERE v < 0', []))).toEqual([]);
    } finally {
      await reader.close();
      db.close();
    }
  });
  /** A read of `n` generated rows: its time grows with `n` (1M: about half a second). */
  const counting = (reader: ReturnType<typeof createThreadReader>, n: number) =>
    reader.rows('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c', [n]);
  /** The order in which the promises settled, by label. */
  const settledOrder = async (asked: [string, Promise<unknown>][]) => {
    const order: string[] = [];
    await Promise.all(asked.map(([label, p]) => p.then(() => order.push(label))));
    return order;
  };

  it('answers a quick query beside the two long steps of a costly search before either ends', async () => {
    const file = dbFile();
    new Database(file).close();
    const reader = createThreadReader(file);
    try {
      await Promise.all([counting(reader, 1), counting(reader, 1), counting(reader, 1)]);
      const order = await settledOrder([
        ['long', counting(reader, 2_000_000)],
        ['long', counting(reader, 2_000_000)],
        ['quick', counting(reader, 10)],
      ]);
      expect(order).toEqual(['quick', 'long', 'long']);
    } finally {
      await reader.close();
    }
  });

  it('sends a query, when every thread is busy, to the thread whose query started last, not behind a long one', async () => {
    const file = dbFile();
    new Database(file).close();
    const reader = createThreadReader(file, 2);
    try {
      await Promise.all([counting(reader, 1), counting(reader, 1)]);
      const long = counting(reader, 3_000_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const short = counting(reader, 100_000);
      const order = await settledOrder([
        ['long', long],
        ['short', short],
        ['next', counting(reader, 10)],
      ]);
      expect(order).toEqual(['short', 'next', 'long']);
    } finally {
      await reader.close();
    }
  });
});

describe('sqlite ranges from the values held in memory', () => {
  const publicRequest = (q: string): SearchRequest => ({ filter: { kinds: ['resource', 'package'], published: true, latestOnly: true, viewerId: null }, q, bbox: null, sort: 'bestmatch', page: 1, size: 200, aggregations: [] });
  const found = async (index: SqliteSearchIndex, q: string) => (await index.search(publicRequest(q))).hits.map((h) => h.id).sort();
  const evaluated = (docs: readonly SearchDocument[], q: string) => docs.filter((d) => matchesQuery(parseQuery(q), d)).map((d) => d.id).sort();
  /** Seeded random queries holding a range, under AND, OR and NOT beside every other leaf. */
  const rangeQueries = (query: () => string, n: number) => {
    const out: string[] = [];
    while (out.length < n) {
      const text = query();
      if (/:[[{]/.test(text)) out.push(text);
    }
    return out;
  };
  async function expectEvaluated(index: SqliteSearchIndex, docs: readonly SearchDocument[], queries: readonly string[], label: string) {
    const departures = [];
    for (const text of queries) {
      const [ids, wanted] = [await found(index, text), evaluated(docs, text)];
      if (ids.join() !== wanted.join()) departures.push({ label, text, ids, wanted });
    }
    expect(departures).toEqual([]);
  }

  it('decides ranges from memory once read, never from doc_range again, with its own writes and removals', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const dated = (id: string, date: string, versionIndex: unknown) => searchDocument(id, `Dated ${id}`, { body: { id, metadata: { title: `Dated ${id}`, publication_date: date }, versions: { index: versionIndex } } });
    // Undated documents after them, so a narrow range holds few of the rowids (listed one by one, not marked).
    await index.upsert([dated('a', '2020-06-01', 1), dated('b', '2021', 2), dated('c', '2022-03', 'x'), ...Array.from({ length: 120 }, (_, i) => searchDocument(`u${i}`, 'Undated'))]);
    // The first range asks for the values, answered by SQL meanwhile.
    expect(await found(index, 'metadata.publication_date:[2021 TO *]')).toEqual(['b', 'c']);
    await index.settled();
    // Another connection empties the values without counting a write: SQL would now find nothing.
    const other = new Database(file);
    other.prepare('DELETE FROM doc_range').run();
    other.close();
    expect(await found(index, 'metadata.publication_date:[2021 TO *]')).toEqual(['b', 'c']);
    const undated = Array.from({ length: 120 }, (_, i) => `u${i}`);
    expect(await found(index, 'NOT metadata.publication_date:[* TO 2020]')).toEqual(['b', 'c', ...undated].sort());
    expect(await found(index, 'versions.index:[* TO *] AND NOT versions.index:[1 TO 5]')).toEqual(['c']);
    await index.upsert([dated('d', '2023-01-02', 4), dated('b', '2019', 2)]);
    await index.remove(['published:c']);
    expect(await found(index, 'metadata.publication_date:[2021 TO *]')).toEqual(['d']);
    expect(await found(index, 'metadata.publication_date:[* TO 2020}')).toEqual(['b']);
    expect(await found(index, 'versions.index:{1 TO *]')).toEqual(['b', 'd']);
    expect(await found(index, 'dated AND NOT versions.index:[2 TO 3]')).toEqual(['a', 'd']);
    // A document written out of a narrow range it was read in.
    await index.upsert([dated('a', '2019-06-01', 1)]);
    expect(await found(index, 'metadata.publication_date:[2020-06 TO 2020-06]')).toEqual([]);
    expect(await found(index, 'metadata.publication_date:[2019-06 TO 2019-06]')).toEqual(['a']);
    await index.close();
  });

  it('answers seeded random queries with ranges as the evaluator does, through rewrites, removals and another process\'s write', async () => {
    const file = dbFile();
    const index = createSqliteSearchIndex(file);
    const { document, query } = randomSearch(seeded(11));
    const held = new Map<string, SearchDocument>();
    const write = async (docs: SearchDocument[]) => {
      await index.upsert(docs);
      for (const d of docs) held.set(d.key, d);
    };
    // Version indexes past a double's range, and dates past U+FFFF (ordered by UTF-8 bytes in SQLite, by UTF-16 units here).
    const past = (id: string, index: string, date: string) => searchDocument(id, id, { body: { id, metadata: { title: id, publication_date: date }, versions: { index } } });
    await write([...Array.from({ length: 80 }, (_, i) => document(i)), past('huge', '1'.repeat(400), '2020-\u{1F600}'), past('tiny', `-${'1'.repeat(400)}`, '2020-\uFF01'), past('ten', '10', '2020-\uE000')]);
    const huge = '1'.repeat(400);
    const queries = [
      `versions.index:[${huge} TO *]`, `versions.index:{* TO ${huge}]`, `versions.index:{-${huge} TO 10]`, `versions.index:[-${huge} TO -${huge}]`, `versions.index:[* TO -${huge}}`,
      'metadata.publication_date:[2020-\uF000 TO *]', 'metadata.publication_date:[* TO 2020-\uFFFF]', 'NOT metadata.publication_date:[2020-\u{1F600} TO 2021]',
      ...rangeQueries(query, 150),
    ];
    await found(index, queries[0] ?? '');
    await index.settled();
    await expectEvaluated(index, [...held.values()], queries, 'read');
    // Rewritten documents (the same keys, other values) and removed ones are kept beside the values read.
    const rewrite = randomSearch(seeded(12));
    await write(Array.from({ length: 80 }, (_, i) => rewrite.document(i)).filter((_, i) => i % 3 === 0));
    const removed = [...held.keys()].filter((_, i) => i % 7 === 1);
    await index.remove(removed);
    for (const key of removed) held.delete(key);
    await expectEvaluated(index, [...held.values()], queries, 'written');
    // Another process's write: the values are read again (SQL answers until they are).
    const another = createSqliteSearchIndex(file);
    const third = randomSearch(seeded(13));
    const docs = Array.from({ length: 90 }, (_, i) => third.document(i)).filter((_, i) => i % 4 === 0);
    await another.upsert(docs);
    for (const d of docs) held.set(d.key, d);
    await another.close();
    await expectEvaluated(index, [...held.values()], queries.slice(0, 20), 'another process, before the read');
    await index.settled();
    await expectEvaluated(index, [...held.values()], queries, 'another process');
    await index.close();
  }, 60_000);
});
