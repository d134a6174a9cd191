import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/index.ts';
import { searchDocuments } from '../src/model/search-document.ts';
import { geoPackageMetadata, geoResourceMetadata, geoVocabularies } from './fixtures/geo-package.ts';
import { as, makeCore } from './make-core.ts';

const alice = as('alice');
type Obj = { [key: string]: any };

async function coreWithGeoVocabularies() {
  const made = makeCore();
  for (const [type, entries] of geoVocabularies) await made.core.vocabularies.import(type, entries);
  return made;
}

describe('GEO Knowledge Hub metadata', () => {
  it('publishes a package and its resources as GEO writes them, keeping its extensions', async () => {
    const { core, repos } = await coreWithGeoVocabularies();
    const resources: string[] = [];
    for (const metadata of [geoResourceMetadata, { ...geoResourceMetadata, title: 'Turbidity maps of Lake Geneva' }]) {
      const draft = await core.records.createDraft(alice, 'resource', { metadata, files: { enabled: false } });
      expect(draft.issues).toEqual([]);
      resources.push(draft.record.id);
    }
    const pkg = await core.records.createDraft(alice, 'package', { metadata: geoPackageMetadata, files: { enabled: false } });
    expect(pkg.issues).toEqual([]);
    await core.packages.associate(alice, pkg.record.id, resources);
    expect(await core.packages.addResources(alice, pkg.record.id, resources)).toEqual([]);

    const published = await core.records.publish(alice, 'package', pkg.record.id);

    const m = published.record.metadata as Obj;
    expect(m['creators'][1].person_or_org).toEqual({ type: 'personal', given_name: 'Sam', family_name: 'Okafor', name: 'Okafor, Sam' });
    const stored = (await repos.records.getPublished(pkg.record.id))?.metadata as Obj;
    expect(stored['creators'][1].person_or_org.email).toBe('sam.okafor@example.org');
    expect(m['related_identifiers'][0]).toMatchObject({ title: 'How packages are organised', description: 'A page <em>explaining</em> this package' });
    expect(m['funding'][0]).toEqual({ funder: { name: 'Lake Fund' }, award: { number: 'LF-42', title: { en: 'Clear lakes' }, icon: 'lf-icon', disclaimer: 'Funded by the Lake Fund.' } });
    expect(m['locations'].features[0].identifiers).toEqual([{ scheme: 'wikidata', identifier: 'Q6403' }]);
    expect(m['locations'].features[1].geometry.type).toBe('GeometryCollection');
    expect(m['geo_work_programme_activity']).toMatchObject({ id: 'geo-activities-aquawatch', title: { en: 'AquaWatch' } });
    for (const id of resources) expect((await core.records.get(alice, 'resource', id)).record.state).toBe('published');
  });

  it('reports an e-mail that is not one, and keeps the person', async () => {
    const { core } = await coreWithGeoVocabularies();
    const creators = [{ person_or_org: { type: 'personal', family_name: 'Silva', email: 'not an address' } }];
    const draft = await core.records.createDraft(alice, 'resource', { metadata: { ...geoResourceMetadata, creators } });
    expect(draft.issues).toEqual([{ field: 'metadata.creators.0.person_or_org.email', messages: ['Not a valid email address.'] }]);
    expect((draft.record.metadata as Obj)['creators'][0].person_or_org).toEqual({ type: 'personal', family_name: 'Silva', name: 'Silva' });
    await expect(core.records.publish(alice, 'resource', draft.record.id)).rejects.toBeInstanceOf(DomainError);
  });
});

describe('people\'s e-mail addresses', () => {
  it('are kept for the next version and shown only to those who may edit the record', async () => {
    const { core, repos } = await coreWithGeoVocabularies();
    const first = await core.records.createDraft(alice, 'resource', { metadata: geoResourceMetadata, files: { enabled: false } });
    const email = (view: { record: { metadata: Obj } }) => view.record.metadata['creators'][1].person_or_org.email;
    expect(email(first)).toBe('ana.silva@example.org');
    await core.records.publish(alice, 'resource', first.record.id);
    expect(email(await core.records.get(as('bob'), 'resource', first.record.id))).toBeUndefined();
    expect(email(await core.records.get(alice, 'resource', first.record.id))).toBeUndefined();
    const parent = (await repos.records.getParent(first.parent.id))!;
    const published = (await repos.records.getPublished(first.record.id))!;
    expect(JSON.stringify(searchDocuments(parent, [published], []))).not.toContain('ana.silva');

    const next = await core.records.newVersion(alice, 'resource', first.record.id);
    expect(email(next)).toBe('ana.silva@example.org');
    const preview = await core.accessLinks.create(alice, 'resource', first.record.id, { permission: 'preview' });
    expect(email(await core.records.getDraft(await core.users.identify('bob', [preview.token]), 'resource', next.record.id))).toBeUndefined();
  });
});

describe('draft errors', () => {
  it('lists every problem that would stop publishing, and keeps the value sent', async () => {
    const { core } = makeCore();
    const draft = await core.records.createDraft(alice, 'resource', { metadata: { title: 'ab' } });
    expect(draft.record.metadata['title']).toBe('ab');
    expect(draft.issues).toEqual([
      { field: 'metadata.title', messages: ['Shorter than minimum length 3.'] },
      { field: 'metadata.publication_date', messages: ['Missing data for required field.'] },
      { field: 'metadata.creators', messages: ['Missing data for required field.'] },
    ]);
    const read = await core.records.getDraft(alice, 'resource', draft.record.id);
    expect(read.issues.map((i) => i.field)).toEqual(['metadata.title', 'metadata.publication_date', 'metadata.creators']);
  });

  it('names the entry an unknown GEO vocabulary id was taken for in the singular', async () => {
    const { core } = makeCore();
    const metadata = { engagement_priorities: [{ id: 'sdg-goal-15' }], target_audiences: [{ id: 'tu-policy-makers' }], geo_work_programme_activity: { id: 'geo-activities-de-africa' } };
    const draft = await core.records.createDraft(alice, 'resource', { metadata });
    const messages = draft.issues.flatMap((i) => i.messages).filter((m) => m.startsWith('Unknown'));
    expect(messages.sort()).toEqual([
      'Unknown engagement priority id "sdg-goal-15".',
      'Unknown geo work programme activity id "geo-activities-de-africa".',
      'Unknown target audience id "tu-policy-makers".',
    ]);
  });
});
