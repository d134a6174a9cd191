/**
 * IIIF Presentation 2.1 documents of a record, at the `self_iiif_manifest` and
 * `self_iiif_sequence` links InvenioRDM gives: one canvas per committed image whose dimensions
 * were read at commit, in the files' display order. There is no IIIF Image API service here, so
 * each canvas paints the file's content itself (`dctypes:Image` with its media type), which
 * viewers such as Mirador and Universal Viewer show as a static image.
 */
import type { FileEntry, FilesOptions, RecordView } from '@krs/domain';
import { textOf } from '../html-text.ts';
import { list, obj, people, str } from '../metadata-view.ts';

export const IIIF_CONTEXT = 'http://iiif.io/api/presentation/2/context.json';
/** A viewer's information panel names this many creators, then counts the rest. */
const CREATORS_NAMED = 10;

/** Where a record's IIIF documents and its files' content live. */
export interface IiifPlace {
  /** `.../api/iiif/<name>:<id>` (links.ts). */
  base: string;
  /** The record's landing (or preview) page. */
  page: string;
  content(key: string): string;
}

export interface IiifImage {
  key: string;
  mimetype: string;
  width: number;
  height: number;
}

const dimension = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** The committed images with known dimensions, listed keys first in `order`, the rest as stored. */
export function imagesOf(entries: FileEntry[], options: FilesOptions): IiifImage[] {
  const images: IiifImage[] = [];
  for (const e of entries) {
    const width = dimension(e.metadata?.['width']);
    const height = dimension(e.metadata?.['height']);
    if (e.status === 'completed' && e.mimetype?.startsWith('image/') && width !== null && height !== null) images.push({ key: e.key, mimetype: e.mimetype, width, height });
  }
  const rank = new Map(options.order.map((key, i) => [key, i]));
  const at = (key: string) => rank.get(key) ?? options.order.length;
  return images.map((image, i) => ({ image, i })).sort((a, b) => at(a.image.key) - at(b.image.key) || a.i - b.i).map(({ image }) => image);
}

const canvasId = (place: IiifPlace, key: string) => `${place.base}/canvas/${encodeURIComponent(key)}`;

/** The annotation painting an image on its canvas; also served at its own id, as the canvas is. */
export function iiifAnnotation(place: IiifPlace, image: IiifImage) {
  return {
    '@context': IIIF_CONTEXT,
    '@id': `${place.base}/annotation/${encodeURIComponent(image.key)}`,
    '@type': 'oa:Annotation',
    motivation: 'sc:painting',
    resource: { '@id': place.content(image.key), '@type': 'dctypes:Image', format: image.mimetype, width: image.width, height: image.height },
    on: canvasId(place, image.key),
  };
}

export function iiifCanvas(place: IiifPlace, image: IiifImage) {
  const { '@context': _, ...annotation } = iiifAnnotation(place, image);
  return {
    '@context': IIIF_CONTEXT,
    '@id': canvasId(place, image.key),
    '@type': 'sc:Canvas',
    label: image.key,
    width: image.width,
    height: image.height,
    images: [annotation],
  };
}

export function iiifSequence(place: IiifPlace, images: IiifImage[]) {
  return {
    '@context': IIIF_CONTEXT,
    '@id': `${place.base}/sequence/default`,
    '@type': 'sc:Sequence',
    label: 'Current Page Order',
    viewingDirection: 'left-to-right',
    viewingHint: 'paged',
    canvases: images.map((image) => {
      const { '@context': _, ...canvas } = iiifCanvas(place, image);
      return canvas;
    }),
  };
}

export function iiifManifest(view: RecordView, place: IiifPlace, images: IiifImage[]) {
  const m = view.record.metadata as Record<string, unknown>;
  const metadata: { label: string; value: string }[] = [];
  const date = str(m['publication_date']);
  if (date) metadata.push({ label: 'Publication Date', value: date });
  const creators = people(list(m['creators']).slice(0, CREATORS_NAMED + 1)).map((p) => p.sortName);
  const more = list(m['creators']).length - CREATORS_NAMED;
  if (creators.length > 0) {
    const value = more > 0 ? `${creators.slice(0, CREATORS_NAMED).join('; ')}; and ${more} more` : creators.join('; ');
    metadata.push({ label: creators.length === 1 ? 'Creator' : 'Creators', value });
  }
  const description = str(m['description']);
  const license = list(m['rights']).flatMap((r) => str(obj(r)?.['link']) ?? str(obj(obj(r)?.['props'])?.['url']) ?? [])[0];
  const { '@context': _, ...sequence } = iiifSequence(place, images);
  return {
    '@context': IIIF_CONTEXT,
    '@id': `${place.base}/manifest`,
    '@type': 'sc:Manifest',
    label: str(m['title']) ?? view.record.id,
    metadata,
    ...(description ? { description: textOf(description) } : {}),
    ...(license ? { license } : {}),
    related: { '@id': place.page, format: 'text/html' },
    sequences: [sequence],
  };
}
