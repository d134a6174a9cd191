/**
 * DataCite metadata (schema 4.5): the JSON of DataCite's REST API (`attributes`) and the XML
 * kernel, which mirrors it element for element. Identifier schemes, relation, contributor, date,
 * title and description types are DataCite's controlled lists; a value outside them is left out
 * (related identifiers) or becomes `Other`, so the output stays valid against the schema.
 */
import { type RecordView, type Slicing, timeSlices } from '@krs/domain';
import { textOf } from '../html-text.ts';
import type { Links } from '../links.ts';
import { extentOf, label, licenseUrl, list, obj, places, str } from '../metadata-view.ts';
import { flatMapInTurns } from './lists-in-turns.ts';
import { typeNames } from './resource-types.ts';
import { xmlDocument, xmlText, type XmlNode, type XmlValue } from './xml.ts';
import { nextIteration } from '@krs/domain';

export const DATACITE_JSON_TYPE = 'application/vnd.datacite.datacite+json';
export const DATACITE_XML_TYPE = 'application/vnd.datacite.datacite+xml';
export const DATACITE_NAMESPACE = 'http://datacite.org/schema/kernel-4';
export const DATACITE_SCHEMA = 'http://schema.datacite.org/meta/kernel-4.5/metadata.xsd';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

type Json = Record<string, unknown>;

/** A fixed-list member as stored (`{id}`), or as a bare string. */
const idOf = (v: unknown): string | null => str(obj(v)?.['id']) ?? str(v);

/** DataCite's spelling of a lower-case id from one of its lists, or null. */
const controlled = (values: string[]) => {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  return (id: string | null): string | null => (id === null ? null : (byLower.get(id.replace(/[-_\s]/g, '').toLowerCase()) ?? null));
};
const identifierType = controlled(['ARK', 'arXiv', 'bibcode', 'DOI', 'EAN13', 'EISSN', 'Handle', 'IGSN', 'ISBN', 'ISSN', 'ISTC', 'LISSN', 'LSID', 'PMID', 'PURL', 'UPC', 'URL', 'URN', 'w3id']);
const relationType = controlled([
  'IsCitedBy', 'Cites', 'IsSupplementTo', 'IsSupplementedBy', 'IsContinuedBy', 'Continues', 'IsDescribedBy', 'Describes', 'HasMetadata',
  'IsMetadataFor', 'HasVersion', 'IsVersionOf', 'IsNewVersionOf', 'IsPreviousVersionOf', 'IsPartOf', 'HasPart', 'IsPublishedIn',
  'IsReferencedBy', 'References', 'IsDocumentedBy', 'Documents', 'IsCompiledBy', 'Compiles', 'IsVariantFormOf', 'IsOriginalFormOf',
  'IsIdenticalTo', 'IsReviewedBy', 'Reviews', 'IsDerivedFrom', 'IsSourceOf', 'IsRequiredBy', 'Requires', 'IsObsoletedBy', 'Obsoletes',
  'IsCollectedBy', 'Collects', 'IsTranslationOf', 'HasTranslation',
]);
const contributorType = controlled([
  'ContactPerson', 'DataCollector', 'DataCurator', 'DataManager', 'Distributor', 'Editor', 'HostingInstitution', 'Producer', 'ProjectLeader',
  'ProjectManager', 'ProjectMember', 'RegistrationAgency', 'RegistrationAuthority', 'RelatedPerson', 'Researcher', 'ResearchGroup',
  'RightsHolder', 'Sponsor', 'Supervisor', 'WorkPackageLeader', 'Other',
]);
const dateType = controlled(['Accepted', 'Available', 'Copyrighted', 'Collected', 'Created', 'Issued', 'Submitted', 'Updated', 'Valid', 'Withdrawn', 'Other']);
const titleType = controlled(['AlternativeTitle', 'Subtitle', 'TranslatedTitle', 'Other']);
const descriptionType = controlled(['Abstract', 'Methods', 'SeriesInformation', 'TableOfContents', 'TechnicalInfo', 'Other']);

