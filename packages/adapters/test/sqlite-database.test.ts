import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { NO_MIGRATIONS, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb, createMigrator, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { draft, fileEntry, parent, published, vocabularyEntry } from './contracts/builders.ts';
import { embargoActive, embargoUntil, lapsedEmbargoes } from '../src/sql/migrations/0004-embargo-index.ts';
import { commitSyncs } from '../src/sql/create-db.ts';
import { sortKey } from '@krs/domain/vocabularies';
import { tokenize } from '@krs/domain/search';
import { openSqlite, tempDir } from './sqlite-fixture.ts';

const TABLES = ['api_token', 'blob_upload', 'draft', 'file_entry', 'parent', 'record', 'user', 'vocabulary'];

describe('sqlite database', () => {
  it('migrates up, down to nothing, and up again', async () => {
    const handle = createDb(join(tempDir(), 'm.sqlite'));
    const tables = async () =>
      (await handle.db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith('kysely_')).sort();
    try {
      await migrateToLatest(handle.db);
      expect(await tables()).toEqual(TABLES);
      const down = await createMigrator(handle.db).migrateTo(NO_MIGRATIONS);
      expect(down.error).toBeUndefined();
      expect(await tables()).toEqual([]);
      await migrateToLatest(handle.db);
      expect(await tables()).toEqual(TABLES);
      const { repos } = createSqlUnitOfWork(handle.db);
      await repos.records.saveParent(parent('p1'), null);
      expect(await repos.records.getParent('p1')).toEqual(parent('p1'));
    } finally {
      await handle.close();
    }
  });

  it('drops access-link tokens that databases from before derived tokens stored', async () => {
    const handle = createDb(join(tempDir(), 'old.sqlite'));
    try {
      await createMigrator(handle.db).migrateTo('0002-file-blob-index');
      const link = { id: 'l1', permission: 'view', createdAt: 'c', expiresAt: null, createdBy: 'u1' };
      const old = { ...parent('p1'), accessLinks: [{ ...link, token: 'stored-secret' }] };
      // Written as that release wrote it: its parent table has none of the columns added since.
      await sql`insert into parent (id, kind, updated, revision_id, data) values (${old.id}, ${old.kind}, ${old.updated}, ${old.revisionId}, ${JSON.stringify(old)})`.execute(handle.db);
      await migrateToLatest(handle.db);
      const { repos } = createSqlUnitOfWork(handle.db);
      const row = await handle.db.selectFrom('parent').select('data').where('id', '=', 'p1').executeTakeFirstOrThrow();
      expect(row.data).not.toContain('stored-secret');
      expect((await repos.records.getParent('p1'))?.accessLinks).toEqual([link]);
    } finally {
      await handle.close();
    }
  });

  it('gives the tagged vocabulary entries stored before tags were listable their tag tokens, so the tags filter finds them', async () => {
    const handle = createDb(join(tempDir(), 'tags.sqlite'));
    try {
      await createMigrator(handle.db).migrateTo('0007-vocabulary-listing');
      // Written as 0007 keyed them: words only. More than one chunk, every third entry tagged.
      const old = Array.from({ length: 2_100 }, (_, i) => vocabularyEntry('licenses', `l${String(i).padStart(4, '0')}`, i % 3 === 0 ? { tags: ['recommended'] } : {}));
      const keyed = (e: (typeof old)[number]) => ` ${[...new Set([...tokenize(e.id), ...tokenize(e.title['en'] ?? '')])].join(' ')} `;
      for (let i = 0; i < old.length; i += 300) {
        await sql`insert into vocabulary (type, id, data, sort_key, match_text) values ${sql.join(old.slice(i, i + 300).map((e) => sql`(${e.type}, ${e.id}, ${JSON.stringify(e)}, ${sortKey(e)}, ${keyed(e)})`))}`.execute(handle.db);
      }
      const { repos } = createSqlUnitOfWork(handle.db);
      const recommended = { words: [], prefixes: [], tags: ['recommended'], offset: 0, limit: 1_000, countLimit: 10_000 };
      expect((await repos.vocabularies.page('licenses', recommended)).total).toBe(0);
      await migrateToLatest(handle.db);
      const found = await repos.vocabularies.page('licenses', recommended);
      expect(found.total).toBe(700);
      expect(found.entries.every((e) => e.tags?.includes('recommended'))).toBe(true);
      expect((await repos.vocabularies.page('licenses', { ...recommended, tags: [], prefixes: ['l2099'] })).total).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('keys the vocabulary entries stored before listings had keys, so they list and match like new ones', async () => {
    const handle = createDb(join(tempDir(), 'vocabularies.sqlite'));
    try {
      await createMigrator(handle.db).migrateTo('0006-blob-upload');
      // More rows than one backfill chunk, over two types.
      const old = Array.from({ length: 1_201 }, (_, i) => vocabularyEntry(i % 2 === 0 ? 'affiliations' : 'subjects', `e${String(i).padStart(4, '0')}`, { title: { en: `Ínstitute ${1_201 - i}` } }));
      const rows = old.map((e) => ({ type: e.type, id: e.id, data: JSON.stringify(e) }));
      for (let i = 0; i < rows.length; i += 300) await sql`insert into vocabulary (type, id, data) values ${sql.join(rows.slice(i, i + 300).map((r) => sql`(${r.type}, ${r.id}, ${r.data})`))}`.execute(handle.db);
      await migrateToLatest(handle.db);
      const { repos } = createSqlUnitOfWork(handle.db);
      const all = await repos.vocabularies.page('affiliations', { words: [], prefixes: [], tags: [], offset: 0, limit: 1_000, countLimit: 10_000 });
      expect(all.total).toBe(601);
      const titles = all.entries.map((e) => e.title['en'] ?? '');
      expect(titles).toEqual([...titles].sort());
      const matched = await repos.vocabularies.page('subjects', { words: ['1200'], prefixes: ['inst'], tags: [], offset: 0, limit: 10, countLimit: 10_000 });
      expect(matched).toEqual({ entries: [old[1]], total: 1 });
    } finally {
      await handle.close();
    }
  });

  it('gives the published versions stored before heads were kept their heads, and reads a head it lacks from the version', async () => {
    const handle = createDb(join(tempDir(), 'heads.sqlite'));
    try {
      await createMigrator(handle.db).migrateTo('0008-vocabulary-tags');
      const restricted = { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2030-01-01', reason: 'Until the paper is out.' } } as const;
      const old = [1, 2, 3].map((i) => published(`v${i}`, 'p1', { versionIndex: i, created: `2026-0${i}-01T00:00:00.000Z`, ...(i === 2 ? { access: restricted } : {}) }));
      for (const v of old) {
        await sql`insert into record (id, parent_id, kind, version_index, revision_id, data) values (${v.id}, ${v.parentId}, ${v.kind}, ${v.versionIndex}, ${v.revisionId}, ${JSON.stringify(v)})`.execute(handle.db);
      }
      await migrateToLatest(handle.db);
      const { repos } = createSqlUnitOfWork(handle.db);
      const heads = old.map((v) => ({ id: v.id, versionIndex: v.versionIndex, created: v.created, updated: v.updated, access: v.access })).reverse();
      expect(await repos.records.listVersionHeads('p1')).toEqual(heads);
      const stored = await handle.db.selectFrom('record').select('head').where('id', '=', 'v2').executeTakeFirstOrThrow();
      expect(JSON.parse(stored.head ?? 'null')).toEqual({ revision: 1, created: old[1]?.created, updated: old[1]?.updated, access: restricted });
      // A row the migration could not read keeps no head; its head comes from the version itself.
      await handle.db.updateTable('record').set({ head: null }).where('id', '=', 'v1').execute();
      expect(await repos.records.listVersionHeads('p1')).toEqual(heads);
      // A node of the earlier release, still running during a rolling upgrade, edits v3 without
      // writing its head: the head it left is older than the row, and is not believed.
      const edited = { ...(old[2] as (typeof old)[number]), revisionId: 2, updated: '2026-07-01T00:00:00.000Z', access: restricted };
      await handle.db.updateTable('record').set({ data: JSON.stringify(edited), revision_id: 2 }).where('id', '=', 'v3').execute();
      expect((await repos.records.listVersionHeads('p1'))[0]).toEqual({ id: 'v3', versionIndex: 3, created: edited.created, updated: edited.updated, access: restricted });
    } finally {
      await handle.close();
    }
  });

  it('gives the resource parents stored before managed_by was kept the package parent their data names, so their stamps join it', async () => {
    const handle = createDb(join(tempDir(), 'managed-by.sqlite'));
    try {
      await createMigrator(handle.db).migrateTo('0009-record-version-head');
      const stored = [parent('pp', { kind: 'package', revisionId: 3 }), parent('rp', { managedBy: 'pp' }), parent('free')];
      for (const p of stored) {
        await sql`insert into parent (id, kind, updated, revision_id, data) values (${p.id}, ${p.kind}, ${p.updated}, ${p.revisionId}, ${JSON.stringify(p)})`.execute(handle.db);
      }
      await sql`insert into parent (id, kind, updated, revision_id, data) values ('damaged', 'resource', '2026-01-01', 1, '{not json')`.execute(handle.db);
      const v = published('r1', 'rp');
      await sql`insert into record (id, parent_id, kind, version_index, revision_id, data) values (${v.id}, ${v.parentId}, ${v.kind}, ${v.versionIndex}, ${v.revisionId}, ${JSON.stringify(v)})`.execute(handle.db);
      await migrateToLatest(handle.db);
      const rows = await handle.db.selectFrom('parent').select(['id', 'managed_by']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'damaged', managed_by: null },
        { id: 'free', managed_by: null },
        { id: 'pp', managed_by: null },
        { id: 'rp', managed_by: 'pp' },
      ]);
      const { repos } = createSqlUnitOfWork(handle.db);
      expect(await repos.records.getPublishedRevisions('r1')).toEqual({ kind: 'resource', revisionId: 1, parentRevisionId: 1, managerRevisionId: 3 });
    } finally {
      await handle.close();
    }
  });

  it('finds lapsed embargoes through an index that a damaged row does not break', async () => {
    const { db, close } = await openSqlite();
    try {
      // Databases made by earlier releases hold the index on these very expressions.
      expect(embargoActive(db).compile(db).sql).toBe("case when json_valid(data) then json_extract(data, '$.access.embargo.active') end = 1");
      expect(embargoUntil(db).compile(db).sql).toBe("case when json_valid(data) then json_extract(data, '$.access.embargo.until') end");
      // The statement the hourly lift runs, ordered and limited: not a walk over every version.
      const plan = await sql`explain query plan ${lapsedEmbargoes(db, '2026-01-01', 10)}`.execute(db);
      expect(JSON.stringify(plan.rows)).toContain('record_embargo_until');
      expect(JSON.stringify(plan.rows)).not.toContain('SCAN');
      const { repos } = createSqlUnitOfWork(db);
      await repos.records.savePublished(published('r1', 'p1'), null);
      await db.updateTable('record').set({ data: '{"metadata": ' }).where('id', '=', 'r1').execute();
      expect(await repos.records.listLapsedEmbargoes('2026-01-01', 10)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('finds the entries pointing at a blob through an index, not by reading every entry', async () => {
    const { db, close } = await openSqlite();
    try {
      const plan = await sql.raw(`explain query plan select 1 from file_entry where json_extract(data, '$.blob.id') = 'b' limit 1`).execute(db);
      expect(JSON.stringify(plan.rows)).toContain('file_entry_blob');
      expect(JSON.stringify(plan.rows)).not.toContain('SCAN');
    } finally {
      await close();
    }
  });

  it('runs WAL with commits synced by the unit of work (synchronous NORMAL), foreign keys on, a busy timeout', async () => {
    const { db, close } = await openSqlite();
    try {
      const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('synchronous')).toBe(1);
      expect(commitSyncs.has(db)).toBe(true);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('answers a unit of work only once a WAL fsync begun after its commit has ended; the units that arrive during an fsync then share one transaction and the next fsync', async () => {
    const handle = createDb(join(tempDir(), 'sync.sqlite'));
    await migrateToLatest(handle.db);
    const real = commitSyncs.get(handle.db);
    expect(real).toBeDefined();
    const gates: (() => void)[] = [];
    commitSyncs.set(handle.db, () => new Promise<void>((resolve) => gates.push(() => void real?.().then(resolve))));
    const { uow, repos } = createSqlUnitOfWork(handle.db);
    const waitFor = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(done()).toBe(true);
    };
    try {
      let answered = 0;
      const save = (i: number) => uow.run(async (tx) => tx.records.saveParent(parent(`p${i}`), null)).then(() => answered++);
      const runs = [save(1)];
      await new Promise((r) => setTimeout(r, 20));
      // Committed (other readers see it) but not answered: the fsync has not ended.
      expect(await repos.records.getParent('p1')).not.toBeNull();
      expect(answered).toBe(0);
      runs.push(save(2), save(3));
      await new Promise((r) => setTimeout(r, 20));
      // The two that came meanwhile wait for that fsync before their transaction begins.
      expect(await repos.records.getParent('p2')).toBeNull();
      expect(gates).toHaveLength(1);
      gates[0]?.();
      await waitFor(() => gates.length === 2);
      expect(answered).toBe(1);
      expect(await repos.records.getParent('p2')).not.toBeNull();
      expect(await repos.records.getParent('p3')).not.toBeNull();
      gates[1]?.();
      await Promise.all(runs);
      expect(answered).toBe(3);
      // One transaction and one fsync for the two.
      expect(gates).toHaveLength(2);
    } finally {
      await handle.close();
    }
  });

  it('commits the units asked for in one turn in one transaction and one fsync; one that throws is undone alone, the others are answered once on disk', async () => {
    const live = await openSqlite();
    const real = commitSyncs.get(live.db);
    let syncs = 0;
    commitSyncs.set(live.db, () => (syncs++, real?.() ?? Promise.resolve()));
    // The unit of work reads the fsync when it is made.
    const { uow } = createSqlUnitOfWork(live.db);
    try {
      const outcomes = await Promise.allSettled(
        [1, 2, 3, 4].map((i) =>
          uow.run(async (tx) => {
            await tx.records.saveParent(parent(`p${i}`), null);
            await tx.records.saveDraft(draft(`d${i}`, `p${i}`), null);
            if (i === 3) throw new Error('unit 3 fails');
            return i;
          }),
        ),
      );
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: 1 },
        { status: 'fulfilled', value: 2 },
        { status: 'rejected', reason: new Error('unit 3 fails') },
        { status: 'fulfilled', value: 4 },
      ]);
      expect(syncs).toBe(1);
      // What a process killed right after the answers leaves behind holds every answered unit.
      const crashed = join(tempDir(), 'crashed.sqlite');
      copyFileSync(live.file, crashed);
      copyFileSync(`${live.file}-wal`, `${crashed}-wal`);
      const recovered = await openSqlite(crashed);
      try {
        for (const i of [1, 2, 4]) expect(await recovered.repos.records.getDraft(`d${i}`)).toEqual(draft(`d${i}`, `p${i}`));
        expect(await recovered.repos.records.getParent('p3')).toBeNull();
        expect(await recovered.repos.records.getDraft('d3')).toBeNull();
      } finally {
        await recovered.close();
      }
    } finally {
      await live.close();
    }
  });

  it('tells every unit of a batch that meets a full database what SQLite said (SQLITE_FULL, not the failed ROLLBACK after it), keeps nothing of the batch, and works again once there is room', async () => {
    const live = await openSqlite();
    const { uow } = createSqlUnitOfWork(live.db);
    try {
      const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(live.db)).rows[0]?.page_count);
      await sql.raw(`pragma max_page_count = ${pages + 8}`).execute(live.db);
      const large = { ...draft('d-large', 'p-large'), metadata: { ...draft('d-large', 'p-large').metadata, description: 'x'.repeat(1024 * 1024) } };
      const outcomes = await Promise.allSettled([
        uow.run(async (tx) => {
          await tx.records.saveParent(parent('p-small'), null);
          await tx.records.saveDraft(draft('d-small', 'p-small'), null);
        }),
        uow.run(async (tx) => {
          await tx.records.saveParent(parent('p-large'), null);
          await tx.records.saveDraft(large, null);
        }),
      ]);
      // SQLite rolls the whole transaction back by itself: the unit before the large one goes too.
      for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_FULL' } });
      expect(await live.repos.records.getParent('p-small')).toBeNull();
      expect(await live.repos.records.getParent('p-large')).toBeNull();
      const alone = uow.run(async (tx) => {
        await tx.records.saveParent(parent('p-large'), null);
        await tx.records.saveDraft(large, null);
      });
      await expect(alone).rejects.toMatchObject({ code: 'SQLITE_FULL' });
      await sql.raw('pragma max_page_count = 1073741823').execute(live.db);
      await uow.run(async (tx) => {
        await tx.records.saveParent(parent('p-large'), null);
        await tx.records.saveDraft(large, null);
      });
      expect(await live.repos.records.getDraft('d-large')).toEqual(large);
    } finally {
      await live.close();
    }
  });

  it('answers a unit of work with the failure when no transaction can begin, rather than leaving it waiting', async () => {
    const live = await openSqlite();
    const { uow } = createSqlUnitOfWork(live.db);
    await live.close();
    await expect(uow.run(async (tx) => tx.records.saveParent(parent('p1'), null))).rejects.toThrow();
  });

  it('keeps an acknowledged transaction when the database is closed and opened again', async () => {
    const first = await openSqlite();
    await first.uow.run(async (tx) => {
      await tx.records.saveParent(parent('p1'), null);
      await tx.records.saveDraft(draft('d1', 'p1'), null);
      await tx.files.save({ recordId: 'd1', state: 'draft' }, fileEntry('a.txt'));
    });
    await first.close();
    const again = await openSqlite(first.file);
    try {
      expect(await again.repos.records.getDraft('d1')).toEqual(draft('d1', 'p1'));
      expect(await again.repos.files.count({ recordId: 'd1', state: 'draft' })).toBe(1);
    } finally {
      await again.close();
    }
  });

  it('has an acknowledged transaction in the files on disk before any close, as a crash would leave them', async () => {
    const live = await openSqlite();
    try {
      await live.uow.run(async (tx) => {
        await tx.records.saveParent(parent('p1'), null);
        await tx.records.saveDraft(draft('d1', 'p1'), null);
      });
      // Copy the database and its write-ahead log while the writer is still open: what a process
      // killed right after the commit leaves behind.
      const crashed = join(tempDir(), 'crashed.sqlite');
      copyFileSync(live.file, crashed);
      expect(existsSync(`${live.file}-wal`)).toBe(true);
      copyFileSync(`${live.file}-wal`, `${crashed}-wal`);
      const recovered = await openSqlite(crashed);
      try {
        expect(await recovered.repos.records.getDraft('d1')).toEqual(draft('d1', 'p1'));
      } finally {
        await recovered.close();
      }
    } finally {
      await live.close();
    }
  });
});
