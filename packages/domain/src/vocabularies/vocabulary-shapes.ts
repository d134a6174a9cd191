/**
 * What an entry of each vocabulary looks like in InvenioRDM's and GEO's files, so that a file
 * given for the wrong type is refused before anything is written: a licenses import of
 * `target_audience.yaml` would otherwise load 58 "licenses" without a word.
 *
 * An entry may carry marks of a type (a member only that type's files have, or GEO's
 * `props.type`). It fits the requested type when it carries no mark at all (a plain
 * `{id, title}` list fits anything) or a mark of that type.
 */
import type { VocabularyType } from '../model/types.ts';

type Raw = Record<string, unknown>;

const props = (o: Raw): Raw => (typeof o['props'] === 'object' && o['props'] !== null && !Array.isArray(o['props']) ? (o['props'] as Raw) : {});
const has = (o: Raw, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** GEO's custom vocabularies name their kind in `props.type`. */
const GEO_PROPS_TYPE: Partial<Record<VocabularyType, string>> = {
  target_audiences: 'target-audience',
  geo_work_programme_activities: 'geo-work-programme-activities',
};

const MARKS: [VocabularyType, string, (o: Raw) => boolean][] = [
  ['licenses', 'props.osi_approved', (o) => has(props(o), 'osi_approved')],
  ['licenses', 'props.scheme "spdx"', (o) => props(o)['scheme'] === 'spdx'],
  ['subjects', 'subject', (o) => has(o, 'subject')],
  ['resource_types', 'props.datacite_general', (o) => has(props(o), 'datacite_general')],
  ['resource_types', 'props.csl', (o) => has(props(o), 'csl')],
  ['languages', 'props.alpha_2', (o) => has(props(o), 'alpha_2')],
  ['affiliations', 'acronym', (o) => has(o, 'acronym')],
  ['engagement_priorities', 'props.engagement_type', (o) => has(props(o), 'engagement_type')],
  ...Object.entries(GEO_PROPS_TYPE).map(
    ([type, value]): [VocabularyType, string, (o: Raw) => boolean] => [type as VocabularyType, `props.type "${value}"`, (o) => props(o)['type'] === value],
  ),
];

/** Why this raw entry does not belong to `type`, or null when it may. */
export function shapeMismatch(type: VocabularyType, entry: Raw): string | null {
  const marks = MARKS.filter(([, , test]) => test(entry));
  const expected = GEO_PROPS_TYPE[type];
  const propsType = props(entry)['type'];
  if (expected !== undefined && propsType !== undefined && propsType !== expected) {
    return `its props.type is "${String(propsType)}", ${type} entries have "${expected}"`;
  }
  if (marks.length === 0 || marks.some(([t]) => t === type)) return null;
  const [other, mark] = marks[0] ?? [];
  return `it has ${mark}, as ${other} entries do`;
}
