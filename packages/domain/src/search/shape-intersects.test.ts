import { describe, expect, it } from 'vitest';
import type { BBox, Shape } from '../ports.ts';
import { geometryShapes } from './geometry-bounds.ts';
import { boxWithin, shapeIntersects } from './shape-intersects.ts';

const shape = (geometry: unknown): Shape[] => geometryShapes({ features: [{ geometry }] });
const meets = (box: BBox, geometry: unknown) => shape(geometry).some((s) => shapeIntersects(box, s));
const ring = (...xy: [number, number][]) => [...xy, xy[0]];
const square = (w: number, s: number, e: number, n: number) => ring([w, s], [e, s], [e, n], [w, n]);

// A rough Alps outline: a 1° box well inside it meets none of its vertices or edges.
const ALPS = { type: 'Polygon', coordinates: [ring([5.5, 44], [16.5, 46.2], [14, 48], [8, 47.9], [5.7, 46.4])] };

describe('shapeIntersects', () => {
  it('finds a polygon that contains the whole box', () => {
    expect(meets([9.5, 46, 10.5, 47], ALPS)).toBe(true);
    expect(meets([0, 40, 1, 41], ALPS)).toBe(false);
  });

  it('finds a polygon inside the box, and one whose edge crosses it', () => {
    expect(meets([0, 40, 20, 50], ALPS)).toBe(true);
    expect(meets([10, 44.5, 11, 45.5], ALPS)).toBe(true);
  });

  it('misses a polygon whose bounds meet the box but whose area does not', () => {
    // The south-east corner of the Alps box lies outside the slanted south edge.
    expect(meets([15, 44, 16, 44.5], ALPS)).toBe(false);
    const triangle = { type: 'Polygon', coordinates: [ring([0, 0], [10, 0], [0, 10])] };
    expect(meets([8, 8, 9, 9], triangle)).toBe(false);
    expect(meets([4, 4, 9, 9], triangle)).toBe(true);
  });

  it('counts edges and corners that only touch', () => {
    const sq = { type: 'Polygon', coordinates: [square(0, 0, 10, 10)] };
    expect(meets([10, 5, 12, 6], sq)).toBe(true);
    expect(meets([10, 10, 12, 12], sq)).toBe(true);
    expect(meets([10.01, 10, 12, 12], sq)).toBe(false);
  });

  it('misses a box inside a hole, finds one across the hole edge or inside the ring around it', () => {
    const donut = { type: 'Polygon', coordinates: [square(0, 0, 10, 10), square(3, 3, 7, 7)] };
    expect(meets([4, 4, 6, 6], donut)).toBe(false);
    expect(meets([4, 4, 8, 6], donut)).toBe(true);
    expect(meets([1, 1, 2, 2], donut)).toBe(true);
    // A polygon's box around the hole: the area reaches it.
    expect(meets([2, 2, 8, 8], donut)).toBe(true);
  });

  it('decides each polygon of a multi-polygon on its own', () => {
    const two = { type: 'MultiPolygon', coordinates: [[square(0, 0, 1, 1)], [square(20, 20, 30, 30)]] };
    expect(shape(two)).toHaveLength(2);
    expect(meets([5, 5, 6, 6], two)).toBe(false);
    expect(meets([24, 24, 25, 25], two)).toBe(true);
  });

  it('crosses the antimeridian when west > east', () => {
    const fiji = { type: 'Polygon', coordinates: [square(177, -19, 179.9, -16)] };
    const samoa = { type: 'Point', coordinates: [-172, -13.8] };
    const pacific: BBox = [178, -20, -171, -10];
    expect(meets(pacific, fiji)).toBe(true);
    expect(meets(pacific, samoa)).toBe(true);
    expect(meets([179.95, -20, -171, -10], fiji)).toBe(false);
    expect(meets([179.95, -20, -173, -10], samoa)).toBe(false);
  });

  it('decides points, lines and their multi forms', () => {
    expect(meets([0, 0, 1, 1], { type: 'Point', coordinates: [1, 1] })).toBe(true);
    expect(meets([0, 0, 1, 1], { type: 'MultiPoint', coordinates: [[5, 5], [0.5, 0.5]] })).toBe(true);
    // A diagonal line passes the box's corner region without touching it.
    const diagonal = { type: 'LineString', coordinates: [[0, 10], [10, 0]] };
    expect(meets([6, 6, 8, 8], diagonal)).toBe(false);
    expect(meets([4, 4, 8, 8], diagonal)).toBe(true);
    // A line crossing the box with no vertex inside it.
    expect(meets([4, -1, 5, 20], { type: 'LineString', coordinates: [[0, 5], [10, 5]] })).toBe(true);
    expect(meets([4, 6, 5, 20], { type: 'MultiLineString', coordinates: [[[0, 5], [10, 5]], [[0, 0], [1, 1]]] })).toBe(false);
  });

  it('decides each member of a geometry collection', () => {
    const collection = {
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: [50, 50] },
        { type: 'GeometryCollection', geometries: [ALPS] },
      ],
    };
    expect(meets([9.5, 46, 10.5, 47], collection)).toBe(true);
    expect(meets([49, 49, 51, 51], collection)).toBe(true);
    expect(meets([30, 30, 31, 31], collection)).toBe(false);
  });

  it('treats a query box that is a single point like any other box', () => {
    expect(meets([10, 46.5, 10, 46.5], ALPS)).toBe(true);
    expect(meets([16, 45, 16, 45], ALPS)).toBe(false);
  });
});

describe('boxWithin', () => {
  it('holds when the inner box lies inside the query box or one of its antimeridian halves', () => {
    expect(boxWithin([1, 1, 2, 2], [0, 0, 10, 10])).toBe(true);
    expect(boxWithin([1, 1, 12, 2], [0, 0, 10, 10])).toBe(false);
    expect(boxWithin([178, -18, 179, -17], [170, -30, -170, -10])).toBe(true);
  });
});
