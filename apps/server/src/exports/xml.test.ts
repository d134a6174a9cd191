import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xmlDocument, xmlElementsInTurns } from './xml.ts';

const turn = async () => undefined;

describe('xmlDocument', () => {
  it('writes elements, attributes, repeated elements and text that parse back to the same values', async () => {
    const text = 'a & b < c > d "e" \'f\'';
    const doc = await xmlDocument({ root: { '@xmlns': 'urn:x', '@note': 'tab\there, "quoted"\nline', item: [{ '@n': '1', '#': text }, { '@n': '2', '#': 42 }], empty: '' } }, turn);
    expect(doc.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<root xmlns="urn:x"')).toBe(true);
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#', parseTagValue: false, parseAttributeValue: false, htmlEntities: true, trimValues: false });
    const parsed = parser.parse(doc) as { root: { '@note': string; item: { '@n': string; '#': string }[] } };
    expect(parsed.root['@note']).toBe('tab\there, "quoted"\nline');
    expect(parsed.root.item[0]?.['#']).toBe(text);
    expect(parsed.root.item[1]?.['#']).toBe('42');
  });

  it('replaces what XML 1.0 cannot carry, control characters and lone surrogates, and keeps real pairs', async () => {
    const doc = await xmlDocument({ root: { '@a': 'x\u0001y', '#': 'bad\ud800 \udc00 ok 😀 \u0000' } }, turn);
    expect(doc).toContain('a="x\ufffdy"');
    expect(doc).toContain('bad\ufffd \ufffd ok 😀 \ufffd');
    expect(XMLValidator.validate(doc)).toBe(true);
  });
});

describe('xmlElementsInTurns', () => {
  it('writes the same elements as xmlDocument, unindented and without a declaration, giving turns while it writes a large one', async () => {
    const people = Array.from({ length: 50_000 }, (_, i) => ({ '@n': String(i), name: `Family${i} & Co <${i}>` }));
    const root = { resource: { '@xmlns': 'urn:x', creators: { creator: people }, title: 'A "title"' } };
    let turns = 0;
    const text = await xmlElementsInTurns(root, async () => {
      turns++;
    });
    expect(text.startsWith('<resource xmlns="urn:x"><creators><creator n="0"><name>Family0 &amp; Co &lt;0&gt;</name></creator>')).toBe(true);
    expect(turns).toBeGreaterThan(0);
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#', parseTagValue: false, trimValues: true });
    expect(parser.parse(text)).toEqual({ resource: (parser.parse(await xmlDocument(root, turn)) as { resource: unknown }).resource });
    expect(XMLValidator.validate(text)).toBe(true);
  });
});
