import type { BBox } from '../ports.ts';

type Position = [number, number];

function positions(coords: unknown, out: Position[]): void {
  if (!Array.isArray(coords)) return;
  if (typeof coords[0] === 'number' || typeof coords[1] === 'number') {
    const [x, y] = coords as unknown[];
    // A position out of WGS84 range is malformed, not a box to match against.
    if (typeof x === 'number' && typeof y === 'number' && Math.abs(x) <= 180 && Math.abs(y) <= 90) out.push([x, y]);
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

const SINGLE = new Set(['Point', 'LineString', 'Polygon']);
const MULTI = new Set(['MultiPoint', 'MultiLineString', 'MultiPolygon']);

/** One box per geometry part (a MultiPolygon over two continents is two boxes, not one huge one). */
function geometryBoxes(geometry: unknown, out: BBox[]): void {
  if (typeof geometry !== 'object' || geometry === null) return;
  const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (g.type === 'GeometryCollection' && Array.isArray(g.geometries)) {
    for (const part of g.geometries) geometryBoxes(part, out);
    return;
  }
  if (typeof g.type !== 'string' || (!SINGLE.has(g.type) && !MULTI.has(g.type))) return;
  if (!Array.isArray(g.coordinates)) return;
  const parts = MULTI.has(g.type) ? g.coordinates : [g.coordinates];
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
