/**
 * DataCite metadata for harvesters, as InvenioRDM offers it: `datacite` is the kernel-4
 * `<resource>` itself; `oai_datacite` wraps it in DataCite's OAI envelope (oai-1.1), which
 * names the schema version and the data centre.
 */
import type { RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { DATACITE_NAMESPACE, DATACITE_SCHEMA, dataCiteXmlInTurns } from '../exports/datacite.ts';
import type { XmlNode } from '../exports/xml.ts';
import { nextIteration } from '@krs/domain';

const OAI_DATACITE_NAMESPACE = 'http://schema.datacite.org/oai/oai-1.1/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export const DATACITE_FORMAT = {
  prefix: 'datacite',
  schema: DATACITE_SCHEMA,
  namespace: DATACITE_NAMESPACE,
  payload: (view: RecordView, links: Links) => dataCiteXmlInTurns(view, links, nextIteration),
} as const;

export const OAI_DATACITE_FORMAT = {
  prefix: 'oai_datacite',
  schema: 'http://schema.datacite.org/oai/oai-1.1/oai.xsd',
  namespace: OAI_DATACITE_NAMESPACE,
  async payload(view: RecordView, links: Links): Promise<XmlNode> {
    const resource = await dataCiteXmlInTurns(view, links, nextIteration);
    return {
      oai_datacite: {
        '@xmlns': OAI_DATACITE_NAMESPACE,
        '@xmlns:xsi': XSI,
        '@xsi:schemaLocation': `${OAI_DATACITE_NAMESPACE} ${OAI_DATACITE_FORMAT.schema}`,
        schemaVersion: '4.5',
        datacentreSymbol: new URL(links.oai).hostname.toUpperCase(),
        payload: resource,
      },
    };
  },
} as const;
