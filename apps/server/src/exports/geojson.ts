/** GeoJSON (RFC 7946) of a record's locations: one Feature each, as stored, with its place and description. */
import type { RecordView } from '@krs/domain';
import { list, obj, str } from '../metadata-view.ts';

export const GEOJSON_TYPE = 'application/geo+json';

export function toGeoJson(view: RecordView): Record<string, unknown> {
  const features = list(obj((view.record.metadata as Record<string, unknown>)['locations'])?.['features']).flatMap((f) => {
    const feature = obj(f);
    if (feature === null) return [];
    const geometry = obj(feature['geometry']);
    const properties: Record<string, unknown> = {};
    for (const key of ['place', 'description'] as const) if (str(feature[key])) properties[key] = feature[key];
    if (Array.isArray(feature['identifiers'])) properties['identifiers'] = feature['identifiers'];
    return [{ type: 'Feature', geometry: typeof geometry?.['type'] === 'string' ? geometry : null, properties }];
  });
  return { type: 'FeatureCollection', features };
}