function creator(entry: unknown, role: 'creator' | 'contributor'): Json[] {
  const e = obj(entry);
  const p = obj(e?.['person_or_org']);
  if (p === null) return [];
  const family = str(p['family_name']);
  const given = str(p['given_name']);
  const personal = p['type'] === 'personal';
  const name = personal && family !== null ? (given !== null ? `${family}, ${given}` : family) : str(p['name']);
  if (name === null) return [];
  const ids = list(p['identifiers']).flatMap((i) => {
    const scheme = str(obj(i)?.['scheme']);
    const identifier = str(obj(i)?.['identifier']);
    if (scheme === null || identifier === null) return [];
    const known: Record<string, [string, string]> = { orcid: ['ORCID', 'https://orcid.org'], ror: ['ROR', 'https://ror.org'], isni: ['ISNI', 'https://isni.org'], gnd: ['GND', 'https://d-nb.info/gnd/'] };
    const [nameIdentifierScheme, schemeUri] = known[scheme] ?? [scheme.toUpperCase(), null];
    return [{ nameIdentifier: identifier, nameIdentifierScheme, ...(schemeUri ? { schemeUri } : {}) }];
  });
  const affiliation = list(e?.['affiliations']).flatMap((a) => {
    const n = str(obj(a)?.['name']) ?? label(a);
    return n === null ? [] : [{ name: n }];
  });
  return [{
    name,
    nameType: personal ? 'Personal' : 'Organizational',
    ...(personal && given !== null ? { givenName: given } : {}),
    ...(personal && family !== null ? { familyName: family } : {}),
    ...(role === 'contributor' ? { contributorType: contributorType(idOf(e?.['role'])) ?? 'Other' } : {}),
    ...(ids.length > 0 ? { nameIdentifiers: ids } : {}),
    ...(affiliation.length > 0 ? { affiliation } : {}),
  }];
}

function geoLocations(locations: unknown): Json[] {
  return places(locations).flatMap((p) => {
    const extent = extentOf(p.geometry);
    if (extent === null && p.name === null) return [];
    const out: Json = p.name !== null ? { geoLocationPlace: p.name } : {};
    if (extent !== null && 'point' in extent) out['geoLocationPoint'] = { pointLongitude: extent.point[0], pointLatitude: extent.point[1] };
    if (extent !== null && 'box' in extent) {
      const b = extent.box;
      out['geoLocationBox'] = { westBoundLongitude: b.west, eastBoundLongitude: b.east, southBoundLatitude: b.south, northBoundLatitude: b.north };
    }
    return [out];
  });
}

/** The lists `toDataCite` makes of a record's long lists, when made beforehand in turns. */
type DataCiteLists = Partial<Record<'creators' | 'contributors' | 'relatedIdentifiers', Json[]>>;

function relatedIdentifier(x: unknown): Json[] {
  const o = obj(x);
  const type = identifierType(str(o?.['scheme']));
  const relation = relationType(idOf(o?.['relation_type']));
  const identifier = str(o?.['identifier']);
  return type === null || relation === null || identifier === null ? [] : [{ relatedIdentifier: identifier, relatedIdentifierType: type, relationType: relation }];
}

/**
 * A package is a DataCite Collection: its parts are the resources attached to this version, each
 * by its landing page, as `relationship.resources` lists them in the API. A resource is part of
 * the package holding it, named by its DOI when it has one, else by its landing page.
 */
function partsOf(view: RecordView, links: Links): Json[] {
  if (view.record.kind === 'package') return view.record.resources.map((id) => ({ relatedIdentifier: links.landing('resource', id), relatedIdentifierType: 'URL', relationType: 'HasPart' }));
  const whole = view.holder?.shown;
  if (!whole) return [];
  return [whole.doi ? { relatedIdentifier: whole.doi, relatedIdentifierType: 'DOI', relationType: 'IsPartOf' } : { relatedIdentifier: links.landing('package', whole.id), relatedIdentifierType: 'URL', relationType: 'IsPartOf' }];
}

