import { geoEquirectangular, geoPath, type GeoPermissibleObjects } from 'd3-geo';
import { describe, expect, it } from 'vitest';
import type { Place } from '../metadata-view.ts';
import { baseMap, mapShapes, WorldMap } from './world-map.tsx';

/** A circle of `n` positions around a place, clockwise as d3 winds an outer ring (GeoJSON winds it the other way). */
const ring = (lon: number, lat: number, n: number, radius = 1) => {
  const points = Array.from({ length: n - 1 }, (_, k) => [lon + radius * Math.cos((2 * Math.PI * k) / (n - 1)), lat - radius * Math.sin((2 * Math.PI * k) / (n - 1))]);
  return [...points, points[0] as number[]];
};

/** The x and y extent of an SVG path's coordinates. */
const extent = (d: string) => {
  const numbers = (d.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
  const xs = numbers.filter((_, i) => i % 2 === 0);
  const ys = numbers.filter((_, i) => i % 2 === 1);
  return { width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
};

describe('the landing page map', () => {
  it('draws every located place, in order, as d3 projects it, a turn given between places', async () => {
    const places: Place[] = [
      { name: 'a point', geometry: { type: 'Point', coordinates: [6.2, 4.8] } },
      { name: 'no geometry', geometry: null },
      ...Array.from({ length: 60 }, (_, i) => ({
        name: null,
        geometry: { type: 'GeometryCollection', geometries: [{ type: 'MultiPolygon', coordinates: [[ring(i * 5 - 150, i - 30, 300)]] }, { type: 'Point', coordinates: [i, -i] }] },
      })),
      { name: 'across the antimeridian', geometry: { type: 'LineString', coordinates: [[170, 10], [-170, 12]] } },
    ];
    const shapes = await mapShapes(places, async () => undefined);
    const projection = geoEquirectangular().fitSize([720, 360], { type: 'Sphere' });
    const expected = places
      .filter((p) => p.geometry !== null)
      .map((p) => (p.geometry?.['type'] === 'Point' ? { dot: projection(p.geometry['coordinates'] as [number, number]) } : { outline: geoPath(projection).pointRadius(9)(p.geometry as unknown as GeoPermissibleObjects) }));
    expect(shapes).toEqual(expected);
    const svg = String(WorldMap({ shapes, baseMapHref: baseMap().path }));
    expect(svg).toContain('aria-label="World map showing 62 locations"');
    expect(svg.match(/<path /g)).toHaveLength(61);
    expect(svg.match(/<circle /g)).toHaveLength(1);
  });

  it('draws a polygon wound as GeoJSON winds it (outer ring counter-clockwise) as its own area, holes as holes, not the rest of the world', async () => {
    const clockwise = ring(6, 5, 40, 10);
    const counter = [...clockwise].reverse();
    const hole = ring(6, 5, 12, 10).map(([x, y]) => [6 + ((x as number) - 6) / 3, 5 + ((y as number) - 5) / 3]).reverse();
    const shapes = await mapShapes(
      [
        { name: 'd3 winding', geometry: { type: 'Polygon', coordinates: [clockwise] } },
        { name: 'GeoJSON winding', geometry: { type: 'Polygon', coordinates: [counter] } },
        { name: 'GeoJSON winding, with a hole', geometry: { type: 'MultiPolygon', coordinates: [[counter, [...hole].reverse()]] } },
        { name: 'in a collection', geometry: { type: 'GeometryCollection', geometries: [{ type: 'Polygon', coordinates: [counter] }] } },
      ],
      async () => undefined,
    );
    const outlines = shapes.map((s) => (s !== null && 'outline' in s ? s.outline : ''));
    // Twenty degrees across on a 720-pixel map of 360 degrees: about 40 pixels, not the map's 720.
    for (const d of outlines) expect(extent(d).width).toBeLessThan(50);
    expect(outlines[1]).toBe(outlines[0]);
    // The hole is a second ring of the same path.
    expect(outlines[2]?.match(/M/g)).toHaveLength(2);
  });

  it('draws a study area smaller than the dot as the dot at its centre, where an outline would be under a pixel', async () => {
    // About 20 km across, as GEO packages give their study areas, wound as GeoJSON winds it.
    const studyArea = [[-62.19, -10.73], [-62.01, -10.73], [-62.01, -10.55], [-62.19, -10.55], [-62.19, -10.73]];
    const shapes = await mapShapes(
      [
        { name: 'study area', geometry: { type: 'Polygon', coordinates: [studyArea] } },
        { name: 'a short line', geometry: { type: 'LineString', coordinates: [[10, 50], [10.5, 50.2]] } },
        { name: 'a country', geometry: { type: 'Polygon', coordinates: [ring(-62, -10, 40, 10).reverse()] } },
      ],
      async () => undefined,
    );
    const projection = geoEquirectangular().fitSize([720, 360], { type: 'Sphere' });
    const [x, y] = projection([-62.1, -10.64]) as [number, number];
    const dot = shapes[0] !== null && shapes[0] !== undefined && 'dot' in shapes[0] ? shapes[0].dot : [NaN, NaN];
    expect(dot[0]).toBeCloseTo(x, 1);
    expect(dot[1]).toBeCloseTo(y, 1);
    expect(shapes[1]).toMatchObject({ dot: [expect.any(Number), expect.any(Number)] });
    expect(shapes[2]).toMatchObject({ outline: expect.stringMatching(/^M/) });
    const svg = String(WorldMap({ shapes, baseMapHref: baseMap().path }));
    expect(svg.match(/<circle [^>]*r="9"/g)).toHaveLength(2);
  });

  it('draws nothing for a record without located places', () => {
    expect(WorldMap({ shapes: [], baseMapHref: baseMap().path })).toBeNull();
  });
});
