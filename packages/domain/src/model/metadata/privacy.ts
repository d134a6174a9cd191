/**
 * People's e-mail addresses (GEO's `person_or_org.email`) are stored with the record, so a new
 * version or an edit keeps them, but they are shown only to those who may edit the record: every
 * published view, listing, search document and export goes through this first.
 */
import type { Metadata } from '../types.ts';
import { isLarge, markLarge } from '../../turns/large-values.ts';

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function peopleWithoutEmails(people: unknown): unknown {
  if (!Array.isArray(people)) return people;
  return people.map((p) => {
    if (!isObj(p) || !isObj(p['person_or_org']) || !('email' in p['person_or_org'])) return p;
    const { email: _email, ...person } = p['person_or_org'];
    return { ...p, person_or_org: person };
  });
}

export function withoutEmails(metadata: Metadata): Metadata {
  if (!Array.isArray(metadata['creators']) && !Array.isArray(metadata['contributors'])) return metadata;
  const out: Metadata = { ...metadata };
  if ('creators' in out) out['creators'] = peopleWithoutEmails(out['creators']);
  if ('contributors' in out) out['contributors'] = peopleWithoutEmails(out['contributors']);
  // The copy of a large record's metadata is as large: answers and exports still take turns with it.
  if (isLarge(metadata)) markLarge(out);
  return out;
}
