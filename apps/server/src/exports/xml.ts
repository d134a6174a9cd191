/**
 * XML of record metadata as plain objects (`@name` attributes, `#` text, arrays for repeated
 * elements): the exports' documents and the metadata of OAI-PMH records. Both DOM builders tried
 * (xmlbuilder2, fast-xml-parser's builder) held the event loop 150-550 ms on the largest record a
 * client may store (50,000 elements); writing the convention directly is a single pass over the
 * object, in slices.
 */
import { timeSlices } from '@krs/domain';

export type XmlValue = string | number | XmlNode | XmlValue[];
export interface XmlNode {
  [name: string]: XmlValue;
}

/** Characters XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/F) become U+FFFD. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const xmlText = (text: string): string => text.replace(NOT_XML, '\ufffd');

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };
/** Text and attribute values escaped; whitespace as references only where a parser would normalise it (attributes). */
/** Most values need nothing: one scan finds out. */
const PLAIN = /^[^&<>"\u0000-\u001F\uD800-\uDFFF\uFFFE\uFFFF]*$/;
const escapeText = (v: string | number) => {
  const s = String(v);
  return PLAIN.test(s) ? s : xmlText(s).replace(/[&<>]/g, (c) => ENTITIES[c] as string);
};
const escapeAttribute = (v: XmlValue) => {
  const s = String(v);
  return PLAIN.test(s) ? s : xmlText(s).replace(/[&<>"\t\n\r]/g, (c) => ENTITIES[c] as string);
};

/** An element's attributes and text as written, and its child elements to write. */
function splitElement(value: XmlNode): { attributes: string; text: string; children: [string, XmlValue][] } {
  let attributes = '';
  let text = '';
  const children: [string, XmlValue][] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('@')) attributes += ` ${key.slice(1)}="${escapeAttribute(v)}"`;
    else if (key === '#') text = escapeText(v as string | number);
    else children.push([key, v]);
  }
  return { attributes, text, children };
}


/**
 * Writes the object's elements in slices (`timeSlices`) with `turn()` between them: the
 * largest record a client may store is about 50,000 elements, and written at once it held the
 * event loop for every other request (DataCite XML of 20,000 creators: 130 ms). Indented two
 * spaces a level when `pretty`.
 */
async function writeInTurns(root: XmlNode, turn: () => Promise<void>, pretty: boolean): Promise<string> {
  // Each slice's pieces are joined before its turn: joining the tens of thousands of pieces of
  // the largest record at the end (3.2 MB) was a block of its own.
  const slices: string[] = [];
  let out: string[] = [];
  const nl = pretty ? '\n' : '';
  const slicing = timeSlices(turn);
  async function put(name: string, value: XmlValue, indent: string): Promise<void> {
    if (Array.isArray(value)) {
      for (const v of value) await put(name, v, indent);
      return;
    }
    if (slicing.due()) {
      slices.push(out.join(''));
      out = [];
      await slicing.turn();
    }
    if (typeof value !== 'object') {
      out.push(`${indent}<${name}>${escapeText(value)}</${name}>${nl}`);
      return;
    }
    const { attributes, text, children } = splitElement(value);
    if (children.length === 0) {
      out.push(`${indent}<${name}${attributes}>${text}</${name}>${nl}`);
      return;
    }
    out.push(`${indent}<${name}${attributes}>${pretty ? nl : text}`);
    const inner = pretty ? `${indent}  ` : '';
    for (const [key, v] of children) await put(key, v, inner);
    out.push(`${indent}</${name}>${nl}`);
  }
  for (const [name, value] of Object.entries(root)) await put(name, value, '');
  slices.push(out.join(''));
  return slices.join('');
}

/** A document whose root is the object's one member, indented two spaces a level. */
export async function xmlDocument(root: XmlNode, turn: () => Promise<void>): Promise<string> {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${await writeInTurns(root, turn, true)}`;
}

/** The object's elements, unindented and without a declaration, for a place in a larger document (an OAI-PMH record's metadata). */
export async function xmlElementsInTurns(root: XmlNode, turn: () => Promise<void>): Promise<string> {
  return writeInTurns(root, turn, false);
}
