/**
 * Metadata at the documented limits (docs/limits.md), for tests and benchmarks that need the
 * largest record the service accepts: the deepest legal geometry, lists at or near their limits,
 * and as much text as fits the total size.
 */
import { METADATA_LIMITS } from '../model/metadata/limits.ts';

/** Every list at or near its limit, the deepest legal geometry, and as much text as fits the total. */
export function largestLegalMetadata() {
  const ring = (lon: number, n: number) => {
    const points = Array.from({ length: n - 1 }, (_, k) => [lon + Math.cos((2 * Math.PI * k) / (n - 1)), Math.sin((2 * Math.PI * k) / (n - 1))]);
    return [...points, points[0]];
  };
  const perFeature = METADATA_LIMITS.maxPositions / 10;
  const features = Array.from({ length: 10 }, (_, f) => ({
    place: `Place ${f}`,
    identifiers: [{ scheme: 'geonames', identifier: String(2988507 + f) }],
    geometry: { type: 'GeometryCollection', geometries: [{ type: 'MultiPolygon', coordinates: [[ring(f * 10, perFeature)]] }] },
  }));
  const creators = Array.from({ length: 3_000 }, (_, i) => ({
    person_or_org: { type: 'personal', given_name: `Given${i}`, family_name: `Family${i}`, email: `p${i}@example.org`, identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] },
    affiliations: [{ name: `Institute ${i % 100}` }],
  }));
  return {
    title: `Zanzibarite survey ${'t'.repeat(METADATA_LIMITS.maxText - 30)}`,
    publication_date: '2024-01-01',
    resource_type: { id: 'dataset' },
    description: `<p>${'Lorem ipsum <em>dolor</em> sit amet. '.repeat(Math.floor((METADATA_LIMITS.maxHtml - 10) / 37))}</p>`,
    creators,
    subjects: Array.from({ length: METADATA_LIMITS.maxList }, (_, i) => ({ subject: `subject ${i}` })),
    related_identifiers: Array.from({ length: 1_000 }, (_, i) => ({ identifier: `https://example.org/${i}`, scheme: 'url', relation_type: { id: 'references' }, title: `Link ${i}` })),
    funding: [{ funder: { name: 'Fund' }, award: { number: '1', title: { en: 'Award' }, identifiers: [{ scheme: 'url', identifier: 'https://example.org/a' }] } }],
    locations: { features },
  };
}

