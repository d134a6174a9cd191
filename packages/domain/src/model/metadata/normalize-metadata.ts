/**
 * Draft-level normalisation of metadata: never throws for bad input. Valid parts are kept,
 * invalid ones dropped and reported as field issues. Vocabulary ids are expanded from the
 * vocabularies (display members a client sent are ignored and rebuilt).
 */
import xss from 'xss';
import type { FieldIssue } from '../../errors.ts';
import type { VocabularyLookup } from '../../vocabularies/vocabulary-lookup.ts';
import type { Metadata, RecordKind, VocabularyEntry, VocabularyType } from '../types.ts';
import { isEdtf } from './edtf.ts';
import { geometryProblem } from './geometry.ts';
import { identifierProblem } from './identifiers.ts';

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Ref {
  type: VocabularyType;
  id: string;
  path: string;
  apply(entry: VocabularyEntry): void;
  drop(): void;
}

const TITLE_TYPES = ['alternative-title', 'subtitle', 'translated-title', 'other'];
const DATE_TYPES = ['accepted', 'available', 'collected', 'copyrighted', 'created', 'issued', 'other', 'submitted', 'updated', 'valid', 'withdrawn'];

class Normalizer {
  readonly issues: FieldIssue[] = [];
  readonly refs: Ref[] = [];
  readonly dropped = new WeakSet<object>();

  issue(field: string, message: string): undefined {
    this.issues.push({ field, messages: [message] });
    return undefined;
  }

  string(v: unknown, path: string, opts: { required?: boolean } = {}): string | undefined {
    if (v === undefined || v === null) return opts.required ? this.issue(path, 'Missing data for required field.') : undefined;
    if (typeof v !== 'string') return this.issue(path, 'Not a valid string.');
    const t = v.trim();
    if (t === '' && opts.required) return this.issue(path, 'Field may not be empty.');
    return t;
  }

  list<T>(v: unknown, path: string, each: (item: unknown, itemPath: string) => T | undefined): T[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return this.issue(path, 'Not a valid list.');
    const out: T[] = [];
    v.forEach((item, i) => {
      const r = each(item, `${path}.${i}`);
      if (r !== undefined) out.push(r);
    });
    return out;
  }

  object(v: unknown, path: string, allowed: string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) return this.issue(path, 'Not a valid object.');
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.issue(`${path}.${k}`, 'Unknown field.');
    return v;
  }

  /** `{id}` from a vocabulary, expanded later; `holder` is dropped from its list if the id is unknown. */
  vocab(v: unknown, path: string, type: VocabularyType, holder?: object): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || (typeof v['id'] !== 'string' && typeof v['id'] !== 'number')) return this.issue(path, 'Must be an object with an id.');
    const out: Obj = { id: String(v['id']) };
    this.refs.push({
      type,
      id: String(v['id']),
      path,
      apply: (entry) => {
        out['title'] = entry.title;
        if (entry.description && type !== 'resource_types') out['description'] = entry.description;
        if (entry.icon !== undefined && type === 'licenses') out['icon'] = entry.icon;
        if (entry.props && (type === 'licenses' || type === 'subjects')) out['props'] = entry.props;
        if (type === 'subjects') {
          out['subject'] = entry.title['en'] ?? Object.values(entry.title)[0] ?? entry.id;
          if (entry.props?.['scheme']) out['scheme'] = entry.props['scheme'];
          delete out['title'];
          delete out['props'];
        }
        if (type === 'affiliations') {
          out['name'] = entry.title['en'] ?? Object.values(entry.title)[0] ?? entry.id;
          delete out['title'];
        }
      },
      drop: () => this.dropped.add(holder ?? out),
    });
    return out;
  }

  fixed(v: unknown, path: string, allowed: string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || typeof v['id'] !== 'string') return this.issue(path, 'Must be an object with an id.');
    if (!allowed.includes(v['id'])) return this.issue(`${path}.id`, `Invalid value; use one of: ${allowed.join(', ')}.`);
    return { id: v['id'] };
  }
}

