/** Where stored metadata holds `{id}`s of each vocabulary (see normalize-metadata's field rules). */
import type { Metadata, VocabularyType } from '../model/types.ts';

/** Dotted paths to `{id}` objects; `*` steps into every item of a list. */
const USES: Record<VocabularyType, string[]> = {
  resource_types: ['resource_type', 'related_identifiers.*.resource_type'],
  licenses: ['rights.*'],
  languages: ['languages.*', 'additional_titles.*.lang', 'additional_descriptions.*.lang'],
  affiliations: ['creators.*.affiliations.*', 'contributors.*.affiliations.*'],
  subjects: ['subjects.*'],
  relation_types: ['related_identifiers.*.relation_type'],
  roles: ['creators.*.role', 'contributors.*.role'],
  description_types: ['additional_descriptions.*.type'],
  target_audiences: ['target_audiences.*'],
  engagement_priorities: ['engagement_priorities.*'],
  geo_work_programme_activities: ['geo_work_programme_activity'],
};

function collect(value: unknown, steps: string[], out: Set<string>): void {
  if (value === null || typeof value !== 'object') return;
  const [step, ...rest] = steps;
  if (step === undefined) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string') out.add(id);
    return;
  }
  if (step === '*') {
    if (Array.isArray(value)) for (const item of value) collect(item, rest, out);
    return;
  }
  collect((value as Record<string, unknown>)[step], rest, out);
}

/** The ids of `type` this metadata refers to. */
export function vocabularyIdsUsed(type: VocabularyType, metadata: Metadata): Set<string> {
  const out = new Set<string>();
  for (const path of USES[type]) collect(metadata, path.split('.'), out);
  return out;
}
