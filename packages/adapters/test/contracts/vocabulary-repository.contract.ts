import { describe, expect, it } from 'vitest';
import { vocabularyEntry } from './builders.ts';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

export function vocabularyRepositoryContract(name: string, make: MakeRepositories): void {
  describe(`vocabulary repository contract: ${name}`, () => {
    const open = closingAfterEach(make);
    const vocabularies = async () => (await open()).repos.vocabularies;

    it('round-trips entries with every optional field, and without them', async () => {
      const v = await vocabularies();
      const full = vocabularyEntry('licenses', 'cc-by-4.0', {
        title: { en: 'Creative Commons Attribution 4.0', de: 'Namensnennung 4.0' },
        description: { en: 'Share and adapt.' },
        icon: 'cc-by-icon',
        props: { url: 'https://creativecommons.org/licenses/by/4.0/', scheme: 'spdx' },
        tags: ['recommended', 'all'],
      });
      const bare = vocabularyEntry('licenses', 'mit');
      expect(await v.upsert([full, bare])).toBe(2);
      const got = await v.get('licenses', ['cc-by-4.0', 'mit', 'missing']);
      expect([...got.keys()].sort()).toEqual(['cc-by-4.0', 'mit']);
      expect(got.get('cc-by-4.0')).toEqual(full);
      expect(got.get('mit')).toEqual(bare);
    });

    it('replaces by type and id, and keeps types apart', async () => {
      const v = await vocabularies();
      await v.upsert([vocabularyEntry('target_audiences', 'a'), vocabularyEntry('target_audiences', 'b'), vocabularyEntry('roles', 'a')]);
      expect(await v.upsert([vocabularyEntry('target_audiences', 'a', { title: { en: 'A again' } })])).toBe(1);
      expect(await v.count('target_audiences')).toBe(2);
      expect(await v.count('roles')).toBe(1);
      expect(await v.count('languages')).toBe(0);
      expect((await v.get('target_audiences', ['a'])).get('a')?.title).toEqual({ en: 'A again' });
      expect((await v.get('roles', ['a'])).get('a')?.title).toEqual({ en: 'Title of a' });
      expect((await v.get('languages', ['a'])).size).toBe(0);
    });

    it('takes an id given twice in one batch, the later entry winning (GEO\'s target_audience.yaml repeats two)', async () => {
      const v = await vocabularies();
      await v.upsert([vocabularyEntry('target_audiences', 'a', { title: { en: 'First' } }), vocabularyEntry('target_audiences', 'b'), vocabularyEntry('target_audiences', 'a', { title: { en: 'Second' } })]);
      expect(await v.count('target_audiences')).toBe(2);
      expect((await v.get('target_audiences', ['a'])).get('a')?.title).toEqual({ en: 'Second' });
    });

    it('lists one type by id and removes ids of that type only', async () => {
      const v = await vocabularies();
      await v.upsert([vocabularyEntry('subjects', 'b'), vocabularyEntry('subjects', 'a'), vocabularyEntry('subjects', 'C'), vocabularyEntry('roles', 'a')]);
      expect((await v.list('subjects')).map((e) => e.id)).toEqual(['C', 'a', 'b']);
      expect(await v.list('subjects')).toContainEqual(vocabularyEntry('subjects', 'a'));
      expect(await v.remove('subjects', ['a', 'a', 'missing'])).toBe(1);
      expect((await v.list('subjects')).map((e) => e.id)).toEqual(['C', 'b']);
      expect((await v.get('roles', ['a'])).size).toBe(1);
      expect(await v.remove('subjects', [])).toBe(0);
      expect(await v.list('languages')).toEqual([]);
    });

    it('pages a type in folded title order, ties by id, counting every entry the page comes from', async () => {
      const v = await vocabularies();
      await v.upsert([
        vocabularyEntry('resource_types', 'b-book', { title: { en: 'book' } }),
        vocabularyEntry('resource_types', 'book-section', { title: { en: 'Book section' } }),
        vocabularyEntry('resource_types', 'a-book', { title: { en: 'Böok' } }),
        vocabularyEntry('resource_types', 'zz', { title: { de: 'Abbildung' } }),
        vocabularyEntry('resource_types', 'apple', { title: { en: 'Zebra', fr: 'Alpha' } }),
        vocabularyEntry('roles', 'a', { title: { en: 'A' } }),
      ]);
      const all = { words: [], prefixes: [], tags: [], offset: 0, limit: 10, countLimit: 100 };
      const first = await v.page('resource_types', all);
      // Böok and book fold to one title and fall back to the id; the English title decides, else the first one given.
      expect(first.entries.map((e) => e.id)).toEqual(['zz', 'a-book', 'b-book', 'book-section', 'apple']);
      expect(first.total).toBe(5);
      expect(first.entries[1]).toEqual(vocabularyEntry('resource_types', 'a-book', { title: { en: 'Böok' } }));
      const second = await v.page('resource_types', { ...all, offset: 2, limit: 2 });
      expect(second).toEqual({ entries: first.entries.slice(2, 4), total: 5 });
      expect(await v.page('resource_types', { ...all, offset: 5 })).toEqual({ entries: [], total: 5 });
      expect(await v.page('languages', all)).toEqual({ entries: [], total: 0 });
    });

    it('counts up to the count limit only, and exactly on a last page', async () => {
      const v = await vocabularies();
      await v.upsert(Array.from({ length: 9 }, (_, i) => vocabularyEntry('subjects', `s${i}`, { title: { en: i % 3 === 0 ? `Ocean ${i}` : `Land ${i}` } })));
      const all = { words: [], prefixes: [], tags: [], offset: 0, limit: 2, countLimit: 4 };
      expect(await v.page('subjects', all)).toMatchObject({ total: 4 });
      expect((await v.page('subjects', { ...all, offset: 2 })).entries.map((e) => e.id)).toEqual(['s4', 's5']);
      expect(await v.page('subjects', { ...all, prefixes: ['ocean'] })).toMatchObject({ total: 3 });
      expect(await v.page('subjects', { ...all, prefixes: ['ocean'], offset: 2 })).toEqual({ entries: [vocabularyEntry('subjects', 's6', { title: { en: 'Ocean 6' } })], total: 3 });
      expect(await v.page('subjects', { ...all, prefixes: ['ocean'], offset: 4 })).toEqual({ entries: [], total: 3 });
    });

    it('keeps the entries whose id or any title has each word whole and each prefix starting a word, folding case and accents', async () => {
      const v = await vocabularies();
      await v.upsert([
        vocabularyEntry('affiliations', 'muller-inst', { title: { en: 'Müller Institute of Ocean Science', de: 'Müller-Institut' } }),
        vocabularyEntry('affiliations', 'ocean-lab', { title: { en: 'Oceanography Laboratory' } }),
        vocabularyEntry('affiliations', 'esa', { title: { en: 'European Space Agency' } }),
        vocabularyEntry('subjects', 'ocean', { title: { en: 'Ocean' } }),
      ]);
      const ids = async (words: string[], prefixes: string[]) => {
        const page = await v.page('affiliations', { words, prefixes, tags: [], offset: 0, limit: 10, countLimit: 100 });
        return { ids: page.entries.map((e) => e.id), total: page.total };
      };
      expect(await ids([], ['ocean'])).toEqual({ ids: ['muller-inst', 'ocean-lab'], total: 2 });
      expect(await ids(['oceanography'], [])).toEqual({ ids: ['ocean-lab'], total: 1 });
      expect(await ids(['oceano'], [])).toEqual({ ids: [], total: 0 });
      expect(await ids([], ['oceano'])).toEqual({ ids: ['ocean-lab'], total: 1 });
      expect(await ids([], ['mul', 'sci'])).toEqual({ ids: ['muller-inst'], total: 1 });
      expect(await ids([], ['institut'])).toEqual({ ids: ['muller-inst'], total: 1 });
      expect(await ids([], ['lab'])).toEqual({ ids: ['ocean-lab'], total: 1 });
      expect(await ids([], ['cean'])).toEqual({ ids: [], total: 0 });
      expect(await ids(['space'], ['eu'])).toEqual({ ids: ['esa'], total: 1 });
    });

    it('keeps, when tags are asked for, the entries carrying any of them, exactly, beside words and prefixes', async () => {
      const v = await vocabularies();
      await v.upsert([
        vocabularyEntry('licenses', 'cc-by-4.0', { title: { en: 'Creative Commons Attribution 4.0' }, tags: ['all', 'recommended', 'data'] }),
        vocabularyEntry('licenses', 'mit', { title: { en: 'MIT License' }, tags: ['all', 'software'] }),
        vocabularyEntry('licenses', 'odbl', { title: { en: 'Open Database License' }, tags: ['data lake', '100% open'] }),
        vocabularyEntry('licenses', 'plain', { title: { en: 'Plain words all recommended' } }),
        vocabularyEntry('subjects', 'tagged', { title: { en: 'Tagged' }, tags: ['recommended'] }),
      ]);
      const ids = async (tags: string[], prefixes: string[] = []) => {
        const page = await v.page('licenses', { words: [], prefixes, tags, offset: 0, limit: 10, countLimit: 100 });
        return { ids: page.entries.map((e) => e.id), total: page.total };
      };
      expect(await ids(['recommended'])).toEqual({ ids: ['cc-by-4.0'], total: 1 });
      expect(await ids(['software', 'recommended'])).toEqual({ ids: ['cc-by-4.0', 'mit'], total: 2 });
      expect(await ids(['all'], ['mi'])).toEqual({ ids: ['mit'], total: 1 });
      // Exact: no case folding, no prefix of a tag, any characters (a space, a LIKE wildcard).
      expect(await ids(['Recommended'])).toEqual({ ids: [], total: 0 });
      expect(await ids(['recommend'])).toEqual({ ids: [], total: 0 });
      expect(await ids(['data lake'])).toEqual({ ids: ['odbl'], total: 1 });
      expect(await ids(['100% open'])).toEqual({ ids: ['odbl'], total: 1 });
      expect(await ids(['%'])).toEqual({ ids: [], total: 0 });
      // Words and prefixes never match a tag, nor a tag a word.
      expect((await v.page('licenses', { words: ['recommended'], prefixes: [], tags: [], offset: 0, limit: 10, countLimit: 100 })).entries.map((e) => e.id)).toEqual(['plain']);
      expect(await ids(['words'])).toEqual({ ids: [], total: 0 });
      // A replace that drops a tag drops the entry from that tag's listing.
      await v.upsert([vocabularyEntry('licenses', 'cc-by-4.0', { title: { en: 'Creative Commons Attribution 4.0' }, tags: ['all'] })]);
      expect(await ids(['recommended'])).toEqual({ ids: [], total: 0 });
    });

    it('lists an entry by its new title after a replace, and drops a removed one', async () => {
      const v = await vocabularies();
      await v.upsert([vocabularyEntry('subjects', 'x', { title: { en: 'Alpha' } }), vocabularyEntry('subjects', 'y', { title: { en: 'Beta' } })]);
      await v.upsert([vocabularyEntry('subjects', 'x', { title: { en: 'Gamma' } })]);
      const all = { words: [], prefixes: [], tags: [], offset: 0, limit: 10, countLimit: 100 };
      expect((await v.page('subjects', all)).entries.map((e) => e.id)).toEqual(['y', 'x']);
      expect((await v.page('subjects', { ...all, prefixes: ['alp'] })).total).toBe(0);
      await v.remove('subjects', ['y']);
      expect((await v.page('subjects', all)).entries.map((e) => e.id)).toEqual(['x']);
    });

    it('accepts empty batches', async () => {
      const v = await vocabularies();
      expect(await v.upsert([])).toBe(0);
      expect((await v.get('subjects', [])).size).toBe(0);
    });

    it('imports ten thousand entries and looks up thousands at once', async () => {
      const v = await vocabularies();
      const entries = Array.from({ length: 10_000 }, (_, i) => vocabularyEntry('affiliations', `aff-${i}`, { props: { ror: `r${i}` } }));
      expect(await v.upsert(entries)).toBe(10_000);
      expect(await v.upsert(entries.slice(0, 5_000))).toBe(5_000);
      expect(await v.count('affiliations')).toBe(10_000);
      const ids = entries.filter((_, i) => i % 4 === 0).map((e) => e.id);
      const got = await v.get('affiliations', ids);
      expect(got.size).toBe(2_500);
      expect(got.get('aff-9996')?.props).toEqual({ ror: 'r9996' });
    });
  });
}