/** DataCite's JSON (the REST API's `attributes`), from a published or draft record. */
export function toDataCite(view: RecordView, links: Links, made: DataCiteLists = {}): Json {
  const r = view.record;
  const m = r.metadata as Json;
  const landing = links.landing(r.kind, r.id);
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const issued = str(m['publication_date']);
  const types = typeNames(view);
  const titles: Json[] = [{ title: str(m['title']) ?? '' }];
  for (const t of list(m['additional_titles'])) {
    const title = str(obj(t)?.['title']);
    if (title !== null) titles.push({ title, titleType: titleType(idOf(obj(t)?.['type'])) ?? 'Other' });
  }
  const descriptions: Json[] = [];
  const description = str(m['description']);
  if (description !== null) descriptions.push({ description: textOf(description), descriptionType: 'Abstract' });
  for (const d of list(m['additional_descriptions'])) {
    const text = str(obj(d)?.['description']);
    if (text !== null) descriptions.push({ description: textOf(text), descriptionType: descriptionType(idOf(obj(d)?.['type'])) ?? 'Other' });
  }
  const dates: Json[] = issued !== null ? [{ date: issued, dateType: 'Issued' }] : [];
  for (const d of list(m['dates'])) {
    const date = str(obj(d)?.['date']);
    if (date !== null) dates.push({ date, dateType: dateType(idOf(obj(d)?.['type'])) ?? 'Other', ...(str(obj(d)?.['description']) ? { dateInformation: str(obj(d)?.['description']) } : {}) });
  }
  const related = [...(made.relatedIdentifiers ?? list(m['related_identifiers']).flatMap(relatedIdentifier)), ...partsOf(view, links)];
  const rightsList = list(m['rights']).flatMap((x) => {
    const o = obj(x);
    const rights = label(o);
    if (rights === null) return [];
    const uri = licenseUrl(o);
    const id = str(o?.['id']);
    return [{ rights, ...(uri ? { rightsUri: uri } : {}), ...(id ? { rightsIdentifier: id, rightsIdentifierScheme: 'SPDX' } : {}) }];
  });
  const funding = list(m['funding']).flatMap((x) => {
    const funder = obj(obj(x)?.['funder']);
    const award = obj(obj(x)?.['award']);
    const funderName = str(funder?.['name']) ?? str(funder?.['id']);
    if (funderName === null) return [];
    const awardNumber = str(award?.['number']) ?? str(award?.['id']);
    const awardTitle = str(obj(award?.['title'])?.['en']);
    return [{ funderName, ...(awardNumber ? { awardNumber } : {}), ...(awardTitle ? { awardTitle } : {}) }];
  });
  const language = str(obj(list(m['languages'])[0])?.['id']);
  const version = str(m['version']) ?? (r.state === 'published' ? String(view.versions.index) : null);
  const optional = (key: string, value: unknown[]) => (value.length > 0 ? { [key]: value } : {});
  return {
    ...(doi ? { doi, identifiers: [{ identifier: doi, identifierType: 'DOI' }] } : {}),
    url: landing,
    types: { resourceTypeGeneral: types.datacite, resourceType: label(m['resource_type']) ?? (r.kind === 'package' ? 'Knowledge Package' : types.datacite) },
    creators: made.creators ?? list(m['creators']).flatMap((c) => creator(c, 'creator')),
    titles,
    publisher: str(m['publisher']) ?? new URL(landing).hostname,
    publicationYear: issued?.slice(0, 4) ?? r.created.slice(0, 4),
    ...optional('subjects', list(m['subjects']).flatMap((s) => str(obj(s)?.['subject']) ?? label(s) ?? []).map((subject) => ({ subject }))),
    ...optional('contributors', made.contributors ?? list(m['contributors']).flatMap((c) => creator(c, 'contributor'))),
    ...optional('dates', dates),
    ...(language ? { language } : {}),
    alternateIdentifiers: [{ alternateIdentifier: landing, alternateIdentifierType: 'URL' }],
    ...optional('relatedIdentifiers', related),
    ...optional('sizes', list(m['sizes']).flatMap((s) => str(s) ?? [])),
    ...optional('formats', list(m['formats']).flatMap((s) => str(s) ?? [])),
    ...(version ? { version } : {}),
    ...optional('rightsList', rightsList),
    ...optional('descriptions', descriptions),
    ...optional('geoLocations', geoLocations(m['locations'])),
    ...optional('fundingReferences', funding),
    schemaVersion: DATACITE_NAMESPACE,
  };
}

