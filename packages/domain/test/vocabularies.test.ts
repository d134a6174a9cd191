import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VocabularyType } from '../src/index.ts';
import { createInMemoryRepositories } from '../src/testing/index.ts';
import { createVocabularyLookup, parseVocabularyFile } from '../src/vocabularies/index.ts';
import { as, makeCore, validMetadata } from './make-core.ts';

const GKH = join(import.meta.dirname, '../../../../shared/vocabularies/gkh/vocabularies');

/** Every data file the GEO Knowledge Hub ships, with the vocabulary it feeds. */
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
  it.each(FILES)('parses the real %s file into entries with ids and titles', (type, file) => {
    const entries = load(type, file);
    expect(entries.length).toBeGreaterThan(5);
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
