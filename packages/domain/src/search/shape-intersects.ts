/**
 * Whether a query box meets a geometry part, exactly, on the plane of longitude and latitude.
 * Closed sets: touching an edge or a corner counts. A polygon meets a box when one of its rings
 * (outline or hole) crosses or touches the box, or else when the box lies wholly in the polygon's
 * area (inside the outline, outside every hole), which one point of the box then decides.
 */
import type { BBox, Shape } from '../ports.ts';

/** A box that does not cross the antimeridian: west <= east. */
type Plain = readonly [w: number, s: number, e: number, n: number];

/** A query box as one or two plain boxes: west > east crosses the antimeridian. */
export function splitAtAntimeridian(box: BBox): Plain[] {
  const [w, s, e, n] = box;
  return w <= e ? [box] : [[w, s, 180, n], [-180, s, e, n]];
}

const inBox = (b: Plain, x: number, y: number) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];

/** Liang-Barsky clipping: whether the segment from (x0, y0) to (x1, y1) has a point in the box. */
function segmentMeetsBox(b: Plain, x0: number, y0: number, x1: number, y1: number): boolean {
  if (inBox(b, x0, y0) || inBox(b, x1, y1)) return true;
  const dx = x1 - x0;
  const dy = y1 - y0;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, x0 - b[0]],
    [dx, b[2] - x0],
    [-dy, y0 - b[1]],
    [dy, b[3] - y0],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
  }
  return t0 <= t1;
}

/** Whether any segment of a path (closed back to its start when `closed`) meets the box. */
function pathMeetsBox(b: Plain, xy: readonly number[], closed: boolean): boolean {
  const count = xy.length / 2;
  if (count === 1) return inBox(b, xy[0] as number, xy[1] as number);
  const last = closed ? count : count - 1;
  for (let i = 0; i < last; i++) {
    const j = (i + 1) % count;
    if (segmentMeetsBox(b, xy[2 * i] as number, xy[2 * i + 1] as number, xy[2 * j] as number, xy[2 * j + 1] as number)) return true;
  }
  return false;
}

/** Even-odd ray casting over every ring: holes lying inside the outline make it "inside the area". */
function inArea(rings: readonly (readonly number[])[], x: number, y: number): boolean {
  let inside = false;
  for (const ring of rings) {
    const count = ring.length / 2;
    for (let i = 0, j = count - 1; i < count; j = i++) {
      const xi = ring[2 * i] as number;
      const yi = ring[2 * i + 1] as number;
      const xj = ring[2 * j] as number;
      const yj = ring[2 * j + 1] as number;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

function meetsPlain(b: Plain, s: Shape): boolean {
  switch (s.type) {
    case 'point':
      return inBox(b, s.xy[0], s.xy[1]);
    case 'box':
      return s.box[0] <= b[2] && s.box[2] >= b[0] && s.box[1] <= b[3] && s.box[3] >= b[1];
    case 'line':
      return pathMeetsBox(b, s.xy, false);
    case 'polygon':
      if (s.rings.some((ring) => pathMeetsBox(b, ring, true))) return true;
      // No ring reaches the box: it is wholly inside the area or wholly outside, as any of its points is.
      return inArea(s.rings, b[0], b[1]);
  }
}

/** Whether the query box (which may cross the antimeridian) meets the shape. */
export function shapeIntersects(box: BBox, shape: Shape): boolean {
  return splitAtAntimeridian(box).some((b) => meetsPlain(b, shape));
}

/** Whether a plain box lies wholly inside the query box: then every shape it bounds meets the query. */
export function boxWithin(inner: BBox, box: BBox): boolean {
  return splitAtAntimeridian(box).some((b) => inner[0] >= b[0] && inner[2] <= b[2] && inner[1] >= b[1] && inner[3] <= b[3]);
}
