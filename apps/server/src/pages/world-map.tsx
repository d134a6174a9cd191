/**
 * Where a record's locations are, drawn on the server as SVG: Natural Earth's coastlines
 * (world-atlas, 1:110m) in an equirectangular projection (d3-geo), points as dots and areas as
 * their own outlines. No tiles, no script: it works offline and without JavaScript.
 *
 * The coastlines are the same on every page, so a landing page does not carry them: its inline
 * SVG draws the locations over the base map, one image served under a name that changes with its
 * content and cached for a year. Inlined, they were 77 KB of every landing page with a location
 * (103 KB in all for one point), fetched again by every reader and crawler.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { geoArea, geoEquirectangular, geoPath, type GeoPermissibleObjects } from 'd3-geo';
import { feature } from 'topojson-client';
import type { Place } from '../metadata-view.ts';
import { timeSlices } from '@krs/domain';
import { raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

const W = 720;
const H = 360;
const projection = geoEquirectangular().fitSize([W, H], { type: 'Sphere' });
const path = geoPath(projection);
/** A tenth of a pixel at the map's 720 pixels: 56 KB of coastline instead of 77. */
const outline = geoPath(projection).digits(1);

let land: string | null = null;
/** The coastlines' path, computed once: the same for every page. */
function landPath(): string {
  if (land === null) {
    const topology = createRequire(import.meta.url)('world-atlas/land-110m.json') as Parameters<typeof feature>[0];
    const object = topology.objects['land'];
    land = object === undefined ? '' : (outline(feature(topology, object) as GeoPermissibleObjects) ?? '');
  }
  return land;
}
/**
 * A line every 10 degrees. This projection draws them straight, so each is written as its two
 * ends: d3's graticule samples every line densely for projections that curve them (20 KB here).
 */
function graticulePath(): string {
  const lines: string[] = [];
  const px = (v: number) => Math.round(v * 10) / 10;
  for (let lon = -180; lon <= 180; lon += 10) lines.push(`M${px(projection([lon, 0])?.[0] ?? 0)},0V${H}`);
  for (let lat = -80; lat <= 80; lat += 10) lines.push(`M0,${px(projection([0, lat])?.[1] ?? 0)}H${W}`);
  return lines.join('');
}
const graticule = graticulePath();

/** Sea, graticule and land, the layers under every map. */
const baseLayers = () =>
  `<rect width="${W}" height="${H}" fill="#dbe9f6"/><path d="${graticule}" fill="none" stroke="#b8cde0" stroke-width="0.5"/><path d="${landPath()}" fill="#f3efe4" stroke="#9aa5ad" stroke-width="0.5"/>`;

export interface BaseMap {
  /** Where it is served: the name carries a hash of the content, so it can be cached for good. */
  path: string;
  svg: string;
}

let base: BaseMap | null = null;
/** The base map as a standalone SVG document, made once. */
export function baseMap(): BaseMap {
  if (base === null) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">${baseLayers()}</svg>`;
    base = { path: `/static/world-map-${createHash('sha256').update(svg).digest('hex').slice(0, 16)}.svg`, svg };
  }
  return base;
}

/** A located place as drawn: a dot for a point or a shape smaller than the dot, an outline otherwise; null when it projects to nothing. */
export type MapShape = { dot: [number, number] } | { outline: string } | null;

type Rings = number[][][];
interface Geometry {
  type: string;
  coordinates?: unknown;
  geometries?: Geometry[];
}

/** A polygon's rings as d3 wants them: see `windingForD3`. */
function polygonForD3(rings: Rings): Rings {
  const outer = geoArea({ type: 'Polygon', coordinates: rings } as GeoPermissibleObjects);
  return outer > 2 * Math.PI ? rings.map((r) => [...r].reverse()) : rings;
}

/**
 * A geometry with its polygons wound as d3-geo reads them. GeoJSON (RFC 7946) winds an outer ring
 * counter-clockwise, the opposite of d3, which works on the sphere and takes the winding to say
 * which side of a ring is inside: as given, such a polygon is the whole globe but itself and filled
 * the whole map. A polygon wider than a hemisphere is taken as the other winding of the smaller
 * one, every ring reversed, so holes stay holes.
 */
function windingForD3(g: Geometry): Geometry {
  if (g.type === 'Polygon') return { ...g, coordinates: polygonForD3(g.coordinates as Rings) };
  if (g.type === 'MultiPolygon') return { ...g, coordinates: (g.coordinates as Rings[]).map(polygonForD3) };
  if (g.type === 'GeometryCollection') return { ...g, geometries: (g.geometries ?? []).map(windingForD3) };
  return g;
}

/** The dot's radius, in map pixels. */
const DOT_RADIUS = 9;

/**
 * A point is a dot; so is a shape no wider and no taller than the dot: a study area of a few
 * kilometres is under a pixel of the map, and drawn as itself it was not to be seen at all.
 */
