import { describe, expect, it } from 'vitest';
import { identifierProblem, isEdtf, metadataForNewVersion, normalizeMetadata, publishIssues } from '../src/model/metadata/index.ts';
import { createInMemoryRepositories } from '../src/testing/index.ts';
import { createVocabularyLookup } from '../src/vocabularies/index.ts';

const lookup = () => createVocabularyLookup(createInMemoryRepositories().repos.vocabularies);
const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

describe('metadata normalisation', () => {
  it('rebuilds personal names as "Family, Given" and leaves out empty parts', async () => {
    const { metadata } = await normalizeMetadata(
      {
        creators: [
          { person_or_org: { type: 'personal', given_name: 'Ada', family_name: 'Obi', name: 'wrong' } },
          { person_or_org: { type: 'personal', family_name: 'Solo' } },
        ],
      },
      'resource',
      lookup(),
    );
    const names = (metadata['creators'] as { person_or_org: { name: string } }[]).map((c) => c.person_or_org.name);
    expect(names).toEqual(['Obi, Ada', 'Solo']);
  });

  it('checks ORCID and ISNI check digits and ROR shapes', () => {
    expect(identifierProblem('orcid', '0000-0002-1825-0097')).toBeNull();
    expect(identifierProblem('orcid', '0000-0002-1825-0098')).not.toBeNull();
    expect(identifierProblem('isni', '0000 0001 2146 438X')).toBeNull();
    expect(identifierProblem('ror', '03yrm5c26')).toBeNull();
    expect(identifierProblem('ror', 'not-a-ror')).not.toBeNull();
  });

  it('keeps the valid parts and reports each problem on its dotted path', async () => {
    const { metadata, issues } = await normalizeMetadata(
      {
        title: 'Valid title',
        creators: [{ person_or_org: { type: 'personal', given_name: 'No family' } }, { person_or_org: { type: 'organizational', name: 'ESA' } }],
        languages: [{ id: 'eng' }, { id: 'xx-not' }],
        locations: { features: [{ geometry: { type: 'Point', coordinates: [200, 10] } }] },
        colour: 'blue',
      },
      'resource',
      lookup(),
    );
    expect(fields(issues).sort()).toEqual(
      ['metadata.colour', 'metadata.creators.0.person_or_org.family_name', 'metadata.languages.1', 'metadata.locations.features.0.geometry'].sort(),
    );
    expect(metadata['title']).toBe('Valid title');
    expect((metadata['creators'] as unknown[]).length).toBe(1);
    expect((metadata['languages'] as { id: string }[]).map((l) => l.id)).toEqual(['eng']);
    expect(metadata['colour']).toBeUndefined();
  });

  it("takes members and geometry types named like Object's own (constructor, toString, valueOf, ...) for unknown, never for rules", async () => {
    const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
    const input = JSON.parse(
      JSON.stringify({
        title: 'Valid title',
        ...Object.fromEntries(names.map((n) => [n, { prototype: { x: 1 } }])),
        locations: { features: names.map((n) => ({ geometry: { type: n, coordinates: [1, 2] } })) },
      }),
    );
    const { metadata, issues } = await normalizeMetadata(input, 'resource', lookup());
    expect(fields(issues).sort()).toEqual([...names.map((n) => `metadata.${n}`), ...names.map((_, i) => `metadata.locations.features.${i}.geometry`)].sort());
    expect(Object.keys(metadata).sort()).toEqual(['locations', 'title']);
    expect(metadata['locations']).toEqual({ features: [] });
  });

  it('sanitises HTML descriptions', async () => {
    const { metadata } = await normalizeMetadata({ description: '<p>Hi</p><script>alert(1)</script>' }, 'resource', lookup());
    expect(metadata['description']).not.toContain('<script>');
    expect(metadata['description']).toContain('<p>Hi</p>');
  });

  it('gives packages resource type knowledge whatever they send', async () => {
    const { metadata } = await normalizeMetadata({ resource_type: { id: 'dataset' } }, 'package', lookup());
    expect(metadata['resource_type']).toMatchObject({ id: 'knowledge' });
  });
});

describe('publish requirements', () => {
  it('accepts EDTF years, months, days and intervals and nothing else', () => {
    for (const ok of ['2024', '2024-02', '2024-02-29', '2020/2024-06']) expect(isEdtf(ok)).toBe(true);
    for (const bad of ['2023-02-29', '2024-13', '24', '2024/2020', 'yesterday']) expect(isEdtf(bad)).toBe(false);
  });

  it('lists every missing requirement at once', () => {
    expect(fields(publishIssues({ title: 'ab' }, 'resource'))).toEqual(['metadata.title', 'metadata.publication_date', 'metadata.creators']);
    expect(publishIssues({ title: 'abc', publication_date: '2024', creators: [{}] }, 'resource')).toEqual([]);
  });

  it('drops publication date and version for a new version', () => {
    expect(metadataForNewVersion({ title: 't', publication_date: '2024', version: 'v1' })).toEqual({ title: 't' });
  });
});
