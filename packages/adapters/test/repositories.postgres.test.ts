import { blobUploadRepositoryContract } from './contracts/blob-upload-repository.contract.ts';
import { fileRepositoryContract } from './contracts/file-repository.contract.ts';
import { recordRepositoryContract } from './contracts/record-repository.contract.ts';
import { unitOfWorkContract } from './contracts/unit-of-work.contract.ts';
import { userRepositoryContract } from './contracts/user-repository.contract.ts';
import { vocabularyRepositoryContract } from './contracts/vocabulary-repository.contract.ts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createMigrator, createPgDb, createPostgresSearchIndex, createPostgresSearchSchema, createSqlUnitOfWork, migrateToLatest } from '../src/index.ts';
import { readWhileUncommitted } from './contracts/uncommitted.ts';
import { parent, published, searchDocument } from './contracts/builders.ts';
import { freshDatabase, openPostgres, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const make = () => openPostgres();

recordRepositoryContract('postgres', make);
fileRepositoryContract('postgres', make);
blobUploadRepositoryContract('postgres', make);
userRepositoryContract('postgres', make);
vocabularyRepositoryContract('postgres', make);
unitOfWorkContract('postgres', make);

describe('postgres migrations', () => {
  it('gives the published versions stored before heads were kept their heads, and leaves a row PostgreSQL cannot read as JSON to be read in full', async () => {
    const handle = createPgDb(await freshDatabase());
    try {
      await createMigrator(handle.db).migrateTo('0008-vocabulary-tags');
      const restricted = { record: 'restricted', files: 'public', embargo: { active: false, until: null, reason: null } } as const;
      // v3 was copied from an older embedded store: its title holds a lone surrogate, which
      // JSON.stringify writes as an escape PostgreSQL's JSON refuses.
      const old = [1, 2, 3].map((i) =>
        published(`v${i}`, 'p1', { versionIndex: i, updated: `2026-0${i}-02T00:00:00.000Z`, ...(i === 2 ? { access: restricted } : {}), ...(i === 3 ? { metadata: { title: 'Ice \ud800' } } : {}) }),
      );
      for (const v of old) {
        await sql`insert into record (id, parent_id, kind, version_index, revision_id, data) values (${v.id}, ${v.parentId}, ${v.kind}, ${v.versionIndex}, ${v.revisionId}, ${JSON.stringify(v)})`.execute(handle.db);
      }
      await migrateToLatest(handle.db);
      const heads = await handle.db.selectFrom('record').select(['id', 'head']).orderBy('id').execute();
      expect(heads.map((h) => h.head === null)).toEqual([false, false, true]);
      const { repos } = createSqlUnitOfWork(handle.db);
      expect(await repos.records.listVersionHeads('p1')).toEqual(
        old.map((v) => ({ id: v.id, versionIndex: v.versionIndex, created: v.created, updated: v.updated, access: v.access })).reverse(),
      );
    } finally {
      await handle.close();
    }
  });
});

describe('the change stamp on PostgreSQL', () => {
  it("moves with another node's commits, the search index's included, and not while a unit of work has yet to commit", async () => {
    const { repos, url, close } = await openPostgres();
    // Another node: a pool of its own on the same database.
    const other = await openPostgres(url);
    const index = createPostgresSearchIndex(other.db);
    try {
      await createPostgresSearchSchema(other.db);
      const before = await repos.records.changeStamp();
      expect(before).not.toBeNull();
      await repos.records.getParent('p1');
      expect(await repos.records.changeStamp()).toBe(before);

      await other.repos.records.saveParent(parent('p1'), null);
      const afterParent = await repos.records.changeStamp();
      expect(afterParent).not.toBe(before);
      await index.upsert([searchDocument('r1', 'Glacier')]);
      const afterIndex = await repos.records.changeStamp();
      expect(afterIndex).not.toBe(afterParent);

      expect(await readWhileUncommitted(other.uow, () => repos.records.changeStamp())).toBe(afterIndex);
      expect(await repos.records.changeStamp()).not.toBe(afterIndex);
    } finally {
      await other.close();
      await close();
    }
  });
});
