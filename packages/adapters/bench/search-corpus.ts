/** Deterministic, realistic search documents for benchmarks: titles, descriptions, creators, geometries. */
import type { SearchDocument } from '@krs/domain';
import { geometryShapes, shapeBounds } from '@krs/domain/search';

const TOPICS = ['flood', 'drought', 'wildfire', 'sea ice', 'glacier', 'crop yield', 'urban heat', 'air quality', 'deforestation', 'soil moisture', 'coastal erosion', 'land cover', 'mangrove', 'snow cover', 'rainfall', 'landslide', 'wetland', 'biodiversity', 'water quality', 'methane'];
const PLACES = ['Niger delta', 'Sahel', 'Amazon basin', 'Alps', 'Bangladesh', 'Greenland', 'Mekong', 'Andes', 'Great Barrier Reef', 'Kenya', 'Sumatra', 'California', 'Po valley', 'Ganges', 'Lake Chad', 'Patagonia', 'Siberia', 'Borneo', 'Danube', 'Fiji'];
const METHODS = ['mapping', 'monitoring', 'early warning', 'time series', 'risk assessment', 'nowcasting', 'trend analysis', 'classification', 'change detection', 'forecasting'];
const SENSORS = ['Sentinel-1', 'Sentinel-2', 'Landsat 8', 'MODIS', 'VIIRS', 'SMAP', 'GRACE', 'ICESat-2'];
const FAMILY = ['Obi', 'Nguyen', 'Silva', 'Müller', 'Okafor', 'Kumar', 'Rossi', 'Tanaka', 'Haddad', 'Kowalski', 'Mensah', 'García'];
const GIVEN = ['Ada', 'Linh', 'João', 'Eva', 'Chidi', 'Priya', 'Marco', 'Yuki', 'Omar', 'Anna', 'Kwame', 'Lucía'];
const TYPES: [string, string][] = [['dataset', 'Dataset'], ['software', 'Software'], ['publication-article', 'Journal article'], ['user-story', 'User story'], ['knowledge', 'Knowledge Package']];

/** A small, fast, seeded generator so every run measures the same corpus. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One generated published record, as a depositor would have described it. */
export interface GeneratedRecord {
  id: string;
  kind: 'resource' | 'package';
  restricted: boolean;
  created: string;
  metadata: { [key: string]: unknown };
}

export function generateRecords(n: number, seed = 42): GeneratedRecord[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const records: GeneratedRecord[] = [];
  for (let i = 0; i < n; i++) {
    const topic = pick(TOPICS);
    const place = pick(PLACES);
    const title = `${topic[0]?.toUpperCase()}${topic.slice(1)} ${pick(METHODS)} in the ${place} with ${pick(SENSORS)}`;
    const description = `We present ${pick(METHODS)} of ${topic} and ${pick(TOPICS)} for the ${place} region using ${pick(SENSORS)} and ${pick(SENSORS)} observations between ${2000 + Math.floor(r() * 24)} and 2024.`;
    const lon = r() * 355 - 180;
    const lat = r() * 155 - 80;
    // Mostly points, some study-area polygons, as deposits tend to carry.
    const size = r() * 5;
    const geometry =
      r() < 0.6
        ? { type: 'Point', coordinates: [lon, lat] }
        : { type: 'Polygon', coordinates: [[[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]]] };
    const [typeId, typeLabel] = pick(TYPES);
    const created = new Date(Date.UTC(2020, 0, 1) + Math.floor(r() * 5 * 365 * 86400000)).toISOString();
    const id = `b${i.toString(32).padStart(4, '0')}-${Math.floor(r() * 32 ** 5).toString(32).padStart(5, '0')}`;
    const creators = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
      const [family, given] = [pick(FAMILY), pick(GIVEN)];
      return { person_or_org: { type: 'personal', name: `${family}, ${given}`, family_name: family, given_name: given } };
    });
    records.push({
      id,
      kind: typeId === 'knowledge' ? 'package' : 'resource',
      restricted: r() < 0.05,
      created,
      metadata: {
        title,
        description,
        creators,
        publication_date: created.slice(0, 10),
        resource_type: { id: typeId, title: { en: typeLabel } },
        locations: { features: [{ geometry, place }] },
      },
    });
  }
  return records;
}

export function generateDocs(n: number, seed = 42): SearchDocument[] {
  return generateRecords(n, seed).map((g, i) => {
    const rt = g.metadata['resource_type'] as { id: string; title: { en: string } };
    return {
      key: `published:${g.id}`,
      id: g.id,
      kind: g.kind,
      state: 'published',
      parentId: `p${g.id}`,
      ownerId: `u${i % 500}`,
      versionIndex: 1,
      isLatest: true,
      inUserListing: true,
      isUserLatest: true,
      isPublic: !g.restricted,
      readers: [`u${i % 500}`],
      created: g.created,
      updated: g.created,
      resourceType: { id: rt.id, label: rt.title.en },
      accessStatus: g.restricted ? 'restricted' : 'open',
      bounds: geometryShapes(g.metadata['locations']).map(shapeBounds),
      shapes: geometryShapes(g.metadata['locations']),
      body: { id: g.id, metadata: g.metadata, access: { record: g.restricted ? 'restricted' : 'public' } },
    };
  });
}
