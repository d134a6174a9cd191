/**
 * Where a record's locations are, drawn on the server as inline SVG: Natural Earth's coastlines
 * (world-atlas, 1:110m) in an equirectangular projection (d3-geo), points as dots and areas as
 * their own outlines. No tiles, no script: it works offline and without JavaScript.
 */
import { createRequire } from 'node:module';
import { geoEquirectangular, geoGraticule10, geoPath, type GeoPermissibleObjects } from 'd3-geo';
import { feature } from 'topojson-client';
import type { Place } from '../metadata-view.ts';

const W = 720;
const H = 360;
const projection = geoEquirectangular().fitSize([W, H], { type: 'Sphere' });
const path = geoPath(projection);

let land: string | null = null;
/** The coastlines' path, computed once: the same for every page. */
function landPath(): string {
  if (land === null) {
    const topology = createRequire(import.meta.url)('world-atlas/land-110m.json') as Parameters<typeof feature>[0];
    const object = topology.objects['land'];
    land = object === undefined ? '' : (path(feature(topology, object) as GeoPermissibleObjects) ?? '');
  }
  return land;
}
const graticule = path(geoGraticule10()) ?? '';

export function WorldMap(props: { places: Place[] }) {
  const shapes = props.places.filter((p) => p.geometry !== null);
  if (shapes.length === 0) return null;
  return (
    <figure class="map">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`World map showing ${shapes.length} location${shapes.length === 1 ? '' : 's'}`} width="100%">
        <rect width={W} height={H} fill="#dbe9f6" />
        <path d={graticule} fill="none" stroke="#b8cde0" stroke-width="0.5" />
        <path d={landPath()} fill="#f3efe4" stroke="#9aa5ad" stroke-width="0.5" />
        {shapes.map((p) => {
          const g = p.geometry as unknown as GeoPermissibleObjects & { type: string; coordinates?: unknown };
          if (g.type === 'Point') {
            const at = projection(g.coordinates as [number, number]);
            return at ? <circle cx={at[0]} cy={at[1]} r="9" fill="#c0392b" stroke="#fff" stroke-width="3" /> : null;
          }
          const d = path.pointRadius(9)(g);
          return d ? <path d={d} fill="#c0392b" fill-opacity="0.35" stroke="#c0392b" stroke-width="2.5" /> : null;
        })}
      </svg>
      <figcaption class="meta">Locations on a world map (Natural Earth coastlines).</figcaption>
    </figure>
  );
}
