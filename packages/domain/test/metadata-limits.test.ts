import { describe, expect, it } from 'vitest';
import { DomainError, type FieldIssue } from '../src/index.ts';
import { METADATA_LIMITS, normalizeMetadata } from '../src/model/metadata/index.ts';
import { createInMemoryRepositories, largestLegalMetadata } from '../src/testing/index.ts';
import { createVocabularyLookup } from '../src/vocabularies/index.ts';
import { as, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');
const lookup = () => createVocabularyLookup(createInMemoryRepositories().repos.vocabularies);
type Obj = { [key: string]: any };

/** The 400 a request past a limit gets, with its field errors. */
async function refusal(run: () => Promise<unknown>): Promise<FieldIssue[]> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe('invalid');
  return (error as DomainError).details ?? [];
}

const refusedFields = async (metadata: unknown) => (await refusal(() => normalizeMetadata(metadata, 'resource', lookup()))).map((i) => i.field);
const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
const person = (i: number) => ({ person_or_org: { type: 'personal', given_name: `G${i}`, family_name: `F${i}` } });

describe('metadata limits', () => {
  it('refuses nesting deeper than the limit before reading it, naming where', async () => {
    const fields = await refusedFields({ funding: [{ funder: { name: 'x' }, award: nested(3500) }] });
    expect(fields).toHaveLength(1);
    expect(fields[0]).toMatch(/^metadata\.funding\.0\.award(\.0)+$/);
  });

  it('accepts the deepest legal shape, a MultiPolygon inside a GeometryCollection', async () => {
    const ring = [[0, 0], [1, 0], [1, 1], [0, 0]];
    const geometry = { type: 'GeometryCollection', geometries: [{ type: 'MultiPolygon', coordinates: [[ring]] }] };
    const { metadata, issues } = await normalizeMetadata({ locations: { features: [{ geometry }] } }, 'resource', lookup());
    expect(issues).toEqual([]);
    expect((metadata['locations'] as Obj)['features'][0].geometry).toEqual(geometry);
  });

  it('keeps a deep object out of the store: nothing is saved and the service still lists', async () => {
    const { core, repos } = makeCore();
    const draft = (await core.records.createDraft(alice, 'resource', { metadata: validMetadata })).record;
    await refusal(() => core.records.updateDraft(alice, 'resource', draft.id, { metadata: { ...validMetadata, funding: [nested(3500)] } }));
    expect((await repos.records.getDraft(draft.id))?.revisionId).toBe(draft.revisionId);
    await refusal(() => core.records.createDraft(alice, 'package', { metadata: validMetadata, customFields: { 'geo:x': nested(50) } }));
  });

  it('refuses lists longer than their limit without reading their items', async () => {
    const creators = Array.from({ length: METADATA_LIMITS.maxPeople + 1 }, () => 'not even an object');
    expect(await refusedFields({ creators })).toEqual(['metadata.creators']);
    expect(await refusedFields({ subjects: Array.from({ length: METADATA_LIMITS.maxList + 1 }, (_, i) => ({ subject: `s${i}` })) })).toEqual(['metadata.subjects']);
    expect(await refusedFields({ languages: Array.from({ length: 300_000 }, (_, i) => ({ id: `x${i}` })) })).toEqual(['metadata.languages']);
  });

  it('accepts as many creators as the limit allows', async () => {
    const creators = Array.from({ length: METADATA_LIMITS.maxPeople }, (_, i) => person(i));
    const { metadata, issues } = await normalizeMetadata({ creators }, 'resource', lookup());
    expect(issues).toEqual([]);
    expect((metadata['creators'] as unknown[]).length).toBe(METADATA_LIMITS.maxPeople);
  });

  it('refuses texts over their length, and descriptions whose escaped form outgrows the limit', async () => {
    expect(await refusedFields({ title: 'x'.repeat(METADATA_LIMITS.maxText + 1) })).toEqual(['metadata.title']);
    expect(await refusedFields({ description: 'x'.repeat(METADATA_LIMITS.maxHtml + 1) })).toEqual(['metadata.description']);
    // Within the input limit, but each `<` becomes `&lt;`.
    expect(await refusedFields({ description: '<'.repeat(METADATA_LIMITS.maxHtml / 2) })).toEqual(['metadata.description']);
  });

  it('refuses more GeoJSON positions than the limit over all locations', async () => {
    const points = (n: number) => Array.from({ length: n }, (_, i) => [i % 180, 0]);
    const half = METADATA_LIMITS.maxPositions / 2;
    const features = [{ geometry: { type: 'MultiPoint', coordinates: points(half) } }, { geometry: { type: 'MultiPoint', coordinates: points(half + 1) } }];
    expect(await refusedFields({ locations: { features } })).toEqual(['metadata.locations.features.1.geometry']);
    const fits = await normalizeMetadata({ locations: { features: [features[0], { geometry: { type: 'MultiPoint', coordinates: points(half) } }] } }, 'resource', lookup());
    expect(fits.issues).toEqual([]);
  });

  it('refuses metadata whose normalised JSON is larger than the limit', async () => {
    const long = 'x'.repeat(METADATA_LIMITS.maxText - 10);
    const count = Math.ceil(METADATA_LIMITS.maxSerialized / METADATA_LIMITS.maxText) + 1;
    const creators = Array.from({ length: count }, () => ({ person_or_org: { type: 'organizational', name: long } }));
    expect(await refusedFields({ creators })).toEqual(['metadata']);
  });

  it('holds a large record (measured in slices) to the normalised size limit to the character', async () => {
    // The largest legal record, its subjects lengthened by `extra` characters in all.
    const lengthened = (extra: number) => {
      const m = largestLegalMetadata();
      m.subjects = m.subjects.map((s, i) => ({ subject: s.subject + 'x'.repeat(Math.floor(extra / m.subjects.length) + (i === 0 ? extra % m.subjects.length : 0)) }));
      return m;
    };
    const gap = METADATA_LIMITS.maxSerialized - JSON.stringify((await normalizeMetadata(lengthened(0), 'resource', lookup())).metadata).length;
    const atLimit = await normalizeMetadata(lengthened(gap), 'resource', lookup());
    expect(JSON.stringify(atLimit.metadata).length).toBe(METADATA_LIMITS.maxSerialized);
    expect(await refusedFields(lengthened(gap + 1))).toEqual(['metadata']);
  });

  it('normalises the largest legal record, which takes several turns, as it normalises a small one', async () => {
    const big: Obj = { ...largestLegalMetadata(), publication_date: 'someday', colour: 'blue' };
    const small: Obj = { title: big['title'], resource_type: big['resource_type'], creators: big['creators'].slice(0, 2), publication_date: 'someday', colour: 'blue' };
    const [large, little] = await Promise.all([normalizeMetadata(big, 'resource', lookup()), normalizeMetadata(small, 'resource', lookup())]);
    expect(large.issues).toEqual(little.issues);
    expect(large.issues.map((i) => i.field).sort()).toEqual(['metadata.colour', 'metadata.publication_date']);
    for (const field of ['title', 'resource_type']) expect(large.metadata[field]).toEqual(little.metadata[field]);
    expect((large.metadata['creators'] as Obj[]).slice(0, 2)).toEqual(little.metadata['creators']);
  });

  it('stores at most the issue limit, one per field, the rest summed up', async () => {
    const { core } = makeCore();
    const languages = Array.from({ length: METADATA_LIMITS.maxList }, (_, i) => ({ id: `zz${i}` }));
    const draft = await core.records.createDraft(alice, 'resource', { metadata: { ...validMetadata, languages } });
    expect(draft.issues).toHaveLength(METADATA_LIMITS.maxIssues);
    expect(draft.issues.at(-1)).toEqual({ field: '_schema', messages: [`${METADATA_LIMITS.maxList - METADATA_LIMITS.maxIssues + 1} more problems are not listed; fix these first.`] });
    expect(new Set(draft.issues.map((i) => i.field)).size).toBe(draft.issues.length);
  });

  it('refuses other members of the body past their limits: pids, custom fields, file order, embargo reason', async () => {
    const { core } = makeCore();
    const fields = async (input: object, kind: 'resource' | 'package' = 'resource') =>
      (await refusal(() => core.records.createDraft(alice, kind, { metadata: validMetadata, ...input }))).map((i) => i.field);
    expect(await fields({ pids: { doi: { identifier: '10.1/x', provider: 'external', extra: nested(3) } } })).toEqual(['pids.doi.extra']);
    expect(await fields({ pids: { doi: nested(2) } })).toEqual(['pids.doi']);
    expect(await fields({ customFields: { big: 'x'.repeat(70_000) } }, 'package')).toEqual(['custom_fields']);
    expect(await fields({ files: { enabled: true, order: Array.from({ length: 500_000 }, (_, i) => `f${i}`) } })).toEqual(['files.order']);
    expect(await fields({ access: { embargo: { reason: 'x'.repeat(METADATA_LIMITS.maxText + 1) } } })).toEqual(['access.embargo.reason']);
    const fine = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, pids: { doi: { identifier: '10.1/x', provider: 'external' } } });
    expect(fine.record.pids).toEqual({ doi: { identifier: '10.1/x', provider: 'external' } });
  });
});

