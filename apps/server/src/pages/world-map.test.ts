import { geoEquirectangular, geoPath, type GeoPermissibleObjects } from 'd3-geo';
import { describe, expect, it } from 'vitest';
import type { Place } from '../metadata-view.ts';
import { mapShapes, WorldMap } from './world-map.tsx';

const ring = (lon: number, lat: number, n: number) => {
  const points = Array.from({ length: n - 1 }, (_, k) => [lon + Math.cos((2 * Math.PI * k) / (n - 1)), lat + Math.sin((2 * Math.PI * k) / (n - 1))]);
  return [...points, points[0]];
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
    const svg = String(WorldMap({ shapes }));
    expect(svg).toContain('aria-label="World map showing 62 locations"');
    expect(svg.match(/<path /g)).toHaveLength(61);
    expect(svg.match(/<circle /g)).toHaveLength(1);
  });

  it('draws nothing for a record without located places', () => {
    expect(WorldMap({ shapes: [] })).toBeNull();
  });
});
