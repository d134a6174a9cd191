/**
 * GeoJSON geometries of `metadata.locations.features[].geometry`, as InvenioRDM (and GEO) accept
 * them: the seven geometry types, no `bbox` or other members, a GeometryCollection holding only
 * simple geometries. The geometry is rebuilt from what was checked, so nothing unchecked is stored.
 */
type Position = number[];

export interface PositionBudget {
  /** Positions still allowed in this record. */
  left: number;
  /** Positions read, refused ones included: the work done. */
  examined: number;
}

const isCoordinate = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function position(p: unknown, budget: PositionBudget): Position | null {
  budget.examined++;
  if (!Array.isArray(p) || p.length < 2 || p.length > 3 || !p.every(isCoordinate)) return null;
  const [lon, lat] = p as number[];
  if (Math.abs(lon!) > 180 || Math.abs(lat!) > 90) return null;
  budget.left--;
  return budget.left < 0 ? null : [...(p as number[])];
}

function list<T>(v: unknown, min: number, each: (x: unknown) => T | null): T[] | null {
  if (!Array.isArray(v) || v.length < min) return null;
  const out: T[] = [];
  for (const x of v) {
    const r = each(x);
    if (r === null) return null;
    out.push(r);
  }
  return out;
}

const SIMPLE: { [type: string]: (c: unknown, b: PositionBudget) => unknown[] | Position | null } = {
  Point: (c, b) => position(c, b),
  MultiPoint: (c, b) => list(c, 1, (p) => position(p, b)),
  LineString: (c, b) => list(c, 2, (p) => position(p, b)),
  MultiLineString: (c, b) => list(c, 1, (l) => list(l, 2, (p) => position(p, b))),
  Polygon: (c, b) => list(c, 1, (r) => list(r, 4, (p) => position(p, b))),
  MultiPolygon: (c, b) => list(c, 1, (poly) => list(poly, 1, (r) => list(r, 4, (p) => position(p, b)))),
};

const MESSAGE = 'Invalid GeoJSON geometry (types Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection; coordinates are longitude -180..180, latitude -90..90).';

function simple(g: unknown, budget: PositionBudget): { type: string; coordinates: unknown } | null {
  if (typeof g !== 'object' || g === null || Array.isArray(g)) return null;
  const { type, coordinates, ...rest } = g as { type?: unknown; coordinates?: unknown };
  const rule = typeof type === 'string' && Object.hasOwn(SIMPLE, type) ? SIMPLE[type] : undefined;
  if (!rule || Object.keys(rest).length > 0) return null;
  const checked = rule(coordinates, budget);
  return checked === null ? null : { type: type as string, coordinates: checked };
}

/** The checked geometry, or the message saying why it is refused. */
export function normalizeGeometry(g: unknown, budget: PositionBudget): { geometry: object } | { problem: string; overLimit: boolean } {
  const before = budget.left;
  const result = (() => {
    if (typeof g === 'object' && g !== null && (g as { type?: unknown }).type === 'GeometryCollection') {
      const { type: _type, geometries, ...rest } = g as { type: string; geometries?: unknown };
      if (Object.keys(rest).length > 0) return null;
      const parts = list(geometries, 1, (x) => simple(x, budget));
      return parts === null ? null : { type: 'GeometryCollection', geometries: parts };
    }
    return simple(g, budget);
  })();
  if (result !== null) return { geometry: result };
  if (budget.left < 0) return { problem: 'More coordinates than the limit for one record.', overLimit: true };
  // A refused geometry is not stored, so its positions do not count.
  budget.left = before;
  return { problem: MESSAGE, overLimit: false };
}