function personOrOrg(n: Normalizer, v: unknown, path: string): Obj | undefined {
  const o = n.object(v, path, ['type', 'name', 'given_name', 'family_name', 'identifiers']);
  if (!o) return v === undefined ? n.issue(path, 'Missing data for required field.') : undefined;
  const type = o['type'];
  if (type !== 'personal' && type !== 'organizational') return n.issue(`${path}.type`, 'Must be "personal" or "organizational".');
  const out: Obj = { type };
  if (type === 'personal') {
    const family = n.string(o['family_name'], `${path}.family_name`, { required: true });
    const given = n.string(o['given_name'], `${path}.given_name`);
    if (family === undefined) return undefined;
    out['family_name'] = family;
    if (given) out['given_name'] = given;
    out['name'] = [family, given].filter((p) => p).join(', ');
  } else {
    const name = n.string(o['name'], `${path}.name`, { required: true });
    if (name === undefined) return undefined;
    out['name'] = name;
  }
  const ids = n.list(o['identifiers'], `${path}.identifiers`, (item, p) => {
    const id = n.object(item, p, ['scheme', 'identifier']);
    if (!id) return undefined;
    const scheme = n.string(id['scheme'], `${p}.scheme`, { required: true });
    const identifier = n.string(id['identifier'], `${p}.identifier`, { required: true });
    if (scheme === undefined || identifier === undefined) return undefined;
    const problem = identifierProblem(scheme, identifier);
    return problem ? n.issue(`${p}.identifier`, problem) : { scheme: scheme.toLowerCase(), identifier };
  });
  if (ids) out['identifiers'] = ids;
  return out;
}

function creatorLike(n: Normalizer, v: unknown, path: string, roleRequired: boolean): Obj | undefined {
  const o = n.object(v, path, ['person_or_org', 'affiliations', 'role']);
  if (!o) return undefined;
  const person = personOrOrg(n, o['person_or_org'], `${path}.person_or_org`);
  if (!person) return undefined;
  const out: Obj = { person_or_org: person };
  const affiliations = n.list(o['affiliations'], `${path}.affiliations`, (item, p) => {
    const a = n.object(item, p, ['id', 'name']);
    if (!a) return undefined;
    if (a['id'] !== undefined) return n.vocab(a, p, 'affiliations');
    const name = n.string(a['name'], `${p}.name`, { required: true });
    return name === undefined ? undefined : { name };
  });
  if (affiliations) out['affiliations'] = affiliations;
  if (o['role'] !== undefined) {
    const role = n.vocab(o['role'], `${path}.role`, 'roles');
    if (role) out['role'] = role;
  } else if (roleRequired) n.issue(`${path}.role`, 'Missing data for required field.');
  return out;
}

type FieldRule = (n: Normalizer, v: unknown, path: string, kind: RecordKind) => unknown;

const vocabList = (type: VocabularyType): FieldRule => (n, v, path) => n.list(v, path, (item, p) => n.vocab(item, p, type));
const stringList: FieldRule = (n, v, path) => n.list(v, path, (item, p) => n.string(item, p));