function shapeOf(geometry: NonNullable<Place['geometry']>): MapShape {
  const g = geometry as unknown as Geometry;
  if (g.type === 'Point') {
    const at = projection(g.coordinates as [number, number]);
    return at ? { dot: [at[0], at[1]] } : null;
  }
  const shape = windingForD3(g) as GeoPermissibleObjects;
  const [[x0, y0], [x1, y1]] = path.bounds(shape);
  if (x1 - x0 <= 2 * DOT_RADIUS && y1 - y0 <= 2 * DOT_RADIUS) {
    const [x, y] = path.centroid(shape);
    return Number.isFinite(x) && Number.isFinite(y) ? { dot: [x, y] } : null;
  }
  const d = path.pointRadius(DOT_RADIUS)(shape);
  return d ? { outline: d } : null;
}


/**
 * The shapes of the places that have a geometry, in their order, a turn given every few
 * milliseconds: the 20,000 positions a record may hold take 15-20 ms to project, half of the
 * largest landing page's rendering when done inside it.
 */
export async function mapShapes(places: Place[], turn: () => Promise<void>): Promise<MapShape[]> {
  const shapes: MapShape[] = [];
  const slicing = timeSlices(turn);
  for (const p of places) {
    if (p.geometry === null) continue;
    if (slicing.due()) await slicing.turn();
    shapes.push(shapeOf(p.geometry));
  }
  return shapes;
}

/**
 * The map of some places as HTML (empty when none has a geometry): projected a slice at a time,
 * then written in a turn of its own, as the page that embeds it is in another. The outlines of
 * 20,000 positions are 300 KB of path, a block of milliseconds to write beside the page.
 */
export async function mapFigure(places: Place[], baseMapHref: string, turn: () => Promise<void>): Promise<HtmlEscapedString> {
  const shapes = await mapShapes(places, turn);
  if (shapes.length === 0) return raw('');
  await turn();
  return raw((<WorldMap shapes={shapes} baseMapHref={baseMapHref} />).toString());
}

/** `baseMapHref`: where the page's reader fetches the base map (`baseMap().path` under the base URL). */
export function WorldMap(props: { shapes: MapShape[]; baseMapHref: string }) {
  const { shapes } = props;
  if (shapes.length === 0) return null;
  return (
    <figure class="map">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`World map showing ${shapes.length} location${shapes.length === 1 ? '' : 's'}`} width="100%">
        <image href={props.baseMapHref} width={W} height={H} />
        {shapes.map((s) => {
          if (s === null) return null;
          if ('dot' in s) return <circle cx={s.dot[0]} cy={s.dot[1]} r={DOT_RADIUS} fill="#c0392b" stroke="#fff" stroke-width="3" />;
          return <path d={s.outline} fill="#c0392b" fill-opacity="0.35" stroke="#c0392b" stroke-width="2.5" />;
        })}
      </svg>
      <figcaption class="meta">Locations on a world map (Natural Earth coastlines).</figcaption>
    </figure>
  );
}

/** The size the area picker is shown at: clicks arrive in these pixels (`<input type="image">`). */
export const PICKER_W = 480;
export const PICKER_H = 240;

/** A click on the area picker, in picker pixels, as a longitude and latitude (whole hundredths). */
export function pickedPoint(x: number, y: number): [number, number] {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const [lon, lat] = projection.invert?.([(clamp(x, 0, PICKER_W) * W) / PICKER_W, (clamp(y, 0, PICKER_H) * H) / PICKER_H]) ?? [0, 0];
  return [Math.round(clamp(lon, -180, 180) * 100) / 100, Math.round(clamp(lat, -90, 90) * 100) / 100];
}

/**
 * The area picker's image: the world with the search's box (`[w, n, e, s]`, which may cross the
 * antimeridian) and the first corner of a box being drawn. A standalone SVG document.
 */
export function areaPickerSvg(box: [number, number, number, number] | null, corner: [number, number] | null): string {
  const shapes: string[] = [];
  const rect = (w: number, n: number, e: number, s: number) => {
    const a = projection([w, n]);
    const b = projection([e, s]);
    if (a && b) shapes.push(`<rect x="${a[0]}" y="${a[1]}" width="${Math.max(1, b[0] - a[0])}" height="${Math.max(1, b[1] - a[1])}" fill="#c0392b" fill-opacity="0.25" stroke="#c0392b" stroke-width="3"/>`);
  };
  if (box !== null) {
    const [w, n, e, s] = box;
    if (w <= e) rect(w, n, e, s);
    else {
      rect(w, n, 180, s);
      rect(-180, n, e, s);
    }
  }
  const at = corner === null ? null : projection(corner);
  if (at) shapes.push(`<circle cx="${at[0]}" cy="${at[1]}" r="7" fill="#c0392b" stroke="#fff" stroke-width="3"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${PICKER_W}" height="${PICKER_H}">${baseLayers()}${shapes.join('')}</svg>`;
}
