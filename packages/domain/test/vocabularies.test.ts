import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VOCABULARY_TYPES, type VocabularyType } from '../src/index.ts';
import { createInMemoryRepositories } from '../src/testing/index.ts';
import { createVocabularyLookup, parseVocabularyFile, vocabularyIdsUsed } from '../src/vocabularies/index.ts';
import { as, makeCore, validMetadata } from './make-core.ts';

/** The project's own small files in the GEO Knowledge Hub's layout and formats. */
const GKH = join(import.meta.dirname, 'fixtures/vocabularies');

/** Every kind of data file the GEO Knowledge Hub ships, with the vocabulary it feeds. */
const FILES: [VocabularyType, string][] = [
  ['resource_types', 'resources/resource_types.yaml'],
  ['licenses', 'licenses/licenses.csv'],
  ['subjects', 'subjects/subjects_oecd_fos.yaml'],
  ['relation_types', 'relations/relation_types.yaml'],
  ['roles', 'roles/roles.yaml'],
  ['description_types', 'descriptions/description_types.yaml'],
  ['target_audiences', 'custom/target_audience.yaml'],
  ['engagement_priorities', 'custom/engagement_priorities.yaml'],
  ['geo_work_programme_activities', 'custom/geo_work-programme_activities.yaml'],
];

const load = (type: VocabularyType, file: string) =>
  parseVocabularyFile(type, readFileSync(join(GKH, file), 'utf8'), file.endsWith('.csv') ? 'csv' : 'yaml');

describe('vocabulary files', () => {
  it.each(FILES)('parses a %s file into entries with ids and titles', (type, file) => {
    const entries = load(type, file);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const e of entries) {
      expect(e.id).not.toBe('');
      expect(Object.keys(e.title).length).toBeGreaterThan(0);
    }
  });

  it('reads the licenses CSV nested columns', () => {
    const ccBy = load('licenses', 'licenses/licenses.csv').find((e) => e.id === 'cc-by-4.0');
    expect(ccBy?.title['en']).toContain('Creative Commons Attribution 4.0');
    expect(ccBy?.props?.['scheme']).toBe('spdx');
  });

  it('rejects a file that is not a list', () => {
    expect(() => parseVocabularyFile('roles', 'just: a map', 'yaml')).toThrow(/list/);
  });

  it('answers shipped defaults without any import, and imported entries win', async () => {
    const { repos } = createInMemoryRepositories();
    const lookup = createVocabularyLookup(repos.vocabularies);
    expect((await lookup.get('licenses', ['cc-by-4.0'])).get('cc-by-4.0')?.title['en']).toContain('Attribution 4.0');
    expect((await lookup.get('languages', ['eng'])).get('eng')?.title['en']).toBe('English');
    expect([...(await lookup.get('resource_types', ['dataset', 'knowledge', 'user-story'])).keys()]).toHaveLength(3);
    expect((await lookup.get('relation_types', ['iscitedby'])).has('iscitedby')).toBe(true);
    expect((await lookup.get('target_audiences', ['tu-geo-eoanalyst'])).size).toBe(0);
    await repos.vocabularies.upsert([{ type: 'resource_types', id: 'dataset', title: { en: 'Data set (imported)' } }]);
    expect((await lookup.get('resource_types', ['dataset'])).get('dataset')?.title['en']).toBe('Data set (imported)');
  });
});

describe('vocabulary files given for the wrong type', () => {
  const text = (file: string) => readFileSync(join(GKH, file), 'utf8');
  const format = (file: string) => (file.endsWith('.csv') ? 'csv' : 'yaml');

  it('refuses target audiences as licenses and licenses as target audiences, writing nothing', async () => {
    const { core, repos } = makeCore();
    await expect(core.vocabularies.importFile('licenses', text('custom/target_audience.yaml'), 'yaml')).rejects.toMatchObject({
      kind: 'invalid',
      code: 'vocabulary.type_mismatch',
      message: expect.stringMatching(/does not hold licenses: entry 1 \("tu-geo-eoanalyst"\).*props\.type "target-audience"/),
    });
    await expect(core.vocabularies.importFile('target_audiences', text('licenses/licenses.csv'), 'csv')).rejects.toMatchObject({
      code: 'vocabulary.type_mismatch',
      message: expect.stringContaining('target_audiences'),
    });
    expect(await repos.vocabularies.count('licenses')).toBe(0);
    expect(await repos.vocabularies.count('target_audiences')).toBe(0);
  });

  /** Files whose entries carry a mark of their type; the datacite-only lists fit any type. */
  const MARKED = FILES.filter(([type]) => !['relation_types', 'roles', 'description_types'].includes(type));

  it.each(MARKED)('refuses the %s file for every other type', (own, file) => {
    for (const type of VOCABULARY_TYPES) {
      const parse = () => parseVocabularyFile(type, text(file), format(file));
      if (type === own) expect(parse()).not.toHaveLength(0);
      else expect(parse, `${file} as ${type}`).toThrow(/does not hold/);
    }
  });

  it('accepts a plain list of ids and titles for any type', () => {
    for (const type of VOCABULARY_TYPES) expect(parseVocabularyFile(type, '- id: a\n  title: {en: A}\n', 'yaml')).toHaveLength(1);
  });
});

describe('importing a file that names an id twice', () => {
  it('keeps the later entry and counts the id once, as the listing does', async () => {
    const { core } = makeCore();
    const file = '- id: a\n  title: {en: First}\n- id: b\n  title: {en: B}\n- id: a\n  title: {en: Second}\n';
    expect(await core.vocabularies.importFile('target_audiences', file, 'yaml')).toBe(2);
    expect((await core.vocabularies.list('target_audiences')).map((e) => [e.id, e.title['en']])).toEqual([['a', 'Second'], ['b', 'B']]);
  });
});

