import { describe, expect, it } from 'vitest';
import { geometryBounds, geometryShapes, MAX_SHAPE_VERTICES, shapeBounds } from './geometry-bounds.ts';

const of = (...geometries: unknown[]) => geometryBounds({ features: geometries.map((geometry) => ({ geometry })) });

describe('geometryBounds', () => {
  it('boxes every GeoJSON geometry type, one box per part', () => {
    expect(of({ type: 'Point', coordinates: [2.35, 48.85] })).toEqual([[2.35, 48.85, 2.35, 48.85]]);
    expect(of({ type: 'MultiPoint', coordinates: [[0, 0], [10, 5]] })).toEqual([[0, 0, 0, 0], [10, 5, 10, 5]]);
    expect(of({ type: 'LineString', coordinates: [[0, 0], [10, 5], [4, -2]] })).toEqual([[0, -2, 10, 5]]);
    expect(of({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[5, 5], [6, 7]]] })).toEqual([[0, 0, 1, 1], [5, 5, 6, 7]]);
    expect(of({ type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]]] })).toEqual([[0, 0, 4, 3]]);
    expect(
      of({
        type: 'MultiPolygon',
        coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[100, -10], [110, -10], [110, 0], [100, -10]]]],
      }),
    ).toEqual([[0, 0, 1, 1], [100, -10, 110, 0]]);
    expect(
      of({
        type: 'GeometryCollection',
        geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'GeometryCollection', geometries: [{ type: 'LineString', coordinates: [[3, 4], [5, 6]] }] }],
      }),
    ).toEqual([[1, 2, 1, 2], [3, 4, 5, 6]]);
  });

  it('reads a position with an altitude', () => {
    expect(of({ type: 'Point', coordinates: [1, 2, 300] })).toEqual([[1, 2, 1, 2]]);
  });

  it('ignores malformed geometries and positions, keeping the rest', () => {
    expect(geometryBounds(null)).toEqual([]);
    expect(geometryBounds('x')).toEqual([]);
    expect(geometryBounds({ features: 'x' })).toEqual([]);
    expect(geometryBounds({ features: [null, 1, {}, { geometry: null }] })).toEqual([]);
    expect(
      of(
        { type: 'Point', coordinates: 'x' },
        { type: 'Point', coordinates: [200, 0] },
        { type: 'Point', coordinates: ['1', 2] },
        { type: 'Point', coordinates: [Number.NaN, 2] },
        { type: 'Circle', coordinates: [1, 2] },
        { type: 'Polygon' },
        { type: 'GeometryCollection', geometries: 'x' },
        { type: 'LineString', coordinates: [[0, 0], [500, 5], [3, 3]] },
      ),
    ).toEqual([[0, 0, 3, 3]]);
  });
});

describe('geometryShapes', () => {
  const square = (w: number, s: number, e: number, n: number) => [[w, s], [e, s], [e, n], [w, n], [w, s]];

  it('keeps polygons with their holes, lines and points as flat coordinate lists', () => {
    expect(geometryShapes({ features: [{ geometry: { type: 'Polygon', coordinates: [square(0, 0, 4, 4), square(1, 1, 2, 2)] } }] })).toEqual([
      { type: 'polygon', rings: [[0, 0, 4, 0, 4, 4, 0, 4, 0, 0], [1, 1, 2, 1, 2, 2, 1, 2, 1, 1]] },
    ]);
    expect(geometryShapes({ features: [{ geometry: { type: 'LineString', coordinates: [[0, 0], [1, 2]] } }] })).toEqual([{ type: 'line', xy: [0, 0, 1, 2] }]);
    expect(geometryShapes({ features: [{ geometry: { type: 'Point', coordinates: [3, 4, 5] } }] })).toEqual([{ type: 'point', xy: [3, 4] }]);
  });

  it('keeps only the box of parts past the vertex cap, so a candidate costs bounded work', () => {
    const big = Array.from({ length: MAX_SHAPE_VERTICES + 1 }, (_, i) => [(i / MAX_SHAPE_VERTICES) * 10, Math.sin(i) * 5]);
    const shapes = geometryShapes({
      features: [{ geometry: { type: 'Polygon', coordinates: [square(0, 0, 1, 1)] } }, { geometry: { type: 'LineString', coordinates: big } }],
    });
    expect(shapes.map((s) => s.type)).toEqual(['polygon', 'box']);
    expect(shapes.map(shapeBounds)[1]?.[2]).toBeCloseTo(10);
  });

  it('reads geometry collections nested deeply without recursion, ignoring the deepest', () => {
    let geometry: unknown = { type: 'Point', coordinates: [1, 1] };
    for (let i = 0; i < 100_000; i++) geometry = { type: 'GeometryCollection', geometries: [geometry] };
    expect(geometryShapes({ features: [{ geometry }] })).toEqual([]);
  });
});
