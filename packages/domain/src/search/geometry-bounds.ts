import type { BBox } from '../ports.ts';

type Position = [number, number];

function positions(coords: unknown, out: Position[]): void {
  if (!Array.isArray(coords)) return;
  if (coords.length >= 2 && typeof coords[0] === 'number' && typeof coords[1] === 'number') {
    out.push([coords[0], coords[1]]);
    return;
  }
  for (const c of coords) positions(c, out);
}

function boundsOf(points: Position[]): BBox | null {
  if (points.length === 0) return null;
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    w = Math.min(w, x);
    e = Math.max(e, x);
    s = Math.min(s, y);
    n = Math.max(n, y);
  }
  return [w, s, e, n];
}

/** One box per geometry part (a MultiPolygon over two continents is two boxes, not one huge one). */
function geometryBoxes(geometry: unknown, out: BBox[]): void {
  if (typeof geometry !== 'object' || geometry === null) return;
  const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (g.type === 'GeometryCollection' && Array.isArray(g.geometries)) {
    for (const part of g.geometries) geometryBoxes(part, out);
    return;
  }
  const parts = g.type === 'MultiPolygon' || g.type === 'MultiLineString' || g.type === 'MultiPoint' ? g.coordinates : [g.coordinates];
  if (!Array.isArray(parts)) return;
  for (const part of parts) {
    const points: Position[] = [];
    positions(part, points);
    const b = boundsOf(points);
    if (b) out.push(b);
  }
}

/** Bounds of `metadata.locations.features[].geometry`; malformed parts are skipped. */
export function geometryBounds(locations: unknown): BBox[] {
  const out: BBox[] = [];
  const features = (locations as { features?: unknown } | null | undefined)?.features;
  if (!Array.isArray(features)) return out;
  for (const f of features) geometryBoxes((f as { geometry?: unknown } | null)?.geometry, out);
  return out;
}
