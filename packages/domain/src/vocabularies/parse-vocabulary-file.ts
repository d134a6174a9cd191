/**
 * Reads InvenioRDM vocabulary files: YAML lists of `{id, title, description, icon, props, tags}`
 * (subject files use `{id, scheme, subject}`) and the `;`-separated licenses CSV whose headers
 * name nested members as `title__en`, `props__url`.
 */
import { parse } from 'yaml';
import { invalid } from '../errors.ts';
import type { VocabularyEntry, VocabularyType } from '../model/types.ts';
import { shapeMismatch } from './vocabulary-shapes.ts';

type Text = { [lang: string]: string };

const asText = (v: unknown): Text | undefined => {
  if (typeof v === 'string') return { en: v };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Text = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = String(x);
  return out;
};

const asProps = (v: unknown): { [key: string]: string } | undefined => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: { [key: string]: string } = {};
  for (const [k, x] of Object.entries(v)) out[k] = x === null || x === undefined ? '' : String(x);
  return out;
};

function fromObject(type: VocabularyType, item: unknown, index: number): VocabularyEntry {
  if (typeof item !== 'object' || item === null) throw invalid('vocabulary.file', `Entry ${index + 1} is not an object.`);
  const o = item as Record<string, unknown>;
  const id = o['id'];
  if (typeof id !== 'string' && typeof id !== 'number') throw invalid('vocabulary.file', `Entry ${index + 1} has no id.`);
  const title = asText(o['title']) ?? (typeof o['subject'] === 'string' ? { en: o['subject'] } : asText(o['name'])) ?? { en: String(id) };
  const entry: VocabularyEntry = { type, id: String(id), title };
  const description = asText(o['description']);
  if (description) entry.description = description;
  if (typeof o['icon'] === 'string') entry.icon = o['icon'];
  const props = asProps(o['props']) ?? {};
  if (typeof o['scheme'] === 'string') props['scheme'] = o['scheme'];
  if (Object.keys(props).length > 0) entry.props = props;
  if (Array.isArray(o['tags'])) entry.tags = o['tags'].map(String);
  return entry;
}

function parseCsv(text: string): Record<string, unknown>[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines.shift()?.split(';');
  if (!header) return [];
  return lines.map((line) => {
    const cells = line.split(';');
    const row: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const value = cells[i] ?? '';
      const [top, sub] = name.split('__');
      if (!top) return;
      if (sub) {
        const nested = (row[top] ??= {}) as Record<string, string>;
        nested[sub] = value;
      } else if (top === 'tags') row[top] = value === '' ? [] : value.split(',');
      else row[top] = value;
    });
    return row;
  });
}

export function parseVocabularyFile(type: VocabularyType, text: string, format: 'yaml' | 'csv'): VocabularyEntry[] {
  let items: unknown;
  try {
    items = format === 'csv' ? parseCsv(text) : parse(text);
  } catch (e) {
    throw invalid('vocabulary.file', `The file is not valid ${format.toUpperCase()}: ${(e as Error).message}`);
  }
  if (!Array.isArray(items)) throw invalid('vocabulary.file', 'A vocabulary file must be a list of entries.');
  const entries = items.map((item, i) => fromObject(type, item, i));
  items.forEach((item, i) => {
    const why = shapeMismatch(type, item as Record<string, unknown>);
    if (why !== null) {
      throw invalid('vocabulary.type_mismatch', `This file does not hold ${type}: entry ${i + 1} ("${entries[i]?.id}") does not fit, ${why}. Nothing was imported.`);
    }
  });
  return entries;
}
