/**
 * The names InvenioRDM clients use for krs's vocabularies: InvenioRDM's own vocabulary ids, and
 * the GEO Knowledge Hub's for its custom ones (its `vocabularies.yaml`). Both role vocabularies
 * of InvenioRDM are the one `roles` list here, as GEO loads both from the same file.
 */
import type { VocabularyType } from '../model/types.ts';

export const VOCABULARY_IDS: Readonly<Record<string, VocabularyType>> = {
  resourcetypes: 'resource_types',
  licenses: 'licenses',
  languages: 'languages',
  affiliations: 'affiliations',
  subjects: 'subjects',
  relationtypes: 'relation_types',
  creatorsroles: 'roles',
  contributorsroles: 'roles',
  descriptiontypes: 'description_types',
  targetaudiencestypes: 'target_audiences',
  engagementprioritiestypes: 'engagement_priorities',
  geowptypes: 'geo_work_programme_activities',
};

export const vocabularyTypeOf = (vocabularyId: string): VocabularyType | undefined =>
  Object.prototype.hasOwnProperty.call(VOCABULARY_IDS, vocabularyId) ? VOCABULARY_IDS[vocabularyId] : undefined;