const RULES: { [field: string]: FieldRule } = {
  title: (n, v, p) => n.string(v, p),
  additional_titles: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['title', 'type', 'lang']);
      const title = o && n.string(o['title'], `${p}.title`, { required: true });
      if (!o || title === undefined) return undefined;
      const out: Obj = { title };
      const type = n.fixed(o['type'], `${p}.type`, TITLE_TYPES);
      if (type) out['type'] = type;
      const lang = n.vocab(o['lang'], `${p}.lang`, 'languages');
      if (lang) out['lang'] = lang;
      return out;
    }),
  description: (n, v, p) => {
    const s = n.string(v, p);
    return s === undefined ? undefined : xss(s);
  },
  additional_descriptions: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['description', 'type', 'lang']);
      const description = o && n.string(o['description'], `${p}.description`, { required: true });
      if (!o || description === undefined) return undefined;
      const out: Obj = { description: xss(description) };
      const type = n.vocab(o['type'], `${p}.type`, 'description_types', out);
      if (type) out['type'] = type;
      const lang = n.vocab(o['lang'], `${p}.lang`, 'languages', out);
      if (lang) out['lang'] = lang;
      return out;
    }),
  publication_date: (n, v, p) => {
    const s = n.string(v, p);
    return s === undefined || s === '' ? undefined : isEdtf(s) ? s : n.issue(p, 'Please provide a valid date or interval (YYYY, YYYY-MM, YYYY-MM-DD or A/B).');
  },
  creators: (n, v, path) => n.list(v, path, (item, p) => creatorLike(n, item, p, false)),
  contributors: (n, v, path) => n.list(v, path, (item, p) => creatorLike(n, item, p, true)),
  resource_type: (n, v, p, kind) => (kind === 'package' ? undefined : n.vocab(v, p, 'resource_types')),
  publisher: (n, v, p) => n.string(v, p),
  rights: (n, v, path) =>
    n.list(v, path, (item, p) => {
      if (isObj(item) && item['id'] !== undefined) return n.vocab(item, p, 'licenses');
      const o = n.object(item, p, ['title', 'description', 'link']);
      if (!o) return undefined;
      if (!isObj(o['title'])) return n.issue(`${p}.title`, 'Missing data for required field.');
      return { title: o['title'], ...(isObj(o['description']) ? { description: o['description'] } : {}), ...(typeof o['link'] === 'string' ? { link: o['link'] } : {}) };
    }),
  languages: vocabList('languages'),
  subjects: (n, v, path) =>
    n.list(v, path, (item, p) => {
      if (isObj(item) && item['id'] !== undefined) return n.vocab(item, p, 'subjects');
      const o = n.object(item, p, ['subject']);
      const subject = o && n.string(o['subject'], `${p}.subject`, { required: true });
      return subject === undefined || subject === null ? undefined : { subject };
    }),
  dates: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['date', 'type', 'description']);
      if (!o) return undefined;
      const date = n.string(o['date'], `${p}.date`, { required: true });
      if (date === undefined) return undefined;
      if (!isEdtf(date)) return n.issue(`${p}.date`, 'Please provide a valid date or interval.');
      const type = n.fixed(o['type'], `${p}.type`, DATE_TYPES);
      if (!type) return o['type'] === undefined ? n.issue(`${p}.type`, 'Missing data for required field.') : undefined;
      const description = n.string(o['description'], `${p}.description`);
      return { date, type, ...(description ? { description } : {}) };
    }),
  related_identifiers: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['identifier', 'scheme', 'relation_type', 'resource_type']);
      if (!o) return undefined;
      const identifier = n.string(o['identifier'], `${p}.identifier`, { required: true });
      const scheme = n.string(o['scheme'], `${p}.scheme`, { required: true });
      if (identifier === undefined || scheme === undefined) return undefined;
      const out: Obj = { identifier, scheme: scheme.toLowerCase() };
      const relation = n.vocab(o['relation_type'], `${p}.relation_type`, 'relation_types', out);
      if (!relation) return o['relation_type'] === undefined ? n.issue(`${p}.relation_type`, 'Missing data for required field.') : undefined;
      out['relation_type'] = relation;
      const rt = n.vocab(o['resource_type'], `${p}.resource_type`, 'resource_types', out);
      if (rt) out['resource_type'] = rt;
      return out;
    }),
  identifiers: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['identifier', 'scheme']);
      const identifier = o && n.string(o['identifier'], `${p}.identifier`, { required: true });
      const scheme = o && n.string(o['scheme'], `${p}.scheme`, { required: true });
      return identifier && scheme ? { identifier, scheme: scheme.toLowerCase() } : undefined;
    }),
  sizes: stringList,
  formats: stringList,
  version: (n, v, p) => n.string(v, p),
  locations: (n, v, path) => {
    const o = n.object(v, path, ['features']);
    if (!o) return undefined;
    const features = n.list(o['features'], `${path}.features`, (item, p) => {
      const f = n.object(item, p, ['geometry', 'place', 'description', 'identifiers']);
      if (!f) return undefined;
      const out: Obj = {};
      if (f['geometry'] !== undefined) {
        const problem = geometryProblem(f['geometry']);
        if (problem) return n.issue(`${p}.geometry`, problem);
        out['geometry'] = f['geometry'];
      }
      const place = n.string(f['place'], `${p}.place`);
      if (place) out['place'] = place;
      const description = n.string(f['description'], `${p}.description`);
      if (description) out['description'] = description;
      if (Array.isArray(f['identifiers'])) out['identifiers'] = f['identifiers'];
      return Object.keys(out).length > 0 ? out : n.issue(p, 'A location needs a geometry, a place or a description.');
    });
    return features ? { features } : undefined;
  },
  funding: (n, v, path) => n.list(v, path, (item, p) => (isObj(item) ? item : n.issue(p, 'Not a valid object.'))),
  references: (n, v, path) =>
    n.list(v, path, (item, p) => {
      const o = n.object(item, p, ['reference', 'scheme', 'identifier']);
      const reference = o && n.string(o['reference'], `${p}.reference`, { required: true });
      if (!o || !reference) return undefined;
      return { reference, ...(typeof o['scheme'] === 'string' ? { scheme: o['scheme'] } : {}), ...(typeof o['identifier'] === 'string' ? { identifier: o['identifier'] } : {}) };
    }),
  target_audiences: vocabList('target_audiences'),
  engagement_priorities: vocabList('engagement_priorities'),
  geo_work_programme_activity: (n, v, p) => n.vocab(v, p, 'geo_work_programme_activities'),
};

