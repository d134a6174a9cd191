/** Dublin Core XML of a record: the same `oai_dc` mapping harvesters get, as a document of its own. */
import type { RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { oaiDcXmlInTurns } from '../oai/oai-dc.ts';
import { xmlDocument } from './xml.ts';
import { nextIteration } from '@krs/domain';

export const DUBLIN_CORE_TYPE = 'application/x-dc+xml';

export const renderDublinCore = async (view: RecordView, links: Links): Promise<string> => xmlDocument(await oaiDcXmlInTurns(view, links, nextIteration), nextIteration);
