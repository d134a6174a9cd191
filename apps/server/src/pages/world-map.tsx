/**
 * Where a record's locations are, drawn on the server as inline SVG: an equirectangular frame with
 * a graticule, points as dots and areas as outlines of their positions' bounding boxes. No tiles,
 * no script: it works offline and without JavaScript.
 */
import type { Place } from './metadata-view.ts';

const W = 360;
const H = 180;
const x = (lon: number) => Math.max(0, Math.min(W, lon + 180));
const y = (lat: number) => Math.max(0, Math.min(H, 90 - lat));

export function WorldMap(props: { places: Place[] }) {
  const shapes = props.places.filter((p) => p.points.length > 0);
  if (shapes.length === 0) return null;
  const lines = [];
  for (let lon = -150; lon <= 150; lon += 30) lines.push(<line x1={x(lon)} y1={0} x2={x(lon)} y2={H} />);
  for (let lat = -60; lat <= 60; lat += 30) lines.push(<line x1={0} y1={y(lat)} x2={W} y2={y(lat)} />);
  return (
    <figure class="map">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Map of ${shapes.length} location${shapes.length === 1 ? '' : 's'}`} width="100%">
        <rect width={W} height={H} fill="#dbe9f6" />
        <g stroke="#a9c1d9" stroke-width="0.4">{lines}</g>
        {shapes.map((p) => {
          if (p.points.length === 1) {
            const [lon, lat] = p.points[0] as [number, number];
            return <circle cx={x(lon)} cy={y(lat)} r="2.5" fill="#c0392b" stroke="#fff" stroke-width="0.8" />;
          }
          const lons = p.points.map((q) => q[0]);
          const lats = p.points.map((q) => q[1]);
          const [x0, x1] = [x(Math.min(...lons)), x(Math.max(...lons))];
          const [y0, y1] = [y(Math.max(...lats)), y(Math.min(...lats))];
          return <rect x={x0} y={y0} width={Math.max(x1 - x0, 1.5)} height={Math.max(y1 - y0, 1.5)} fill="#c0392b" fill-opacity="0.3" stroke="#c0392b" stroke-width="0.8" />;
        })}
      </svg>
      <figcaption class="meta">Locations (longitude -180 to 180, latitude 90 to -90).</figcaption>
    </figure>
  );
}
