import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/index.ts';
import { normalizeMetadata } from '../src/model/metadata/index.ts';
import { createInMemoryRepositories } from '../src/testing/index.ts';
import { createVocabularyLookup } from '../src/vocabularies/index.ts';

const lookup = createVocabularyLookup(createInMemoryRepositories().repos.vocabularies);

const MEMBERS = [
  'title', 'description', 'publication_date', 'creators', 'contributors', 'funding', 'locations', 'related_identifiers',
  'rights', 'subjects', 'dates', 'identifiers', 'references', 'additional_titles', 'additional_descriptions', 'languages',
];
const PERSON_MEMBERS = ['person_or_org', 'type', 'family_name', 'given_name', 'name', 'email', 'identifiers', 'affiliations', 'role'];
const OTHER_MEMBERS = ['funder', 'award', 'features', 'geometry', 'type', 'coordinates', 'geometries', 'scheme', 'identifier', 'id', 'title', 'number', 'en'];

/** JSON built from the names the normaliser looks for, so random values reach its deeper rules. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.constantFrom('personal', 'organizational', 'Point', 'Polygon', 'GeometryCollection', '2024-01-01', 'orcid', '<a b=c>', 'eng')),
    fc.double(),
    fc.integer({ min: -200, max: 200 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.constantFrom(...PERSON_MEMBERS, ...OTHER_MEMBERS, '__proto__', 'x'), tie('value'), { maxKeys: 5 }),
  ),
}));

const metadataInput = fc.oneof(
  fc.dictionary(fc.constantFrom(...MEMBERS, 'unknown'), json.value, { maxKeys: 8 }),
  json.value,
  fc.anything(),
);

describe('metadata normalisation under random input', () => {
  it('answers with metadata and issues, or refuses with a DomainError; never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(metadataInput, async (input) => {
        try {
          const { metadata, issues } = await normalizeMetadata(input, 'resource', lookup);
          expect(typeof JSON.stringify(metadata)).toBe('string');
          for (const issue of issues) expect(issue.field.startsWith('metadata')).toBe(true);
          // What was stored reads back the same way: a saved draft can always be saved again.
          const again = await normalizeMetadata(JSON.parse(JSON.stringify(metadata)), 'resource', lookup);
          expect(again.metadata).toEqual(metadata);
        } catch (e) {
          if (!(e instanceof DomainError)) throw e;
        }
      }),
      { seed: 20261123, numRuns: 500 },
    );
  });

  it('refuses hostile nesting anywhere with a DomainError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...MEMBERS), fc.integer({ min: 17, max: 5000 }), fc.boolean(), async (member, depth, asObject) => {
        let deep: unknown = 'leaf';
        for (let i = 0; i < depth; i++) deep = asObject ? { x: deep } : [deep];
        await expect(normalizeMetadata({ [member]: deep }, 'resource', lookup)).rejects.toBeInstanceOf(DomainError);
      }),
      { seed: 7, numRuns: 100 },
    );
  });
});