const text = (v: unknown) => xmlText(typeof v === 'number' ? String(v) : (str(v) ?? ''));
const each = (d: Json, key: string): Json[] => (Array.isArray(d[key]) ? (d[key] as Json[]) : []);

/** Attributes from `d`'s members named in `attributes` ([member, attribute]), and `d[value]` as text. */
function element(d: Json, value: string, attributes: [string, string][] = []): XmlNode {
  const out: XmlNode = {};
  for (const [key, attribute] of attributes) if (d[key] !== undefined) out[`@${attribute}`] = text(d[key]);
  out['#'] = text(d[value]);
  return out;
}

function nameElementOf(c: Json, nameElement: string): XmlNode {
  const el: XmlNode = {};
  if (c['contributorType']) el['@contributorType'] = text(c['contributorType']);
  el[nameElement] = element(c, 'name', [['nameType', 'nameType']]);
  if (c['givenName']) el['givenName'] = text(c['givenName']);
  if (c['familyName']) el['familyName'] = text(c['familyName']);
  const ids = (c['nameIdentifiers'] as Json[] | undefined) ?? [];
  if (ids.length > 0) el['nameIdentifier'] = ids.map((id) => element(id, 'nameIdentifier', [['nameIdentifierScheme', 'nameIdentifierScheme'], ['schemeUri', 'schemeURI']]));
  const affiliations = (c['affiliation'] as Json[] | undefined) ?? [];
  if (affiliations.length > 0) el['affiliation'] = affiliations.map((a) => text(a['name']));
  return el;
}

function names(entries: Json[], item: string, nameElement: string, made: XmlNode[] | undefined): XmlNode | null {
  if (entries.length === 0) return null;
  return { [item]: made ?? entries.map((c) => nameElementOf(c, nameElement)) };
}

const RELATED_ATTRIBUTES: [string, string][] = [['relatedIdentifierType', 'relatedIdentifierType'], ['relationType', 'relationType']];

/** The elements `dataCiteXml` makes of the long lists, when made beforehand in turns. */
type DataCiteXmlLists = Partial<Record<'creators' | 'contributors' | 'relatedIdentifiers', XmlNode[]>>;

