/**
 * Publishing a package and its draft resources is one SQLite transaction: a crash between the
 * resources and the package leaves every one of them a draft.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore, type Identity, type Repositories, type UnitOfWork } from '@krs/domain';
import { createFixedClock, createInMemoryFileStorage, createInMemorySearchIndex, createSequentialIds } from '@krs/domain/testing';
import { createDb, createSqlRepositories, migrateToLatest } from '../src/index.ts';
import { tempDir } from './sqlite-fixture.ts';

const alice: Identity = { userId: 'alice', linkIds: [] };
const creators = [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi' } }];

/** A unit of work whose transactions die when the package itself is written as published. */
function crashingOnPackagePublish(db: ReturnType<typeof createDb>['db'], armed: { on: boolean }): UnitOfWork {
  return {
    run: (work) =>
      db.transaction().execute((trx) => {
        const tx = createSqlRepositories(trx);
        const savePublished: Repositories['records']['savePublished'] = async (record, expected) => {
          if (armed.on && record.kind === 'package') throw new Error('power cut');
          return tx.records.savePublished(record, expected);
        };
        return work({ ...tx, records: { ...tx.records, savePublished } });
      }),
    check: async () => undefined,
  };
}

async function setup() {
  const handle = createDb(join(tempDir(), 'krs.sqlite'));
  await migrateToLatest(handle.db);
  const repos = createSqlRepositories(handle.db);
  const armed = { on: false };
  const core = createCore({
    repos,
    uow: crashingOnPackagePublish(handle.db, armed),
    storage: createInMemoryFileStorage(),
    search: createInMemorySearchIndex(),
    clock: createFixedClock(),
    ids: createSequentialIds(),
    settings: { maxFileSize: 1024, maxFiles: 10, oaiHost: 'krs.test', linkSecret: 'a test secret of some length' },
  });
  const pkg = (await core.records.createDraft(alice, 'package', { metadata: { title: 'Package', publication_date: '2025', creators } })).record.id;
  const resource = (await core.records.createDraft(alice, 'resource', { metadata: { title: 'Resource', publication_date: '2025', creators }, files: { enabled: false } }))
    .record.id;
  await core.packages.associate(alice, pkg, [resource]);
  await core.packages.addResources(alice, pkg, [resource]);
  return { core, repos, armed, pkg, resource, close: handle.close };
}

describe('package publication on SQLite', () => {
  it('a crash between the resources and the package leaves no half-published state', async () => {
    const { core, repos, armed, pkg, resource, close } = await setup();
    armed.on = true;
    await expect(core.records.publish(alice, 'package', pkg)).rejects.toThrow('power cut');
    expect(await repos.records.getPublished(resource)).toBeNull();
    expect(await repos.records.getPublished(pkg)).toBeNull();
    expect(await repos.records.getDraft(resource)).not.toBeNull();
    expect((await repos.records.getDraft(pkg))?.resources).toEqual([resource]);
    armed.on = false;
    await core.records.publish(alice, 'package', pkg);
    expect((await repos.records.getPublished(resource))?.state).toBe('published');
    expect(await repos.records.getDraft(resource)).toBeNull();
    await close();
  });

  it('a failed validation publishes nothing', async () => {
    const { core, repos, pkg, resource, close } = await setup();
    await core.records.updateDraft(alice, 'resource', resource, { metadata: { title: 'Resource' } });
    await expect(core.records.publish(alice, 'package', pkg)).rejects.toMatchObject({ kind: 'invalid' });
    expect(await repos.records.getPublished(resource)).toBeNull();
    expect(await repos.records.getPublished(pkg)).toBeNull();
    await close();
  });
});
