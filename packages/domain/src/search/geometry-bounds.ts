/**
 * Reads `metadata.locations.features[].geometry` into the parts the bbox filter works on: one
 * exact shape per geometry part (a MultiPolygon over two continents is two parts), and its box.
 */
import type { BBox, Shape } from '../ports.ts';

/**
 * Vertices kept exactly per record, so deciding one candidate costs a bounded amount of work.
 * Parts past it keep only their box: they may match a little more than they cover, never less.
 */
export const MAX_SHAPE_VERTICES = 10_000;

/** GeometryCollections nested deeper than this are ignored (GeoJSON advises against nesting them at all). */
const MAX_COLLECTION_DEPTH = 8;

/** A WGS84 position's longitude and latitude; anything else (out of range, not numbers) is malformed. */
function position(p: unknown): [number, number] | null {
  if (!Array.isArray(p)) return null;
  const [x, y] = p as unknown[];
  if (typeof x !== 'number' || typeof y !== 'number' || !(Math.abs(x) <= 180) || !(Math.abs(y) <= 90)) return null;
  return [x, y];
}

/** The valid positions of a list, flat; malformed ones are skipped. */
function path(list: unknown): number[] {
  const out: number[] = [];
  if (!Array.isArray(list)) return out;
  for (const p of list) {
    const xy = position(p);
    if (xy) out.push(xy[0], xy[1]);
  }
  return out;
}

function pointsOf(coords: unknown): Shape[] {
  const xy = position(coords);
  return xy ? [{ type: 'point', xy }] : [];
}

function lineOf(coords: unknown): Shape[] {
  const xy = path(coords);
  if (xy.length === 0) return [];
  return xy.length === 2 ? [{ type: 'point', xy: [xy[0] as number, xy[1] as number] }] : [{ type: 'line', xy }];
}

function polygonOf(coords: unknown): Shape[] {
  if (!Array.isArray(coords)) return [];
  const rings = coords.map(path).filter((r) => r.length > 0);
  // Without its outline there is nothing to bound: the holes alone do not make a polygon.
  if (rings.length === 0 || path(coords[0]).length === 0) return [];
  return [{ type: 'polygon', rings }];
}

const each = (coords: unknown, part: (c: unknown) => Shape[]): Shape[] => (Array.isArray(coords) ? coords.flatMap(part) : []);

function partsOf(type: unknown, coords: unknown): Shape[] {
  switch (type) {
    case 'Point':
      return pointsOf(coords);
    case 'MultiPoint':
      return each(coords, pointsOf);
    case 'LineString':
      return lineOf(coords);
    case 'MultiLineString':
      return each(coords, lineOf);
    case 'Polygon':
      return polygonOf(coords);
    case 'MultiPolygon':
      return each(coords, polygonOf);
    default:
      return [];
  }
}

const vertexCount = (s: Shape): number =>
  s.type === 'polygon' ? s.rings.reduce((n, r) => n + r.length / 2, 0) : s.type === 'line' ? s.xy.length / 2 : 1;

/** The box of a shape. */
export function shapeBounds(s: Shape): BBox {
  if (s.type === 'box') return s.box;
  if (s.type === 'point') return [s.xy[0], s.xy[1], s.xy[0], s.xy[1]];
  let [w, south, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const xy of s.type === 'polygon' ? s.rings : [s.xy]) {
    for (let i = 0; i < xy.length; i += 2) {
      const x = xy[i] as number;
      const y = xy[i + 1] as number;
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < south) south = y;
      if (y > n) n = y;
    }
  }
  return [w, south, e, n];
}

/** The exact parts of the locations' geometries, in order; malformed parts are skipped. */
export function geometryShapes(locations: unknown): Shape[] {
  const out: Shape[] = [];
  const features = (locations as { features?: unknown } | null | undefined)?.features;
  if (!Array.isArray(features)) return out;
  let budget = MAX_SHAPE_VERTICES;
  // An explicit stack, not recursion: collections nest, and a nesting must not cost stack depth.
  const pending: { geometry: unknown; depth: number }[] = features.map((f) => ({ geometry: (f as { geometry?: unknown } | null)?.geometry, depth: 0 })).reverse();
  while (pending.length > 0) {
    const { geometry, depth } = pending.pop() as { geometry: unknown; depth: number };
    if (typeof geometry !== 'object' || geometry === null) continue;
    const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown };
    if (g.type === 'GeometryCollection') {
      if (Array.isArray(g.geometries) && depth < MAX_COLLECTION_DEPTH) {
        for (let i = g.geometries.length - 1; i >= 0; i--) pending.push({ geometry: g.geometries[i], depth: depth + 1 });
      }
      continue;
    }
    for (const part of partsOf(g.type, g.coordinates)) {
      const cost = vertexCount(part);
      if (part.type !== 'point' && cost > budget) {
        out.push({ type: 'box', box: shapeBounds(part) });
      } else {
        budget -= cost;
        out.push(part);
      }
    }
  }
  return out;
}

/** Bounds of `metadata.locations.features[].geometry`, one box per geometry part; malformed parts are skipped. */
export function geometryBounds(locations: unknown): BBox[] {
  return geometryShapes(locations).map(shapeBounds);
}