/** The DataCite XML `<resource>` (kernel 4.5) of DataCite JSON, element for element. */
export function dataCiteXml(d: Json, made: DataCiteXmlLists = {}): XmlNode {
  const r: XmlNode = { '@xmlns': DATACITE_NAMESPACE, '@xmlns:xsi': XSI, '@xsi:schemaLocation': `${DATACITE_NAMESPACE} ${DATACITE_SCHEMA}` };
  const put = (name: string, value: XmlValue | null) => {
    if (value !== null && !(Array.isArray(value) && value.length === 0)) r[name] = value;
  };
  const listOf = (container: string, item: string, entries: Json[], value: string, attributes: [string, string][] = []) =>
    put(container, entries.length === 0 ? null : { [item]: entries.map((e) => element(e, value, attributes)) });
  const doi = str(d['doi']);
  if (doi !== null) r['identifier'] = { '@identifierType': 'DOI', '#': xmlText(doi) };
  put('creators', names(each(d, 'creators'), 'creator', 'creatorName', made.creators));
  listOf('titles', 'title', each(d, 'titles'), 'title', [['titleType', 'titleType']]);
  r['publisher'] = text(d['publisher']);
  r['publicationYear'] = text(d['publicationYear']);
  r['resourceType'] = element(obj(d['types']) ?? {}, 'resourceType', [['resourceTypeGeneral', 'resourceTypeGeneral']]);
  listOf('subjects', 'subject', each(d, 'subjects'), 'subject');
  put('contributors', names(each(d, 'contributors'), 'contributor', 'contributorName', made.contributors));
  listOf('dates', 'date', each(d, 'dates'), 'date', [['dateType', 'dateType'], ['dateInformation', 'dateInformation']]);
  if (d['language']) r['language'] = text(d['language']);
  listOf('alternateIdentifiers', 'alternateIdentifier', each(d, 'alternateIdentifiers'), 'alternateIdentifier', [['alternateIdentifierType', 'alternateIdentifierType']]);
  const related = each(d, 'relatedIdentifiers');
  put('relatedIdentifiers', related.length === 0 ? null : { relatedIdentifier: made.relatedIdentifiers ?? related.map((e) => element(e, 'relatedIdentifier', RELATED_ATTRIBUTES)) });
  const strings = (key: string) => (Array.isArray(d[key]) ? (d[key] as unknown[]).map((v) => ({ v })) : []);
  listOf('sizes', 'size', strings('sizes'), 'v');
  listOf('formats', 'format', strings('formats'), 'v');
  if (d['version']) r['version'] = text(d['version']);
  listOf('rightsList', 'rights', each(d, 'rightsList'), 'rights', [['rightsUri', 'rightsURI'], ['rightsIdentifier', 'rightsIdentifier'], ['rightsIdentifierScheme', 'rightsIdentifierScheme']]);
  listOf('descriptions', 'description', each(d, 'descriptions'), 'description', [['descriptionType', 'descriptionType']]);
  const geo = each(d, 'geoLocations').map((g) => {
    const el: XmlNode = {};
    if (g['geoLocationPlace']) el['geoLocationPlace'] = text(g['geoLocationPlace']);
    for (const [key, fields] of [['geoLocationPoint', ['pointLongitude', 'pointLatitude']], ['geoLocationBox', ['westBoundLongitude', 'eastBoundLongitude', 'southBoundLatitude', 'northBoundLatitude']]] as const) {
      const value = obj(g[key]);
      if (value !== null) el[key] = Object.fromEntries(fields.map((f) => [f, text(value[f])]));
    }
    return el;
  });
  put('geoLocations', geo.length === 0 ? null : { geoLocation: geo });
  const funding = each(d, 'fundingReferences').map((f) => {
    const el: XmlNode = { funderName: text(f['funderName']) };
    if (f['awardNumber']) el['awardNumber'] = text(f['awardNumber']);
    if (f['awardTitle']) el['awardTitle'] = text(f['awardTitle']);
    return el;
  });
  put('fundingReferences', funding.length === 0 ? null : { fundingReference: funding });
  return { resource: r };
}

/** `toDataCite`, its long lists mapped a slice at a time (lists-in-turns.ts). */
export async function toDataCiteInTurns(view: RecordView, links: Links, slicing: Slicing): Promise<Json> {
  const m = view.record.metadata as Json;
  const made: DataCiteLists = {
    creators: await flatMapInTurns(list(m['creators']), (c) => creator(c, 'creator'), slicing),
    contributors: await flatMapInTurns(list(m['contributors']), (c) => creator(c, 'contributor'), slicing),
    relatedIdentifiers: await flatMapInTurns(list(m['related_identifiers']), relatedIdentifier, slicing),
  };
  if (slicing.due()) await slicing.turn();
  return toDataCite(view, links, made);
}

/**
 * The `<resource>` of a record: mapped to DataCite's JSON, then to elements, the long lists of
 * each a slice at a time (for 20,000 creators each step is milliseconds).
 */
export async function dataCiteXmlInTurns(view: RecordView, links: Links, turn: () => Promise<void>): Promise<XmlNode> {
  const slicing = timeSlices(turn);
  const d = await toDataCiteInTurns(view, links, slicing);
  const made: DataCiteXmlLists = {
    creators: await flatMapInTurns(each(d, 'creators'), (c) => [nameElementOf(c as Json, 'creatorName')], slicing),
    contributors: await flatMapInTurns(each(d, 'contributors'), (c) => [nameElementOf(c as Json, 'contributorName')], slicing),
    relatedIdentifiers: await flatMapInTurns(each(d, 'relatedIdentifiers'), (e) => [element(e as Json, 'relatedIdentifier', RELATED_ATTRIBUTES)], slicing),
  };
  if (slicing.due()) await slicing.turn();
  return dataCiteXml(d, made);
}

export async function toDataCiteXml(view: RecordView, links: Links): Promise<string> {
  const resource = await dataCiteXmlInTurns(view, links, nextIteration);
  await nextIteration();
  return xmlDocument(resource, nextIteration);
}
