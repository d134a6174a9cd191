/**
 * What a resource type is called in DataCite, CSL and BibTeX. Stored metadata keeps only a type's
 * id and title, so the mapping goes by id: the part before the first `-` is the base type
 * (GEO's `dataset-datacube` is a dataset), with exact ids first for publication subtypes.
 */
import type { RecordView } from '@krs/domain';
import { obj, str } from '../metadata-view.ts';

export interface TypeNames {
  /** DataCite 4.5 `resourceTypeGeneral`. */
  datacite: string;
  /** CSL 1.0.2 item type. */
  csl: string;
}

const EXACT: Record<string, TypeNames> = {
  'publication-article': { datacite: 'JournalArticle', csl: 'article-journal' },
  'publication-report': { datacite: 'Report', csl: 'report' },
  'publication-book': { datacite: 'Book', csl: 'book' },
  'publication-section': { datacite: 'BookChapter', csl: 'chapter' },
  'publication-conferencepaper': { datacite: 'ConferencePaper', csl: 'paper-conference' },
  'publication-preprint': { datacite: 'Preprint', csl: 'article' },
  'publication-thesis': { datacite: 'Dissertation', csl: 'thesis' },
  'publication-technicalnote': { datacite: 'Report', csl: 'report' },
  'publication-workingpaper': { datacite: 'Preprint', csl: 'report' },
  'publication-deliverable': { datacite: 'Report', csl: 'report' },
  'publication-proposal': { datacite: 'Text', csl: 'document' },
  'publication-softwaredocumentation': { datacite: 'Text', csl: 'document' },
  'image-figure': { datacite: 'Image', csl: 'figure' },
};

const BASE: Record<string, TypeNames> = {
  knowledge: { datacite: 'Collection', csl: 'collection' },
  dataset: { datacite: 'Dataset', csl: 'dataset' },
  software: { datacite: 'Software', csl: 'software' },
  publication: { datacite: 'Text', csl: 'document' },
  presentation: { datacite: 'Text', csl: 'speech' },
  poster: { datacite: 'Text', csl: 'graphic' },
  image: { datacite: 'Image', csl: 'graphic' },
  video: { datacite: 'Audiovisual', csl: 'motion_picture' },
  lesson: { datacite: 'InteractiveResource', csl: 'document' },
  physicalobject: { datacite: 'PhysicalObject', csl: 'document' },
  workflow: { datacite: 'Workflow', csl: 'document' },
  model: { datacite: 'Model', csl: 'software' },
  event: { datacite: 'Event', csl: 'event' },
  tool: { datacite: 'Software', csl: 'software' },
  'user-story': { datacite: 'Text', csl: 'document' },
};

const OTHER: TypeNames = { datacite: 'Other', csl: 'document' };

/** A package is a collection of resources whatever its metadata says. */
export function typeNames(view: RecordView): TypeNames {
  if (view.record.kind === 'package') return BASE['knowledge'] as TypeNames;
  const id = str(obj((view.record.metadata as Record<string, unknown>)['resource_type'])?.['id']) ?? '';
  return EXACT[id] ?? BASE[id] ?? BASE[id.split('-')[0] ?? ''] ?? OTHER;
}