describe('free-form members take their InvenioRDM shapes', () => {
  it('funding keeps a funder and an award, and nothing else', async () => {
    const { metadata, issues } = await normalizeMetadata(
      {
        funding: [
          { funder: { id: '00k4n6c32', name: 'European Commission' }, award: { id: '101004188', number: '101004188', title: { en: 'Project' }, identifiers: [{ scheme: 'url', identifier: 'https://example.org/p' }] } },
          { funder: { name: 'Anything' }, payload: { deep: [1, 2, 3] } },
          { award: { number: '1', title: { en: 'No funder' } } },
          { funder: { name: 'Fund' }, award: { number: 'only a number' } },
        ],
      },
      'resource',
      lookup(),
    );
    expect(issues.map((i) => i.field)).toEqual(['metadata.funding.1.payload', 'metadata.funding.2.funder', 'metadata.funding.3.award']);
    expect(metadata['funding']).toEqual([
      { funder: { id: '00k4n6c32', name: 'European Commission' }, award: { id: '101004188', number: '101004188', title: { en: 'Project' }, identifiers: [{ scheme: 'url', identifier: 'https://example.org/p' }] } },
      { funder: { name: 'Anything' } },
    ]);
  });

  it('location identifiers are {scheme, identifier} and geometries carry no other members', async () => {
    const { metadata, issues } = await normalizeMetadata(
      {
        locations: {
          features: [
            { place: 'Here', identifiers: [{ scheme: 'GeoNames', identifier: '2988507' }, { anything: { at: 'all' } }] },
            { geometry: { type: 'Point', coordinates: [1, 2], bbox: [0, 0, 3, 3] } },
            { geometry: { type: 'GeometryCollection', geometries: [{ type: 'GeometryCollection', geometries: [] }] } },
          ],
        },
      },
      'resource',
      lookup(),
    );
    expect(issues.map((i) => i.field)).toEqual([
      'metadata.locations.features.0.identifiers.1.anything',
      'metadata.locations.features.0.identifiers.1.scheme',
      'metadata.locations.features.0.identifiers.1.identifier',
      'metadata.locations.features.1.geometry',
      'metadata.locations.features.2.geometry',
    ]);
    expect(metadata['locations']).toEqual({ features: [{ place: 'Here', identifiers: [{ scheme: 'geonames', identifier: '2988507' }] }] });
  });

  it('custom rights keep language-keyed texts only', async () => {
    const { metadata, issues } = await normalizeMetadata({ rights: [{ title: { en: 'My licence', 'not a language': 'x' }, description: { en: 'Use freely' }, link: 'https://example.org/l' }] }, 'resource', lookup());
    expect(issues.map((i) => i.field)).toEqual(['metadata.rights.0.title.not a language']);
    expect(metadata['rights']).toEqual([{ title: { en: 'My licence' }, description: { en: 'Use freely' }, link: 'https://example.org/l' }]);
  });
});
