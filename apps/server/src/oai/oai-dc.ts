/**
 * Simple Dublin Core (`oai_dc`), the format every OAI-PMH repository must offer, from a published
 * version's metadata, mapped as InvenioRDM maps it: creators and contributors by name, the
 * description as plain text, the DOI and the landing page as identifiers, rights, subjects,
 * languages, related identifiers and the package holding a resource as relations, places as
 * coverage.
 */
import { accessStatus, type AccessStatus, type RecordView, timeSlices } from '@krs/domain';
import { xmlText, type XmlNode } from '../exports/xml.ts';
import { textOf } from '../html-text.ts';
import type { Links } from '../links.ts';
import { flatMapInTurns } from '../exports/lists-in-turns.ts';
import { label, licenseUrl, list, obj, personOf, places, str } from '../metadata-view.ts';

export const OAI_DC = {
  prefix: 'oai_dc',
  schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  namespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
} as const;
const DC = 'http://purl.org/dc/elements/1.1/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

type Json = Record<string, unknown>;

/** The OpenAIRE access right of each access status, as InvenioRDM's Dublin Core gives it. */
const EU_REPO_ACCESS: Record<AccessStatus, string> = {
  open: 'openAccess',
  embargoed: 'embargoedAccess',
  restricted: 'restrictedAccess',
  'metadata-only': 'closedAccess',
};

/** A creator's or contributor's name as the element's text. */
const sortNameText = (entry: unknown): string[] => {
  const p = personOf(entry);
  return p === null ? [] : [xmlText(p.sortName)];
};

/** The names' texts `oaiDcXml` makes of creators and contributors, when made beforehand in turns. */
type DcNames = { creators: string[]; contributors: string[] };

/** The `<oai_dc:dc>` element of a record, as an object for the XML writer (exports/xml.ts). */
export function oaiDcXml(view: RecordView, links: Links, made?: DcNames): XmlNode {
  const m = view.record.metadata as Json;
  const dc: XmlNode = { '@xmlns:oai_dc': OAI_DC.namespace, '@xmlns:dc': DC, '@xmlns:xsi': XSI, '@xsi:schemaLocation': `${OAI_DC.namespace} ${OAI_DC.schema}` };
  const put = (name: string, text: string) => ((dc[`dc:${name}`] ??= []) as string[]).push(text);
  const add = (name: string, value: string | null) => {
    if (value !== null) put(name, xmlText(value));
  };
  add('title', str(m['title']));
  for (const t of list(m['additional_titles'])) add('title', str(obj(t)?.['title']));
  for (const text of made?.creators ?? list(m['creators']).flatMap(sortNameText)) put('creator', text);
  for (const text of made?.contributors ?? list(m['contributors']).flatMap(sortNameText)) put('contributor', text);
  for (const s of list(m['subjects'])) add('subject', str(obj(s)?.['subject']) ?? str(obj(s)?.['id']));
  const description = str(m['description']);
  if (description !== null) add('description', textOf(description));
  for (const d of list(m['additional_descriptions'])) {
    const text = str(obj(d)?.['description']);
    if (text !== null) add('description', textOf(text));
  }
  add('publisher', str(m['publisher']));
  add('date', str(m['publication_date']));
  const embargo = view.record.access.embargo;
  if (embargo.active && embargo.until !== null) add('date', `info:eu-repo/date/embargoEnd/${embargo.until}`);
  add('type', label(m['resource_type']));
  const doi = str(obj(view.record.pids['doi'])?.['identifier']);
  if (doi !== null) add('identifier', `https://doi.org/${doi}`);
  add('identifier', links.landing(view.record.kind, view.record.id));
  for (const r of list(m['related_identifiers'])) {
    const related = obj(r);
    const id = str(related?.['identifier']);
    if (id !== null) add('relation', `${str(related?.['scheme']) ?? 'url'}:${id}`);
  }
  // The package holding a resource, as far as the reader may see it (DataCite's IsPartOf), named as related identifiers are.
  const whole = view.holder?.shown;
  if (whole) add('relation', whole.doi ? `doi:${whole.doi}` : `url:${links.landing('package', whole.id)}`);
  for (const l of list(m['languages'])) add('language', str(obj(l)?.['id']));
  for (const r of list(m['rights'])) {
    const right = obj(r);
    add('rights', label(right));
    add('rights', licenseUrl(right));
  }
  add('rights', `info:eu-repo/semantics/${EU_REPO_ACCESS[accessStatus(view.record)]}`);
  for (const p of places(m['locations'])) add('coverage', p.name);
  return { 'oai_dc:dc': dc };
}

/** `oaiDcXml`, its names made a slice at a time (a record may name 20,000 people). */
export async function oaiDcXmlInTurns(view: RecordView, links: Links, turn: () => Promise<void>): Promise<XmlNode> {
  const m = view.record.metadata as Json;
  const slicing = timeSlices(turn);
  const made = { creators: await flatMapInTurns(list(m['creators']), sortNameText, slicing), contributors: await flatMapInTurns(list(m['contributors']), sortNameText, slicing) };
  if (slicing.due()) await slicing.turn();
  return oaiDcXml(view, links, made);
}
