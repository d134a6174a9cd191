/** GeoJSON geometry checks for `metadata.locations.features[].geometry`. */
type Json = unknown;

const isPosition = (p: Json): boolean =>
  Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && typeof p[1] === 'number' && Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90;
const list = (v: Json, each: (x: Json) => boolean, min = 0): boolean => Array.isArray(v) && v.length >= min && v.every(each);
const ring = (r: Json) => list(r, isPosition, 4);

export function geometryProblem(g: Json): string | null {
  if (typeof g !== 'object' || g === null) return 'Geometry must be a GeoJSON object.';
  const { type, coordinates, geometries } = g as { type?: unknown; coordinates?: Json; geometries?: Json };
  const ok = (() => {
    switch (type) {
      case 'Point':
        return isPosition(coordinates);
      case 'MultiPoint':
        return list(coordinates, isPosition, 1);
      case 'LineString':
        return list(coordinates, isPosition, 2);
      case 'MultiLineString':
        return list(coordinates, (l) => list(l, isPosition, 2), 1);
      case 'Polygon':
        return list(coordinates, ring, 1);
      case 'MultiPolygon':
        return list(coordinates, (p) => list(p, ring, 1), 1);
      case 'GeometryCollection':
        return list(geometries, (x) => geometryProblem(x) === null, 1);
      default:
        return false;
    }
  })();
  return ok ? null : `Invalid GeoJSON geometry${typeof type === 'string' ? ` of type ${type}` : ''} (coordinates are longitude -180..180, latitude -90..90).`;
}
