/**
 * Draft-level normalisation of metadata: never throws for bad content. Valid parts are kept,
 * invalid ones dropped and reported as field issues. Vocabulary ids are expanded from the
 * vocabularies (display members a client sent are ignored and rebuilt). Input past the size
 * limits (limits.ts) is refused whole with a DomainError, before any recursive walk meets it.
 */
import type { FieldIssue } from '../../errors.ts';
import type { VocabularyLookup } from '../../vocabularies/vocabulary-lookup.ts';
import type { Metadata, RecordKind, VocabularyEntry, VocabularyType } from '../types.ts';
import { isEdtf } from './edtf.ts';
import { normalizeGeometry } from './geometry.ts';
import { identifierProblem, isEmail } from './identifiers.ts';
import { assertNotTooDeep, limitExceeded, METADATA_LIMITS } from './limits.ts';
import { isObj, keyInPath, Normalizer, pause, type Obj } from './normalizer.ts';
import { LARGE_JSON_CHARS, markLarge, markLevels } from '../../turns/large-values.ts';
import { nestsWithinInTurns } from '../../turns/nesting.ts';
import { jsonLengthInTurns } from '../../turns/json-length.ts';
import { largeValueSlices } from '../../turns/time-slices.ts';

const TITLE_TYPES = ['alternative-title', 'subtitle', 'translated-title', 'other'];
const DATE_TYPES = ['accepted', 'available', 'collected', 'copyrighted', 'created', 'issued', 'other', 'submitted', 'updated', 'valid', 'withdrawn'];

function personOrOrg(n: Normalizer, v: unknown, path: string): Obj | undefined {
  const o = n.object(v, path, ['type', 'name', 'given_name', 'family_name', 'identifiers', 'email']);
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
  const email = n.string(o['email'], `${path}.email`, { max: 254 });
  if (email) {
    if (isEmail(email)) out['email'] = email;
    else n.issue(`${path}.email`, 'Not a valid email address.');
  }
  const ids = n.list(o['identifiers'], `${path}.identifiers`, (item, p) => {
    const id = n.object(item, p, ['scheme', 'identifier']);
    if (!id) return undefined;
    const scheme = n.string(id['scheme'], `${p}.scheme`, { required: true });
    const identifier = n.string(id['identifier'], `${p}.identifier`, { required: true });
    if (scheme === undefined || identifier === undefined) return undefined;
    const problem = identifierProblem(scheme, identifier);
    return problem ? n.issue(`${p}.identifier`, problem) : { scheme: scheme.toLowerCase(), identifier };
  }, METADATA_LIMITS.maxPersonIdentifiers);
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
  }, METADATA_LIMITS.maxAffiliations);
  if (affiliations) out['affiliations'] = affiliations;
  if (o['role'] !== undefined) {
    const role = n.vocab(o['role'], `${path}.role`, 'roles');
    if (role) out['role'] = role;
  } else if (roleRequired) n.issue(`${path}.role`, 'Missing data for required field.');
  return out;
}

/**
 * InvenioRDM's funding entry: a funder (`id` from the funders vocabulary, or a `name`) and an
 * optional award (`id`, or a `number` with a `title`), plus GEO's `icon` and `disclaimer`.
 */
