/**
 * The interactive reference at `/api/docs`: Swagger UI from the `swagger-ui-dist` package, served
 * by krs itself so the page works offline and loads nothing from another origin. Each asset's path
 * carries a hash of its bytes, so it can be cached for a year and a new version is a new URL.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface DocsAsset {
  /** Absolute path on the server, e.g. `/api/docs/3f2a9c1e/swagger-ui.css`. */
  path: string;
  mediaType: string;
  body: Uint8Array<ArrayBuffer>;
  /** The body gzipped, made on first use (the bundle goes from 1.7 MB to under 0.5 MB); null for images. */
  gzipped: () => Uint8Array<ArrayBuffer> | null;
}

export const DOCS_PATH = '/api/docs';

/**
 * Starts Swagger UI on the document. A file rather than an inline script, so the page can forbid
 * inline scripts. `validatorUrl: null` keeps Swagger UI from sending the document to its online
 * validator; every URL is relative to the page, so a path prefix added by a proxy still works.
 */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const FILES = [
  { name: 'swagger-ui-bundle.js', mediaType: 'text/javascript; charset=utf-8' },
  { name: 'swagger-ui.css', mediaType: 'text/css; charset=utf-8' },
  { name: 'favicon-32x32.png', mediaType: 'image/png' },
] as const;

const hashOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, 12);

/** Removes the `sourceMappingURL` comment: the maps are not served, and a browser would ask for them. */
function withoutSourceMap(text: string): string {
  return text.replace(/\n?\/[/*][#@] sourceMappingURL=[^\n]*$/, '');
}

let loaded: { assets: DocsAsset[]; page: string } | null = null;

/** The assets and the page, read from `swagger-ui-dist` once per process (about 2 MB). */
export function docsBundle(): { assets: DocsAsset[]; page: string } {
  if (loaded) return loaded;
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const asset = (name: string, mediaType: string, body: Uint8Array<ArrayBuffer>): DocsAsset => {
    let gzipped: Uint8Array<ArrayBuffer> | null | undefined;
    const compress = () => (gzipped ??= mediaType.startsWith('image/') ? null : new Uint8Array(gzipSync(body)));
    return { path: `${DOCS_PATH}/${hashOf(body)}/${name}`, mediaType, body, gzipped: compress };
  };
  const assets = FILES.map(({ name, mediaType }) => {
    const raw = readFileSync(join(dist, name));
    const body = mediaType.startsWith('image/') ? new Uint8Array(raw) : new TextEncoder().encode(withoutSourceMap(raw.toString('utf8')));
    return asset(name, mediaType, body);
  });
  assets.push(asset('krs-docs.js', 'text/javascript; charset=utf-8', new TextEncoder().encode(INITIALIZER)));
  // Relative to /api/docs: "docs/<hash>/<name>" resolves to /api/docs/<hash>/<name>.
  const href = (name: string) => {
    const found = assets.find((a) => a.path.endsWith(`/${name}`));
    if (!found) throw new Error(`No docs asset ${name}.`);
    return `docs/${found.path.slice(DOCS_PATH.length + 1)}`;
  };
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Knowledge Records Service API reference</title>
<link rel="icon" type="image/png" href="${href('favicon-32x32.png')}">
<link rel="stylesheet" href="${href('swagger-ui.css')}">
</head>
<body>
<noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${href('swagger-ui-bundle.js')}"></script>
<script src="${href('krs-docs.js')}"></script>
</body>
</html>
`;
  loaded = { assets, page };
  return loaded;
}
