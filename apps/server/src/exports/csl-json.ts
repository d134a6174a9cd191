/**
 * CSL-JSON (citationstyles.org, schema 1.0.2) of a record: what reference managers import, and
 * the input of formatted citations and BibTeX.
 */
import type { RecordView, Slicing } from '@krs/domain';
import { textOf } from '../html-text.ts';
import type { Links } from '../links.ts';
import { label, list, obj, str } from '../metadata-view.ts';
import { flatMapInTurns } from './lists-in-turns.ts';
import { typeNames } from './resource-types.ts';

export const CSL_JSON_TYPE = 'application/vnd.citationstyles.csl+json';

export type CslName = { family: string; given?: string } | { literal: string };
export interface CslItem {
  id: string;
  type: string;
  title: string;
  author?: CslName[];
  editor?: CslName[];
  issued?: { 'date-parts': number[][] };
  publisher?: string;
  DOI?: string;
  URL: string;
  version?: string;
  abstract?: string;
  keyword?: string;
  language?: string;
}

function name(entry: unknown): CslName[] {
  const p = obj(obj(entry)?.['person_or_org']);
  if (p === null) return [];
  const family = str(p['family_name']);
  const given = str(p['given_name']);
  if (family !== null) return [given !== null ? { family, given } : { family }];
  const literal = str(p['name']);
  return literal !== null ? [{ literal }] : [];
}

/** An EDTF date or interval (`2024`, `2024-09`, `2024-09-01`, `2020/2024`) as CSL date parts. */
export function dateParts(edtf: string | null): number[][] | null {
  if (edtf === null) return null;
  const parts = edtf.split('/').map((d) => {
    const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/.exec(d.trim());
    return m ? [m[1], m[2], m[3]].filter((x): x is string => x !== undefined).map(Number) : null;
  });
  return parts.every((p) => p !== null) && parts.length > 0 ? (parts as number[][]) : null;
}

/** The names `toCsl` makes of creators and editors, when made beforehand in turns. */
type CslNames = { author: CslName[]; editor: CslName[] };

const editorName = (c: unknown): CslName[] => (str(obj(obj(c)?.['role'])?.['id']) === 'editor' ? name(c) : []);

export function toCsl(view: RecordView, links: Links, made?: CslNames): CslItem {
  const r = view.record;
  const m = r.metadata as Record<string, unknown>;
  const doi = str(obj(r.pids['doi'])?.['identifier']);
  const issued = dateParts(str(m['publication_date']));
  const editors = made?.editor ?? list(m['contributors']).flatMap(editorName);
  const description = str(m['description']);
  const keywords = list(m['subjects']).flatMap((s) => str(obj(s)?.['subject']) ?? label(s) ?? []);
  const language = str(obj(list(m['languages'])[0])?.['id']);
  const publisher = str(m['publisher']);
  const version = str(m['version']);
  return {
    id: r.id,
    type: typeNames(view).csl,
    title: str(m['title']) ?? '',
    author: made?.author ?? list(m['creators']).flatMap(name),
    ...(editors.length > 0 ? { editor: editors } : {}),
    ...(issued ? { issued: { 'date-parts': issued } } : {}),
    ...(publisher ? { publisher } : {}),
    ...(doi ? { DOI: doi } : {}),
    URL: doi ? `https://doi.org/${doi}` : links.landing(r.kind, r.id),
    ...(version ? { version } : {}),
    ...(description ? { abstract: textOf(description) } : {}),
    ...(keywords.length > 0 ? { keyword: keywords.join(', ') } : {}),
    ...(language ? { language } : {}),
  };
}

/** `toCsl`, its names made a slice at a time. */
export async function toCslInTurns(view: RecordView, links: Links, slicing: Slicing): Promise<CslItem> {
  const m = view.record.metadata as Record<string, unknown>;
  const made = { author: await flatMapInTurns(list(m['creators']), name, slicing), editor: await flatMapInTurns(list(m['contributors']), editorName, slicing) };
  if (slicing.due()) await slicing.turn();
  return toCsl(view, links, made);
}
