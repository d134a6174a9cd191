/** Reading a record's free-form metadata for pages and exports: every member optional, every shape checked. */
type Json = Record<string, unknown>;

export const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
/** A vocabulary entry's English title, else its id. */
export const label = (v: unknown): string | null => str(obj(obj(v)?.['title'])?.['en']) ?? str(obj(v)?.['id']);
/**
 * The URL of a `rights` entry: a custom entry's `link`, else the vocabulary's `props.url` (every
 * shipped and imported license carries its URL there, none a `link`).
 */
export const licenseUrl = (v: unknown): string | null => {
  const url = str(obj(v)?.['link']) ?? str(obj(obj(v)?.['props'])?.['url']);
  return url !== null && /^https?:\/\//.test(url) ? url : null;
};

export interface Person {
  name: string;
  /** "Family, Given" as catalogues list people; the name alone for organisations. */
  sortName: string;
  orcid: string | null;
  affiliations: string[];
  /** An organisation (`type: organizational`) rather than a person. */
  organization: boolean;
}

/** A creator or contributor entry as a person, or null when it names no one. */
export function personOf(entry: unknown): Person | null {
  const p = obj(obj(entry)?.['person_or_org']);
  if (p === null) return null;
  const family = str(p['family_name']);
  const given = str(p['given_name']);
  const name = family !== null ? (given !== null ? `${given} ${family}` : family) : str(p['name']);
  if (name === null) return null;
  const sortName = family !== null && given !== null ? `${family}, ${given}` : name;
  const orcid = list(p['identifiers']).map(obj).find((i) => i?.['scheme'] === 'orcid');
  const affiliations = list(obj(entry)?.['affiliations']).flatMap((a) => str(obj(a)?.['name']) ?? label(a) ?? []);
  return { name, sortName, orcid: str(orcid?.['identifier']), affiliations, organization: p['type'] === 'organizational' };
}

/** Whether an entry names someone (`personOf` is not null), without making the person. */
function names(entry: unknown): boolean {
  const p = obj(obj(entry)?.['person_or_org']);
  return p !== null && (str(p['family_name']) !== null || str(p['name']) !== null);
}

/** People one at a time, for readers that need the first few of thousands. */
export function* eachPerson(v: unknown): Generator<Person> {
  for (const entry of list(v)) {
    const person = personOf(entry);
    if (person !== null) yield person;
  }
}

/**
 * The first `n` people of a list, and how many it names in all: what a page shows of thousands
 * of creators, the others counted without being made.
 */
export function firstPeople(v: unknown, n: number): { shown: Person[]; total: number } {
  const shown: Person[] = [];
  let total = 0;
  for (const entry of list(v)) {
    if (shown.length < n) {
      const person = personOf(entry);
      if (person === null) continue;
      shown.push(person);
      total++;
    } else if (names(entry)) total++;
  }
  return { shown, total };
}

/** The people of a list that have an ORCID, the first `n` of them, the others not made. */
export function peopleWithOrcid(v: unknown, n: number): Person[] {
  const out: Person[] = [];
  for (const entry of list(v)) {
    if (out.length >= n) break;
    const ids = list(obj(obj(entry)?.['person_or_org'])?.['identifiers']);
    if (!ids.some((i) => obj(i)?.['scheme'] === 'orcid')) continue;
    const person = personOf(entry);
    if (person?.orcid) out.push(person);
  }
  return out;
}

export const people = (v: unknown): Person[] => [...eachPerson(v)];

export interface Place {
  name: string | null;
  /** The GeoJSON geometry as stored (checked when it was saved), or null. */
  geometry: Json | null;
}

export function places(v: unknown): Place[] {
  return list(obj(v)?.['features']).map((f) => {
    const feature = obj(f);
    const geometry = obj(feature?.['geometry']);
    return { name: str(feature?.['place']) ?? str(feature?.['description']), geometry: typeof geometry?.['type'] === 'string' ? geometry : null };
  });
}

/** A geometry's point (when it is one) or its bounding box, for formats that know only those. */
export type Extent = { point: [number, number] } | { box: { west: number; south: number; east: number; north: number } };

export function extentOf(geometry: Json | null): Extent | null {
  if (geometry === null) return null;
  const points: [number, number][] = [];
  const walk = (c: unknown, depth: number): void => {
    if (depth > 6 || !Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') points.push([c[0], c[1]]);
    else for (const x of c) walk(x, depth + 1);
  };
  walk(geometry['coordinates'], 0);
  if (points.length === 0) return null;
  if (points.length === 1) return { point: points[0] as [number, number] };
  let [west, south] = points[0] as [number, number];
  let [east, north] = [west, south];
  for (const [lon, lat] of points) {
    west = Math.min(west, lon);
    east = Math.max(east, lon);
    south = Math.min(south, lat);
    north = Math.max(north, lat);
  }
  return { box: { west, south, east, north } };
}

/**
 * Where a reader's browser can open an identifier: a URL as it is (http and https only: never a
 * `javascript:` link), a DOI at doi.org, a Handle at hdl.handle.net; null for other schemes
 * (ISBN, PubMed ids...), which pages show as text.
 */
export function identifierUrl(identifier: string, scheme: string | null): string | null {
  const id = identifier.trim();
  const kind = scheme?.toLowerCase() ?? null;
  const at =
    kind === 'url' ? id : kind === 'doi' ? `https://doi.org/${id.replace(/^(doi:|https?:\/\/(dx\.)?doi\.org\/)/i, '')}` : kind === 'handle' ? `https://hdl.handle.net/${id.replace(/^hdl:/i, '')}` : null;
  if (at === null || !URL.canParse(at)) return null;
  const protocol = new URL(at).protocol;
  return protocol === 'https:' || protocol === 'http:' ? at : null;
}

