/**
 * The export formats of a record: each at `/{records|packages}/{id}/export/{id}` and by `Accept`
 * on the record GET. One table, so the links pages show, the Signposting `describedby` links and
 * the negotiation cannot drift apart.
 */
import type { FileEntry, RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { renderDublinCore, DUBLIN_CORE_TYPE } from './dublin-core.ts';
import { serializeRecord } from '../serialize.ts';
import { toBibtex } from './citation.ts';
import { CSL_JSON_TYPE, toCslInTurns } from './csl-json.ts';
import { DATACITE_JSON_TYPE, DATACITE_XML_TYPE, toDataCiteInTurns, toDataCiteXml } from './datacite.ts';
import { GEOJSON_TYPE, toGeoJson } from './geojson.ts';
import { JSON_LD_TYPE, toJsonLdInTurns } from './json-ld.ts';
import { MARCXML_TYPE, marc21Xml } from './marc21.ts';
import { xmlDocument } from './xml.ts';
import { isLarge, jsonText, largeValueSlices, nextIteration } from '@krs/domain';

export interface ExportInput {
  view: RecordView;
  links: Links;
  /** The version's files, for formats that list them (JSON-LD distributions). */
  files: FileEntry[];
  /** Indented, for people opening an export link; compact for API clients. */
  pretty: boolean;
}

export interface ExportFormat {
  /** The path segment: `/records/{id}/export/{id}`. */
  id: string;
  label: string;
  mediaType: string;
  /** The file name's extension when an export is saved (every format is UTF-8 text). */
  extension: string;
  /** Depends on the version alone, not on later versions or its parent's state: may be kept per revision. */
  perRevision: boolean;
  /** Formats give turns to other requests while they write a large record. */
  render(input: ExportInput): string | Promise<string>;
}

/**
 * The JSON text of what a format made of the record: for a large record, after a turn of its
 * own (the mapping before it took milliseconds) and in slices, as a record's own answer is.
 */
async function json(value: unknown, input: ExportInput): Promise<string> {
  const indent = input.pretty ? '  ' : '';
  if (!isLarge(input.view.record.metadata)) return JSON.stringify(value, null, indent);
  await nextIteration();
  return jsonText(value, true, indent);
}

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { id: 'json', label: 'JSON', mediaType: 'application/json', extension: 'json', perRevision: false, render: (i) => json(serializeRecord(i.view, i.links, false), i) },
  { id: 'json-ld', label: 'JSON-LD (schema.org)', mediaType: JSON_LD_TYPE, extension: 'jsonld', perRevision: true, render: async (i) => json(await toJsonLdInTurns(i.view, i.links, i.files, largeValueSlices()), i) },
  { id: 'datacite-json', label: 'DataCite JSON', mediaType: DATACITE_JSON_TYPE, extension: 'json', perRevision: true, render: async (i) => json(await toDataCiteInTurns(i.view, i.links, largeValueSlices()), i) },
  { id: 'datacite-xml', label: 'DataCite XML', mediaType: DATACITE_XML_TYPE, extension: 'xml', perRevision: true, render: (i) => toDataCiteXml(i.view, i.links) },
  { id: 'dublincore', label: 'Dublin Core XML', mediaType: DUBLIN_CORE_TYPE, extension: 'xml', perRevision: true, render: (i) => renderDublinCore(i.view, i.links) },
  { id: 'csl', label: 'CSL-JSON', mediaType: CSL_JSON_TYPE, extension: 'json', perRevision: true, render: async (i) => json(await toCslInTurns(i.view, i.links, largeValueSlices()), i) },
  { id: 'bibtex', label: 'BibTeX', mediaType: 'application/x-bibtex', extension: 'bib', perRevision: true, render: async (i) => toBibtex(await toCslInTurns(i.view, i.links, largeValueSlices())) },
  { id: 'marcxml', label: 'MARCXML', mediaType: MARCXML_TYPE, extension: 'xml', perRevision: true, render: async (i) => xmlDocument(await marc21Xml(i.view, i.links, nextIteration), nextIteration) },
  { id: 'geojson', label: 'GeoJSON', mediaType: GEOJSON_TYPE, extension: 'geojson', perRevision: true, render: (i) => json(toGeoJson(i.view), i) },
];

export const exportFormat = (id: string): ExportFormat | undefined => EXPORT_FORMATS.find((f) => f.id === id);
export const exportFormatByType = (mediaType: string): ExportFormat | undefined => EXPORT_FORMATS.find((f) => f.mediaType === mediaType);

/** A formatted citation, by `Accept: text/x-bibliography` with `?style=` and `?locale=`, as InvenioRDM answers it. */
export const CITATION_TYPE = 'text/x-bibliography';
export const LINKSET_TYPE = 'application/linkset+json';

/** What a published record GET answers beside JSON and the UI types. */
export const RECORD_ALTERNATES: readonly string[] = [...EXPORT_FORMATS.filter((f) => f.id !== 'json').map((f) => f.mediaType), CITATION_TYPE, LINKSET_TYPE];