function funding(n: Normalizer, v: unknown, path: string): Obj | undefined {
  const o = n.object(v, path, ['funder', 'award']);
  if (!o) return undefined;
  const f = n.object(o['funder'], `${path}.funder`, ['id', 'name']);
  if (!f) return o['funder'] === undefined ? n.issue(`${path}.funder`, 'Missing data for required field.') : undefined;
  const funder: Obj = {};
  const funderId = n.string(f['id'], `${path}.funder.id`);
  const funderName = n.string(f['name'], `${path}.funder.name`);
  if (funderId) funder['id'] = funderId;
  if (funderName) funder['name'] = funderName;
  if (!funderId && !funderName) return n.issue(`${path}.funder`, 'An id or a name is required.');
  const out: Obj = { funder };
  const a = n.object(o['award'], `${path}.award`, ['id', 'number', 'title', 'identifiers', 'acronym', 'icon', 'disclaimer']);
  if (a) {
    const award: Obj = {};
    for (const key of ['id', 'number', 'acronym', 'icon', 'disclaimer']) {
      const text = n.string(a[key], `${path}.award.${key}`);
      if (text) award[key] = text;
    }
    const title = n.i18n(a['title'], `${path}.award.title`);
    if (title) award['title'] = title;
    const identifiers = n.schemeIdentifiers(a['identifiers'], `${path}.award.identifiers`, METADATA_LIMITS.maxPersonIdentifiers);
    if (identifiers && identifiers.length > 0) award['identifiers'] = identifiers;
    if (!award['id'] && !(award['number'] && award['title'])) return n.issue(`${path}.award`, 'An award needs an id, or a number and a title.');
    out['award'] = award;
  }
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
  description: (n, v, p) => n.html(v, p),
  additional_descriptions: (n, v, path) =>
    n.longList(v, path, (item, p) => {
      const o = n.object(item, p, ['description', 'type', 'lang']);
      const description = o && n.html(o['description'], `${p}.description`, { required: true });
      if (!o || description === undefined) return undefined;
      const out: Obj = { description };
      const type = n.vocab(o['type'], `${p}.type`, 'description_types', out);
      if (type) out['type'] = type;
      const lang = n.vocab(o['lang'], `${p}.lang`, 'languages', out);
      if (lang) out['lang'] = lang;
      return out;
    }, METADATA_LIMITS.maxList),
  publication_date: (n, v, p) => {
    const s = n.string(v, p);
    return s === undefined || s === '' ? undefined : isEdtf(s) ? s : n.issue(p, 'Please provide a valid date or interval (YYYY, YYYY-MM, YYYY-MM-DD or A/B).');
  },
  creators: (n, v, path) => n.longList(v, path, (item, p) => creatorLike(n, item, p, false), METADATA_LIMITS.maxPeople),
  contributors: (n, v, path) => n.longList(v, path, (item, p) => creatorLike(n, item, p, true), METADATA_LIMITS.maxPeople),
  resource_type: (n, v, p, kind) => (kind === 'package' ? undefined : n.vocab(v, p, 'resource_types')),
  publisher: (n, v, p) => n.string(v, p),
  rights: (n, v, path) =>
    n.list(v, path, (item, p) => {
      if (isObj(item) && item['id'] !== undefined) return n.vocab(item, p, 'licenses');
      const o = n.object(item, p, ['title', 'description', 'link']);
      if (!o) return undefined;
      const title = n.i18n(o['title'], `${p}.title`, { required: true });
      if (!title) return undefined;
      const description = n.i18n(o['description'], `${p}.description`);
      const link = n.string(o['link'], `${p}.link`);
      return { title, ...(description ? { description } : {}), ...(link ? { link } : {}) };
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
    n.longList(v, path, (item, p) => {
      const o = n.object(item, p, ['identifier', 'scheme', 'relation_type', 'resource_type', 'title', 'description']);
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
      // GEO's extension: a label and an explanation of the link.
      const title = n.string(o['title'], `${p}.title`);
      if (title) out['title'] = title;
      const description = n.html(o['description'], `${p}.description`);
      if (description) out['description'] = description;
      return out;
    }, METADATA_LIMITS.maxLinks),
  identifiers: (n, v, path) => n.schemeIdentifiers(v, path),
  sizes: stringList,
  formats: stringList,
  version: (n, v, p) => n.string(v, p),
  locations: async (n, v, path) => {
    const o = n.object(v, path, ['features']);
    if (!o) return undefined;
    const features = await n.longList(o['features'], `${path}.features`, (item, p) => {
      const f = n.object(item, p, ['geometry', 'place', 'description', 'identifiers']);
      if (!f) return undefined;
      const out: Obj = {};
      if (f['geometry'] !== undefined && f['geometry'] !== null) {
        const checked = normalizeGeometry(f['geometry'], n.positions);
        if ('problem' in checked) return checked.overLimit ? n.overLimit(`${p}.geometry`, checked.problem) : n.issue(`${p}.geometry`, checked.problem);
        out['geometry'] = checked.geometry;
      }
      const place = n.string(f['place'], `${p}.place`);
      if (place) out['place'] = place;
      const description = n.string(f['description'], `${p}.description`);
      if (description) out['description'] = description;
      const identifiers = n.schemeIdentifiers(f['identifiers'], `${p}.identifiers`);
      if (identifiers && identifiers.length > 0) out['identifiers'] = identifiers;
      return Object.keys(out).length > 0 ? out : n.issue(p, 'A location needs a geometry, a place or a description.');
    }, METADATA_LIMITS.maxList);
    return features ? { features } : undefined;
  },
  funding: (n, v, path) => n.list(v, path, (item, p) => funding(n, item, p)),
  references: (n, v, path) =>
    n.longList(v, path, (item, p) => {
      const o = n.object(item, p, ['reference', 'scheme', 'identifier']);
      const reference = o && n.string(o['reference'], `${p}.reference`, { required: true });
      if (!o || !reference) return undefined;
      const scheme = n.string(o['scheme'], `${p}.scheme`);
      const identifier = n.string(o['identifier'], `${p}.identifier`);
      return { reference, ...(scheme ? { scheme: scheme.toLowerCase() } : {}), ...(identifier ? { identifier } : {}) };
    }, METADATA_LIMITS.maxLinks),
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

/** A vocabulary's name for one of its entries: `engagement_priorities` -> `engagement priority`. */
const singularOf = (type: VocabularyType): string => type.replace(/_/g, ' ').replace(/ies$/, 'y').replace(/s$/, '');

/**
 * Throws a DomainError (400) when the input is past a limit; otherwise returns what can be stored
 * and the draft issues (not yet capped: the caller adds publish requirements first).
 */
export async function normalizeMetadata(input: unknown, kind: RecordKind, vocab: VocabularyLookup): Promise<{ metadata: Metadata; issues: FieldIssue[] }> {
  // Walked in slices: the walk over the largest legal metadata, rarely run and so not yet
  // optimised, took 5-20 ms in one go. The offender's path is only spelled out for a refusal.
  if (!(await nestsWithinInTurns(input, METADATA_LIMITS.maxDepth, largeValueSlices()))) assertNotTooDeep(input, 'metadata', METADATA_LIMITS.maxDepth);
  const n = new Normalizer();
  const source: Obj = isObj(input) ? input : {};
  if (input !== undefined && input !== null && !isObj(input)) n.issue('metadata', 'Not a valid object.');
  const out: Obj = {};
  for (const [field, value] of Object.entries(source)) {
    // Own members only: `constructor` or `toString` must not find Object's.
    const rule = Object.hasOwn(RULES, field) ? RULES[field] : undefined;
    if (!rule) {
      n.issue(`metadata.${keyInPath(field)}`, 'Unknown field.');
      continue;
    }
    const normalized = await rule(n, value, `metadata.${field}`, kind);
    if (normalized !== undefined) out[field] = normalized;
  }
  if (n.limitIssues.length > 0) throw limitExceeded(n.limitIssues);
  if (kind === 'package') out['resource_type'] = n.vocab({ id: 'knowledge' }, 'metadata.resource_type', 'resource_types');
  const byType = new Map<VocabularyType, Set<string>>();
  for (const ref of n.refs) byType.set(ref.type, (byType.get(ref.type) ?? new Set()).add(ref.id));
  const found = new Map<VocabularyType, Map<string, VocabularyEntry>>();
  for (const [type, ids] of byType) found.set(type, await vocab.get(type, [...ids]));
  for (let i = 0; i < n.refs.length; i++) {
    // A body can hold up to 200,000 vocabulary references: expand them in slices too.
    if (i > 0 && i % 5_000 === 0) await pause();
    const ref = n.refs[i]!;
    const entry = found.get(ref.type)?.get(ref.id);
    if (entry) ref.apply(entry);
    else {
      n.issue(ref.path.endsWith('.id') ? ref.path : `${ref.path}`, `Unknown ${singularOf(ref.type)} id "${ref.id}".`);
      ref.drop();
    }
  }
  // Measuring the largest legal record takes several milliseconds: it goes in slices after a
  // turn of its own, and whatever the caller does next with it (storing it) gets one too.
  await n.pauseIfLarge();
  const metadata = (n.droppedCount > 0 ? prune(out, n.dropped) : out) as Metadata;
  const size = n.large() ? await jsonLengthInTurns(metadata, largeValueSlices()) : JSON.stringify(metadata).length;
  if (size > METADATA_LIMITS.maxSerialized) {
    throw limitExceeded([{ field: 'metadata', messages: [`Larger than the maximum of ${METADATA_LIMITS.maxSerialized} characters once normalised (${size}).`] }]);
  }
  // Known from here on (turns/large-values.ts): whoever stores, answers or indexes a large record
  // takes turns, and its nesting is not walked again for its search document. The output nests as
  // its input does, but for the title object a vocabulary entry adds below a reference: one level
  // more at most.
  if (size > LARGE_JSON_CHARS) markLarge(metadata);
  markLevels(metadata, METADATA_LIMITS.maxDepth + 1);
  await n.pauseIfLarge();
  return { metadata, issues: n.issues };
}
