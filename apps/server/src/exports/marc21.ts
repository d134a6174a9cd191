/**
 * MARC 21 XML (MARCXML) of a published version, the format library catalogues and discovery
 * systems import and InvenioRDM offers as an export (`application/marcxml+xml`) and over OAI-PMH
 * (`marcxml`). Fields, in tag order: 001 id, 005 last change, 024 DOI, 041 languages, 100/110
 * first creator, 245 title, 246 other titles, 264 publisher and date, 520 descriptions, 540
 * licenses, 653 subjects, 655 resource type, 700/710 other creators and contributors, 773 the
 * package holding a resource (as far as the reader may see it), 856 the landing page. Made in slices, with `turn()` between them: a legal record may have tens of
 * thousands of creators.
 */
import type { RecordView } from '@krs/domain';
import { textOf } from '../html-text.ts';
import type { Links } from '../links.ts';
import { label, licenseUrl, list, obj, people, str, type Person } from '../metadata-view.ts';
import type { XmlNode } from './xml.ts';
import { timeSlices } from '@krs/domain';

export const MARC21_NAMESPACE = 'http://www.loc.gov/MARC21/slim';
export const MARC21_SCHEMA = 'https://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd';
export const MARCXML_TYPE = 'application/marcxml+xml';

/** People mapped between two looks at the clock. */
const PEOPLE_STEP = 200;

/** Leader position 06, the type of record: computer files, images, moving images, objects, else text. */
function recordType(resourceType: string | null): string {
  const base = (resourceType ?? '').split('-')[0];
  if (base === 'dataset' || base === 'software' || base === 'model' || base === 'workflow' || base === 'tool') return 'm';
  if (base === 'image') return 'k';
  if (base === 'video') return 'g';
  if (base === 'physicalobject') return 'r';
  return 'a';
}

interface Datafield {
  tag: string;
  node: XmlNode;
}

const field = (tag: string, ind1: string, ind2: string, subfields: [string, string | null][]): Datafield | null => {
  const present = subfields.filter((s): s is [string, string] => s[1] !== null && s[1] !== '');
  if (present.length === 0) return null;
  return { tag, node: { '@tag': tag, '@ind1': ind1, '@ind2': ind2, subfield: present.map(([code, value]) => ({ '@code': code, '#': value })) } };
};

/** A person's field: 100/700 for a person, 110/710 for an organisation, with affiliations, ORCID and role. */
function personField(p: Person, main: boolean, role: string | null): Datafield | null {
  const tag = `${main ? '1' : '7'}${p.organization ? '10' : '00'}`;
  return field(tag, p.organization ? '2' : '1', ' ', [
    ['a', p.sortName],
    ...(role ? ([['e', role]] as [string, string][]) : []),
    ...p.affiliations.map((a): [string, string] => ['u', a]),
    ['0', p.orcid ? `(orcid)${p.orcid}` : null],
  ]);
}

/** `YYYYMMDDhhmmss.f` of an ISO timestamp, as field 005 writes the last change. */
const latestTransaction = (iso: string): string => `${iso.slice(0, 19).replace(/[-T:]/g, '')}.0`;

export async function marc21Xml(view: RecordView, links: Links, turn: () => Promise<void>): Promise<XmlNode> {
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const fields: Datafield[] = [];
  const add = (f: Datafield | null) => {
    if (f !== null) fields.push(f);
  };
  const slicing = timeSlices(turn);
  const maybeTurn = async () => {
    if (slicing.due()) await slicing.turn();
  };

  const doi = str(obj(r.pids['doi'])?.['identifier']);
  if (doi !== null) add(field('024', '7', ' ', [['a', doi], ['2', 'doi']]));
  for (const l of list(m['languages'])) add(field('041', ' ', ' ', [['a', str(obj(l)?.['id'])]]));
  let first = true;
  for (const [key, role] of [['creators', false], ['contributors', true]] as const) {
    const entries = list(m[key]);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const [p] = people([entry]);
      if (p !== undefined) {
        add(personField(p, first, role ? label(obj(entry)?.['role']) : null));
        first = false;
      }
      if (i % PEOPLE_STEP === PEOPLE_STEP - 1) await maybeTurn();
    }
  }
  add(field('245', '1', '0', [['a', str(m['title'])]]));
  for (const t of list(m['additional_titles'])) add(field('246', '1', ' ', [['a', str(obj(t)?.['title'])]]));
  add(field('264', ' ', '1', [['b', str(m['publisher'])], ['c', str(m['publication_date'])]]));
  const description = str(m['description']);
  if (description !== null) add(field('520', ' ', ' ', [['a', textOf(description)]]));
  for (const d of list(m['additional_descriptions'])) {
    const text = str(obj(d)?.['description']);
    if (text !== null) add(field('520', ' ', ' ', [['a', textOf(text)]]));
    await maybeTurn();
  }
  for (const right of list(m['rights']).map(obj)) add(field('540', ' ', ' ', [['a', label(right)], ['u', licenseUrl(right)]]));
  for (const s of list(m['subjects'])) add(field('653', ' ', ' ', [['a', str(obj(s)?.['subject']) ?? label(s)]]));
  const typeLabel = label(m['resource_type']);
  if (typeLabel !== null) add(field('655', ' ', '7', [['a', typeLabel], ['2', 'local']]));
  // Host item entry: the package's title and where it is (its DOI, else its landing page).
  const whole = view.holder?.shown;
  if (whole) add(field('773', '0', '8', [['t', whole.title], ['o', whole.doi ? `https://doi.org/${whole.doi}` : links.landing('package', whole.id)]]));
  add(field('856', '4', '0', [['u', links.landing(r.kind, r.id)], ['z', 'Landing page']]));
  // Stable: fields of one tag keep the order the record gives them.
  fields.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  await maybeTurn();

  const resourceType = str(obj(m['resource_type'])?.['id']);
  return {
    record: {
      '@xmlns': MARC21_NAMESPACE,
      '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      '@xsi:schemaLocation': `${MARC21_NAMESPACE} ${MARC21_SCHEMA}`,
      leader: `00000n${recordType(resourceType)}m a2200000uu 4500`,
      controlfield: [
        { '@tag': '001', '#': r.id },
        { '@tag': '005', '#': latestTransaction(r.updated) },
      ],
      datafield: fields.map((f) => f.node),
    },
  };
}
