/**
 * Vocabularies that work with no import. Licenses and languages come from maintained data
 * packages; the short lists below are the ids real GEO metadata uses.
 */
import { iso6393 } from 'iso-639-3';
import spdx from 'spdx-license-list';
import type { VocabularyEntry, VocabularyType } from '../model/types.ts';

const titled = (type: VocabularyType, pairs: [string, string][]): VocabularyEntry[] =>
  pairs.map(([id, en]) => ({ type, id, title: { en } }));

const RESOURCE_TYPES: [string, string][] = [
  ['knowledge', 'Knowledge Package'],
  ['dataset', 'Dataset'],
  ['software', 'Software'],
  ['publication', 'Publication'],
  ['publication-article', 'Journal article'],
  ['publication-report', 'Report'],
  ['publication-book', 'Book'],
  ['publication-section', 'Book section'],
  ['publication-conferencepaper', 'Conference paper'],
  ['publication-preprint', 'Preprint'],
  ['publication-thesis', 'Thesis'],
  ['publication-technicalnote', 'Technical note'],
  ['publication-workingpaper', 'Working paper'],
  ['publication-deliverable', 'Project deliverable'],
  ['publication-proposal', 'Proposal'],
  ['publication-softwaredocumentation', 'Software documentation'],
  ['publication-other', 'Other publication'],
  ['presentation', 'Presentation'],
  ['poster', 'Poster'],
  ['image', 'Image'],
  ['image-figure', 'Figure'],
  ['image-plot', 'Plot'],
  ['image-photo', 'Photo'],
  ['image-diagram', 'Diagram'],
  ['video', 'Video/Audio'],
  ['lesson', 'Lesson'],
  ['physicalobject', 'Physical object'],
  ['workflow', 'Workflow'],
  ['model', 'Model'],
  ['event', 'Event'],
  ['user-story', 'User story'],
  ['tool', 'Tool'],
  ['other', 'Other'],
];

const RELATION_TYPES: [string, string][] = [
  ['iscitedby', 'Is cited by'], ['cites', 'Cites'], ['issupplementto', 'Is supplement to'], ['issupplementedby', 'Is supplemented by'],
  ['iscontinuedby', 'Is continued by'], ['continues', 'Continues'], ['isdescribedby', 'Is described by'], ['describes', 'Describes'],
  ['hasmetadata', 'Has metadata'], ['ismetadatafor', 'Is metadata for'], ['hasversion', 'Has version'], ['isversionof', 'Is version of'],
  ['isnewversionof', 'Is new version of'], ['ispreviousversionof', 'Is previous version of'], ['ispartof', 'Is part of'], ['haspart', 'Has part'],
  ['ispublishedin', 'Is published in'], ['isreferencedby', 'Is referenced by'], ['references', 'References'], ['isdocumentedby', 'Is documented by'],
  ['documents', 'Documents'], ['iscompiledby', 'Is compiled by'], ['compiles', 'Compiles'], ['isvariantformof', 'Is variant form of'],
  ['isoriginalformof', 'Is original form of'], ['isidenticalto', 'Is identical to'], ['isreviewedby', 'Is reviewed by'], ['reviews', 'Reviews'],
  ['isderivedfrom', 'Is derived from'], ['issourceof', 'Is source of'], ['isrequiredby', 'Is required by'], ['requires', 'Requires'],
  ['isobsoletedby', 'Is obsoleted by'], ['obsoletes', 'Obsoletes'], ['iscollectedby', 'Is collected by'], ['collects', 'Collects'],
];

const ROLES: [string, string][] = [
  ['contactperson', 'Contact person'], ['datacollector', 'Data collector'], ['datacurator', 'Data curator'], ['datamanager', 'Data manager'],
  ['distributor', 'Distributor'], ['editor', 'Editor'], ['hostinginstitution', 'Hosting institution'], ['other', 'Other'],
  ['producer', 'Producer'], ['projectleader', 'Project leader'], ['projectmanager', 'Project manager'], ['projectmember', 'Project member'],
  ['registrationagency', 'Registration agency'], ['registrationauthority', 'Registration authority'], ['relatedperson', 'Related person'],
  ['researcher', 'Researcher'], ['researchgroup', 'Research group'], ['rightsholder', 'Rights holder'], ['sponsor', 'Sponsor'],
  ['supervisor', 'Supervisor'], ['workpackageleader', 'Work package leader'],
];

const DESCRIPTION_TYPES: [string, string][] = [
  ['abstract', 'Abstract'], ['methods', 'Methods'], ['seriesinformation', 'Series information'],
  ['tableofcontents', 'Table of contents'], ['technicalinfo', 'Technical info'], ['other', 'Other'],
];

/**
 * Tags as InvenioRDM's and GEO's files give them, for pickers that filter by them
 * (`resourcetypes?tags=depositable`, `licenses?tags=recommended`): every resource type can be
 * deposited and linked, every license is in `all`, and the open data licenses GEO recommends are
 * `recommended`.
 */
const RESOURCE_TYPE_TAGS = ['depositable', 'linkable'];
const RECOMMENDED_LICENSES = new Set(['cc-by-4.0', 'cc0-1.0', 'pddl-1.0']);

function licenses(): VocabularyEntry[] {
  return Object.entries(spdx).map(([id, l]) => ({
    type: 'licenses' as const,
    id: id.toLowerCase(),
    title: { en: l.name },
    description: { en: '' },
    icon: '',
    props: { url: l.url, scheme: 'spdx', osi_approved: l.osiApproved ? 'y' : '' },
    tags: RECOMMENDED_LICENSES.has(id.toLowerCase()) ? ['recommended', 'all'] : ['all'],
  }));
}

function languages(): VocabularyEntry[] {
  return iso6393.map((l): VocabularyEntry => ({ type: 'languages', id: l.iso6393, title: { en: l.name }, ...(l.iso6391 ? { props: { alpha_2: l.iso6391 } } : {}) }));
}

let table: Map<string, VocabularyEntry> | null = null;
let byType: Map<VocabularyType, VocabularyEntry[]> | null = null;

/** Built on first use: the language and license lists are thousands of entries. */
function defaults(): Map<string, VocabularyEntry> {
  if (table) return table;
  const all = [
    ...titled('resource_types', RESOURCE_TYPES).map((e) => ({ ...e, tags: RESOURCE_TYPE_TAGS })),
    ...titled('relation_types', RELATION_TYPES),
    ...titled('roles', ROLES),
    ...titled('description_types', DESCRIPTION_TYPES),
    ...licenses(),
    ...languages(),
  ];
  table = new Map(all.map((e) => [`${e.type}:${e.id}`, e]));
  return table;
}

export function defaultEntry(type: VocabularyType, id: string): VocabularyEntry | undefined {
  return defaults().get(`${type}:${id}`);
}

/** The shipped entries of one type (none for the types that ship none). */
export function defaultEntries(type: VocabularyType): readonly VocabularyEntry[] {
  if (byType === null) {
    byType = new Map();
    for (const e of defaults().values()) {
      const list = byType.get(e.type);
      if (list) list.push(e);
      else byType.set(e.type, [e]);
    }
  }
  return byType.get(type) ?? [];
}