/** Removes list items whose vocabulary id turned out unknown. */
function prune(value: unknown, dropped: WeakSet<object>): unknown {
  if (Array.isArray(value)) return value.filter((x) => !(typeof x === 'object' && x !== null && dropped.has(x))).map((x) => prune(x, dropped));
  if (isObj(value)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) if (!(isObj(v) && dropped.has(v))) out[k] = prune(v, dropped);
    return out;
  }
  return value;
}

export async function normalizeMetadata(input: unknown, kind: RecordKind, vocab: VocabularyLookup): Promise<{ metadata: Metadata; issues: FieldIssue[] }> {
  const n = new Normalizer();
  const source: Obj = isObj(input) ? input : {};
  if (input !== undefined && input !== null && !isObj(input)) n.issue('metadata', 'Not a valid object.');
  const out: Obj = {};
  for (const [field, value] of Object.entries(source)) {
    const rule = RULES[field];
    if (!rule) {
      n.issue(`metadata.${field}`, 'Unknown field.');
      continue;
    }
    const normalized = rule(n, value, `metadata.${field}`, kind);
    if (normalized !== undefined) out[field] = normalized;
  }
  if (kind === 'package') out['resource_type'] = n.vocab({ id: 'knowledge' }, 'metadata.resource_type', 'resource_types');
  const byType = new Map<VocabularyType, Set<string>>();
  for (const ref of n.refs) byType.set(ref.type, (byType.get(ref.type) ?? new Set()).add(ref.id));
  const found = new Map<VocabularyType, Map<string, VocabularyEntry>>();
  for (const [type, ids] of byType) found.set(type, await vocab.get(type, [...ids]));
  for (const ref of n.refs) {
    const entry = found.get(ref.type)?.get(ref.id);
    if (entry) ref.apply(entry);
    else {
      n.issue(ref.path.endsWith('.id') ? ref.path : `${ref.path}`, `Unknown ${ref.type.replace(/_/g, ' ').replace(/s$/, '')} id "${ref.id}".`);
      ref.drop();
    }
  }
  return { metadata: prune(out, n.dropped) as Metadata, issues: n.issues };
}
