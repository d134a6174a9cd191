import { describe, expect, it } from 'vitest';
import { makeCore } from './make-core.ts';

const ids = (page: { hits: { id: string }[] }) => page.hits.map((h) => h.id);

describe('searchVocabulary', () => {
  it('lists the shipped entries of a type until something is imported for it, then only the imported ones', async () => {
    const { core } = makeCore();
    const shipped = await core.vocabularies.search('resourcetypes', { suggest: 'jour' });
    expect(ids(shipped)).toEqual(['publication-article']);
    expect((await core.vocabularies.search('resourcetypes', {})).total).toBeGreaterThan(20);
    await core.vocabularies.import('resource_types', [{ type: 'resource_types', id: 'dataset', title: { en: 'Dataset' } }]);
    const imported = await core.vocabularies.search('resourcetypes', {});
    expect(imported).toMatchObject({ vocabulary: 'resourcetypes', total: 1, page: 1, size: 10, sortBy: 'title' });
    // A filter that keeps nothing of the import does not bring the shipped entries back.
    expect(await core.vocabularies.search('resourcetypes', { suggest: 'jour' })).toMatchObject({ hits: [], total: 0 });
  });

  it('reads one entry imported first, shipped otherwise, by the API vocabulary id', async () => {
    const { core } = makeCore();
    await core.vocabularies.import('roles', [{ type: 'roles', id: 'editor', title: { en: 'Curator of the text' } }]);
    expect((await core.vocabularies.getEntry('creatorsroles', 'editor')).title).toEqual({ en: 'Curator of the text' });
    expect((await core.vocabularies.getEntry('contributorsroles', 'sponsor')).title).toEqual({ en: 'Sponsor' });
    await expect(core.vocabularies.getEntry('contributorsroles', 'nobody')).rejects.toMatchObject({ kind: 'not_found', code: 'vocabulary.entry_not_found' });
  });

  it('refuses unknown vocabularies, sorts and paging beyond the window', async () => {
    const { core } = makeCore();
    for (const id of ['resource_types', 'datetypes', 'constructor', '__proto__']) {
      await expect(core.vocabularies.search(id, {})).rejects.toMatchObject({ kind: 'not_found', code: 'vocabulary.unknown' });
    }
    await expect(core.vocabularies.search('languages', { sort: 'newest' })).rejects.toMatchObject({ kind: 'invalid', code: 'search.sort' });
    await expect(core.vocabularies.search('languages', { size: 1000, page: 11 })).rejects.toMatchObject({ kind: 'invalid', code: 'search.paging' });
    expect((await core.vocabularies.search('languages', { size: 1000, page: 8 })).hits.length).toBeGreaterThan(0);
  });
});
