/** MARC 21 XML over OAI-PMH (`marcxml`, the prefix InvenioRDM offers): the export's mapping (exports/marc21.ts). */
import type { RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { MARC21_NAMESPACE, MARC21_SCHEMA, marc21Xml } from '../exports/marc21.ts';
import { nextIteration } from '@krs/domain';

export const MARCXML_FORMAT = {
  prefix: 'marcxml',
  schema: MARC21_SCHEMA,
  namespace: MARC21_NAMESPACE,
  payload: (view: RecordView, links: Links) => marc21Xml(view, links, nextIteration),
} as const;