describe('listing and removing vocabulary entries', () => {
  it('lists imported entries and removes ids no published record uses', async () => {
    const { core } = makeCore();
    await core.vocabularies.importFile('target_audiences', readFileSync(join(GKH, 'custom/target_audience.yaml'), 'utf8'), 'yaml');
    expect((await core.vocabularies.list('target_audiences')).map((e) => e.id)).toEqual(['tu-geo-decisionmaker', 'tu-geo-eoanalyst', 'tu-geo-eoscientist']);
    expect(await core.vocabularies.remove('target_audiences', ['tu-geo-eoscientist', 'nope'])).toEqual({ removed: ['tu-geo-eoscientist'], unknown: ['nope'] });
    expect((await core.vocabularies.list('target_audiences')).map((e) => e.id)).toEqual(['tu-geo-decisionmaker', 'tu-geo-eoanalyst']);
  });

  it('refuses to remove ids a published record uses, and removes nothing then', async () => {
    const { core } = makeCore();
    await core.vocabularies.importFile('target_audiences', readFileSync(join(GKH, 'custom/target_audience.yaml'), 'utf8'), 'yaml');
    const alice = as('alice');
    const metadata = { ...validMetadata, target_audiences: [{ id: 'tu-geo-eoanalyst' }] };
    const draft = await core.records.createDraft(alice, 'resource', { metadata, files: { enabled: false } });
    // A draft's use does not hold an entry back: the draft gets an error on its next save.
    await core.vocabularies.remove('target_audiences', ['tu-geo-decisionmaker']);
    await core.records.publish(alice, 'resource', draft.record.id);
    await expect(core.vocabularies.remove('target_audiences', ['tu-geo-eoscientist', 'tu-geo-eoanalyst'])).rejects.toMatchObject({
      kind: 'conflict',
      code: 'vocabulary.in_use',
      message: expect.stringContaining(`"tu-geo-eoanalyst" (used by ${draft.record.id})`),
    });
    expect((await core.vocabularies.list('target_audiences')).map((e) => e.id)).toEqual(['tu-geo-eoanalyst', 'tu-geo-eoscientist']);
  });

  it('finds ids wherever metadata refers to a vocabulary', () => {
    const m = {
      languages: [{ id: 'eng' }],
      additional_descriptions: [{ description: 'x', type: { id: 'methods' }, lang: { id: 'fra' } }],
      contributors: [{ person_or_org: { name: 'GEO' }, role: { id: 'contactperson' }, affiliations: [{ id: 'ror-1' }, { name: 'free' }] }],
      geo_work_programme_activity: { id: 'geo-activities-geoglam' },
    };
    expect([...vocabularyIdsUsed('languages', m)]).toEqual(['eng', 'fra']);
    expect([...vocabularyIdsUsed('description_types', m)]).toEqual(['methods']);
    expect([...vocabularyIdsUsed('roles', m)]).toEqual(['contactperson']);
    expect([...vocabularyIdsUsed('affiliations', m)]).toEqual(['ror-1']);
    expect([...vocabularyIdsUsed('geo_work_programme_activities', m)]).toEqual(['geo-activities-geoglam']);
    expect([...vocabularyIdsUsed('licenses', m)]).toEqual([]);
  });
});

describe('GEO metadata', () => {
  it('publishes a record using GEO vocabulary ids once every GKH file is imported, idempotently', async () => {
    const { core } = makeCore();
    for (const [type, file] of FILES) {
      const entries = load(type, file);
      expect(await core.vocabularies.import(type, entries)).toBe(entries.length);
      await core.vocabularies.import(type, entries);
    }
    const alice = as('alice');
    const geo = {
      ...validMetadata,
      resource_type: { id: 'user-story', title: { en: 'ignored' } },
      rights: [{ id: 'cc-by-4.0' }],
      languages: [{ id: 'eng' }],
      subjects: [{ id: 'http://www.oecd.org/science/inno/38235147.pdf?1.5' }, { subject: 'Flood mapping' }],
      target_audiences: [{ id: 'tu-geo-eoanalyst' }],
      engagement_priorities: [{ id: 'sdg-goal-4' }],
      geo_work_programme_activity: { id: 'geo-activities-de-africa' },
      related_identifiers: [{ identifier: '10.5281/zenodo.1234', scheme: 'doi', relation_type: { id: 'iscitedby' } }],
      contributors: [{ person_or_org: { type: 'organizational', name: 'GEO Secretariat', given_name: 'dropped' }, role: { id: 'contactperson' } }],
    };
    const draft = await core.records.createDraft(alice, 'resource', { metadata: geo, files: { enabled: false } });
    expect(draft.issues).toEqual([]);
    const m = draft.record.metadata as Record<string, any>;
    expect(m['resource_type'].title.en).toBe('User Story');
    expect(m['engagement_priorities'][0].title.en).toBeTruthy();
    expect(m['contributors'][0].person_or_org).toEqual({ type: 'organizational', name: 'GEO Secretariat' });
    const published = await core.records.publish(alice, 'resource', draft.record.id);
    expect(published.record.state).toBe('published');
  });

  it('reports GEO ids that are not imported as draft errors that block publish', async () => {
    const { core } = makeCore();
    const alice = as('alice');
    const draft = await core.records.createDraft(alice, 'resource', {
      metadata: { ...validMetadata, target_audiences: [{ id: 'tu-geo-eoanalyst' }] },
      files: { enabled: false },
    });
    expect(draft.issues.map((i) => i.field)).toEqual(['metadata.target_audiences.0']);
    await expect(core.records.publish(alice, 'resource', draft.record.id)).rejects.toMatchObject({ kind: 'invalid' });
  });
});
