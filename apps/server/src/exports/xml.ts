/**
 * XML of record metadata as plain objects (`@name` attributes, `#` text, arrays for repeated
 * elements): the same object becomes a document of its own through fast-xml-parser's builder
 * (several times faster than a DOM builder on large records) and an OAI-PMH `<metadata>` child
 * through xmlbuilder2, which reads the same convention.
 */
import { XMLBuilder } from 'fast-xml-parser';

export type XmlValue = string | number | XmlNode | XmlValue[];
export interface XmlNode {
  [name: string]: XmlValue;
}

/** Characters XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/F) become U+FFFD. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const xmlText = (text: string): string => text.replace(NOT_XML, '\ufffd');

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#', format: true, suppressEmptyNode: false });

export function xmlDocument(root: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(root) as string}`;
}
