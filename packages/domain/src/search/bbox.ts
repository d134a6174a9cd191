import { invalid } from '../errors.ts';
import type { BBox } from '../ports.ts';

const bad = (message: string) => invalid('search.bbox', 'Invalid querystring parameters.', [{ field: 'bbox', messages: [message] }]);

/** `W,N,E,S`: top-left then bottom-right corner, WGS84 degrees. */
export function parseBBox(text: string): BBox {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 4 || parts.some((p) => !/^[-+]?\d+(\.\d+)?$/.test(p))) {
    throw bad('bbox must be four numbers: west,north,east,south.');
  }
  const [w, n, e, s] = parts.map(Number) as [number, number, number, number];
  if ([w, e].some((x) => x < -180 || x > 180)) throw bad('Longitudes must be between -180 and 180.');
  if ([n, s].some((y) => y < -90 || y > 90)) throw bad('Latitudes must be between -90 and 90.');
  if (n < s) throw bad('North must not be below south.');
  return [w, s, e, n];
}

const lonOverlap = (aw: number, ae: number, bw: number, be: number) => aw <= be && bw <= ae;

/** Whether a query box (which may cross the antimeridian when west > east) touches a bounds box. */
export function bboxIntersects(box: BBox, bounds: BBox): boolean {
  const [w, s, e, n] = box;
  const [bw, bs, be, bn] = bounds;
  if (bs > n || bn < s) return false;
  if (w <= e) return lonOverlap(w, e, bw, be);
  return lonOverlap(w, 180, bw, be) || lonOverlap(-180, e, bw, be);
}
