/** Moving up: an embedded store (SQLite + files) copied into PostgreSQL and another storage. */
import { describe, expect, it } from 'vitest';
import { createInMemoryFileStorage } from '@krs/domain/testing';
import { copyBlobs, copyDatabase, createFsFileStorage, verifyBlobs, verifyCopy } from '../src/index.ts';
import { draft, fileEntry, parent, published, token, user, vocabularyEntry } from './contracts/builders.ts';
import { openPostgres, usePostgresServer } from './postgres-fixture.ts';
import { openSqlite, tempDir } from './sqlite-fixture.ts';

usePostgresServer();

async function filledSqlite() {
  const source = await openSqlite();
  const { repos } = source;
  for (let i = 0; i < 1200; i++) await repos.records.saveParent(parent(`p${i}`), null);
  await repos.records.saveDraft(draft('d1', 'p1'), null);
  await repos.records.savePublished(published('r1', 'p1'), null);
  await repos.files.save({ state: 'draft', recordId: 'd1' }, fileEntry('a.txt'));
  await repos.files.save({ state: 'draft', recordId: 'd1' }, fileEntry('Ä b.txt'));
  await repos.users.create(user('u1'));
  await repos.users.addToken(token('t1', 'u1'));
  await repos.vocabularies.upsert([vocabularyEntry('roles', 'editor'), vocabularyEntry('licenses', 'cc-by-4.0')]);
  return source;
}

describe('copying an embedded store into PostgreSQL', () => {
  it('copies every table, verifies counts and content, and resumes without duplicating', async () => {
    const source = await filledSqlite();
    const target = await openPostgres();
    try {
      const seen: string[] = [];
      await copyDatabase(source.db, target.db, (p) => seen.push(`${p.table}:${p.copied}/${p.total}`));
      expect(seen).toContain('parent:1200/1200');
      const report = await verifyCopy(source.db, target.db);
      expect(report.every((t) => t.matches)).toBe(true);
      expect(report.find((t) => t.table === 'parent')).toEqual({ table: 'parent', source: 1200, target: 1200, matches: true });
      expect(await target.repos.records.getPublished('r1')).toEqual(await source.repos.records.getPublished('r1'));
      expect(await target.repos.users.findTokenByHash('hash-t1')).toEqual(await source.repos.users.findTokenByHash('hash-t1'));

      // Run again after more writes: only what is new goes over.
      await source.repos.records.saveParent(parent('p-new'), null);
      await copyDatabase(source.db, target.db);
      expect((await verifyCopy(source.db, target.db)).every((t) => t.matches)).toBe(true);

      // A draft published or discarded since an earlier run is gone here: left on the target,
      // the record would show it as an open edit there. So are its file entries.
      await source.repos.files.delete({ state: 'draft', recordId: 'd1' }, 'a.txt');
      await source.repos.records.deleteDraft('d1');
      const removed = await copyDatabase(source.db, target.db);
      expect(removed).toEqual({ draft: 1, file_entry: 1 });
      expect(await target.repos.records.getDraft('d1')).toBeNull();
      expect((await target.repos.files.list({ state: 'draft', recordId: 'd1' })).map((f) => f.key)).toEqual(['Ä b.txt']);
      expect((await verifyCopy(source.db, target.db)).every((t) => t.matches)).toBe(true);

      // A row changed since is brought up to date; a row only the target holds is reported, then deleted.
      await source.repos.records.saveParent({ ...parent('p1'), revisionId: 2, updated: '2026-02-01T00:00:00.000Z' }, 1);
      await target.db.updateTable('vocabulary').set({ data: '{"type":"roles","id":"editor","title":{"en":"changed"}}' }).where('id', '=', 'editor').execute();
      await copyDatabase(source.db, target.db);
      expect((await verifyCopy(source.db, target.db)).every((t) => t.matches)).toBe(true);
      expect((await target.repos.records.getParent('p1'))?.revisionId).toBe(2);
      await target.repos.records.saveParent(parent('only-on-target'), null);
      expect((await verifyCopy(source.db, target.db)).find((t) => t.table === 'parent')).toMatchObject({ source: 1201, target: 1202, matches: false });
      expect(await copyDatabase(source.db, target.db)).toEqual({ parent: 1 });
      expect((await verifyCopy(source.db, target.db)).every((t) => t.matches)).toBe(true);
    } finally {
      await source.close();
      await target.close();
    }
  });

  it('copies every blob with its bytes checked, skips those already there, and finds one that differs', async () => {
    const from = createFsFileStorage(tempDir());
    const to = createInMemoryFileStorage();
    const body = (text: string) => (async function* () {
      yield new TextEncoder().encode(text);
    })();
    for (let i = 0; i < 5; i++) await from.write(`blob-${i}`, body(`content ${i}`.repeat(1000)), { maxBytes: 1 << 20 });
    await to.write('blob-0', body('content 0'.repeat(1000)), { maxBytes: 1 << 20 });
    const done = await copyBlobs(from, to);
    expect(done).toMatchObject({ copied: 4, skipped: 1 });
    expect(await verifyBlobs(from, to)).toEqual({ blobs: 5, differing: [] });
    await to.delete('blob-3');
    await to.write('blob-3', body('tampered'), { maxBytes: 1 << 20 });
    expect((await verifyBlobs(from, to)).differing).toEqual(['blob-3']);
  });
});
