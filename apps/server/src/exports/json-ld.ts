/**
 * schema.org JSON-LD of a record, for search engines (embedded in landing pages) and for
 * `Accept: application/ld+json` on the record GET. Creators are Persons or Organizations with
 * their ORCID as `@id`, places are `spatialCoverage` with coordinates or a box.
 */
import type { FileEntry, RecordView, Slicing } from '@krs/domain';
import { textOf } from '../html-text.ts';
import type { Links } from '../links.ts';
import { flatMapInTurns } from './lists-in-turns.ts';
import { extentOf, firstPeople, label, licenseUrl, list, obj, type Person, personOf, places, str } from '../metadata-view.ts';

export const JSON_LD_TYPE = 'application/ld+json';

type Json = Record<string, unknown>;

function schemaType(view: RecordView): string {
  const type = str(obj((view.record.metadata as Json)['resource_type'])?.['id']) ?? '';
  if (type.startsWith('dataset')) return 'Dataset';
  if (type.startsWith('software')) return 'SoftwareSourceCode';
  if (type.startsWith('publication')) return 'ScholarlyArticle';
  return 'CreativeWork';
}

function spatial(geometry: Json | null): Json | null {
  const extent = extentOf(geometry);
  if (extent === null) return null;
  if ('point' in extent) return { '@type': 'GeoCoordinates', latitude: extent.point[1], longitude: extent.point[0] };
  const b = extent.box;
  // schema.org boxes are "south west north east".
  return { '@type': 'GeoShape', box: `${b.south} ${b.west} ${b.north} ${b.east}` };
}

const person = (p: Person): Json => ({
  '@type': p.organization ? 'Organization' : 'Person',
  name: p.name,
  ...(p.orcid ? { '@id': `https://orcid.org/${p.orcid}` } : {}),
  ...(p.affiliations.length > 0 ? { affiliation: p.affiliations.map((name) => ({ '@type': 'Organization', name })) } : {}),
});

const personEntry = (entry: unknown): Json[] => {
  const p = personOf(entry);
  return p === null ? [] : [person(p)];
};

/** The people `toJsonLd` makes of creators and contributors, when made beforehand in turns. */
type JsonLdPeople = { creator: Json[]; contributor: Json[] };

/**
 * `maxItems` bounds creators, contributors, keywords and places: a landing page embeds the first
 * ones of each, the export has all.
 */
export function toJsonLd(view: RecordView, links: Links, files: FileEntry[] = [], maxItems = Number.MAX_SAFE_INTEGER, made?: JsonLdPeople): Json {
  const r = view.record;
  const m = r.metadata as Json;
  const landing = r.state === 'draft' ? (links.record(r.kind, r.id, r.parentId, r.state)['self_html'] as string) : links.landing(r.kind, r.id);
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const description = str(m['description']);
  const doc: Json = {
    '@context': 'https://schema.org',
    '@type': schemaType(view),
    '@id': doi ? `https://doi.org/${doi}` : landing,
    url: landing,
    name: str(m['title']) ?? '',
    ...(description ? { description: textOf(description) } : {}),
    ...(str(m['publication_date']) ? { datePublished: str(m['publication_date']) } : {}),
    ...(r.state === 'published' ? { dateModified: r.updated } : {}),
    creator: made?.creator ?? firstPeople(m['creators'], maxItems).shown.map(person),
    ...(list(m['contributors']).length > 0 ? { contributor: made?.contributor ?? firstPeople(m['contributors'], maxItems).shown.map(person) } : {}),
    ...(str(m['publisher']) ? { publisher: { '@type': 'Organization', name: str(m['publisher']) } } : {}),
    keywords: list(m['subjects'])
      .slice(0, maxItems)
      .flatMap((s) => str(obj(s)?.['subject']) ?? label(s) ?? []),
    ...(doi ? { identifier: `https://doi.org/${doi}` } : {}),
    // The version the record names (as DataCite and CSL give it), else its place among the versions.
    version: str(m['version']) ?? String(view.versions.index),
    isAccessibleForFree: r.access.record === 'public' && r.access.files === 'public',
    inLanguage: list(m['languages']).flatMap((l) => str(obj(l)?.['id']) ?? []),
  };
  const licenses = list(m['rights']).flatMap((x) => licenseUrl(x) ?? label(x) ?? []);
  if (licenses.length > 0) doc['license'] = licenses.length === 1 ? licenses[0] : licenses;
  const coverage = places(m['locations'])
    .slice(0, maxItems)
    .flatMap((p) => {
    const geo = spatial(p.geometry);
    return geo === null && p.name === null ? [] : [{ '@type': 'Place', ...(p.name ? { name: p.name } : {}), ...(geo ? { geo } : {}) }];
  });
  if (coverage.length > 0) doc['spatialCoverage'] = coverage;
  // A package's resources are its parts, as its DataCite export names them.
  if (r.kind === 'package' && r.resources.length > 0) doc['hasPart'] = r.resources.slice(0, maxItems).map((id) => ({ '@type': 'CreativeWork', url: links.landing('resource', id) }));
  // And a resource is part of the package holding it, as far as the reader may see that package.
  const whole = view.holder?.shown;
  if (whole) doc['isPartOf'] = { '@type': 'CreativeWork', ...(whole.doi ? { '@id': `https://doi.org/${whole.doi}` } : {}), url: links.landing('package', whole.id), name: whole.title };
  const committed = files.filter((f) => f.status === 'completed' && f.blob !== null);
  if (committed.length > 0) {
    doc['distribution'] = committed.slice(0, 100).map((f) => ({
      '@type': 'DataDownload',
      name: f.key,
      contentUrl: links.file(r.kind, r.id, r.state, f.key)['content'],
      contentSize: String(f.blob?.size ?? 0),
      ...(f.mimetype ? { encodingFormat: f.mimetype } : {}),
    }));
  }
  return doc;
}

/** The whole `toJsonLd` (the export's), its people made a slice at a time. */
export async function toJsonLdInTurns(view: RecordView, links: Links, files: FileEntry[], slicing: Slicing): Promise<Json> {
  const m = view.record.metadata as Json;
  const made = {
    creator: await flatMapInTurns(list(m['creators']), personEntry, slicing),
    contributor: await flatMapInTurns(list(m['contributors']), personEntry, slicing),
  };
  if (slicing.due()) await slicing.turn();
  return toJsonLd(view, links, files, Number.MAX_SAFE_INTEGER, made);
}

/** For a `<script type="application/ld+json">`: `<` escaped so no text in a record can close the element. */
export const jsonLdScript = (doc: Json): string => JSON.stringify(doc).replace(/</g, '\\u003c');
