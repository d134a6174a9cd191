/**
 * OAI-PMH 2.0 requests: the verb and its arguments checked as the protocol says (section 3.1),
 * each problem named by its error code. Pure: no data access.
 */

export const VERBS = ['Identify', 'ListMetadataFormats', 'ListSets', 'ListIdentifiers', 'ListRecords', 'GetRecord'] as const;
export type Verb = (typeof VERBS)[number];

export type OaiErrorCode =
  | 'badArgument'
  | 'badResumptionToken'
  | 'badVerb'
  | 'cannotDisseminateFormat'
  | 'idDoesNotExist'
  | 'noRecordsMatch'
  | 'noMetadataFormats'
  | 'noSetHierarchy';

export class OaiError extends Error {
  constructor(
    readonly code: OaiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Arguments each verb takes: required, optional, and the exclusive one (a token replaces all others). */
const SHAPES: Record<Verb, { required: string[]; optional: string[]; exclusive?: string }> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken' },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
};

export interface OaiRequest {
  verb: Verb;
  args: Record<string, string>;
}

const isVerb = (v: string): v is Verb => (VERBS as readonly string[]).includes(v);

/** Every pair as sent (query string or form body), repeats kept: a repeated argument is an error. */
export function parseRequest(pairs: readonly [string, string][]): OaiRequest {
  const verbs = pairs.filter(([k]) => k === 'verb');
  const verb = verbs[0]?.[1];
  if (verbs.length !== 1 || verb === undefined) throw new OaiError('badVerb', verbs.length === 0 ? 'The request names no verb.' : 'The verb argument is repeated.');
  if (!isVerb(verb)) throw new OaiError('badVerb', `"${verb.slice(0, 100)}" is not an OAI-PMH verb.`);
  const shape = SHAPES[verb];
  const args: Record<string, string> = {};
  for (const [key, value] of pairs) {
    if (key === 'verb') continue;
    const known = shape.required.includes(key) || shape.optional.includes(key) || key === shape.exclusive;
    if (!known) throw new OaiError('badArgument', `${verb} takes no argument "${key.slice(0, 100)}".`);
    if (key in args) throw new OaiError('badArgument', `The argument "${key}" is repeated.`);
    args[key] = value;
  }
  if (shape.exclusive !== undefined && shape.exclusive in args) {
    if (Object.keys(args).length > 1) throw new OaiError('badArgument', `${shape.exclusive} is an exclusive argument: it comes alone with the verb.`);
    return { verb, args };
  }
  for (const key of shape.required) if (!(key in args)) throw new OaiError('badArgument', `${verb} requires the argument "${key}".`);
  return { verb, args };
}

/** A datestamp bound at the repository's granularity: a day, or a second in UTC. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export interface DateRange {
  from?: string;
  until?: string;
}

function instant(text: string, end: boolean): { iso: string; granularity: 'day' | 'second' } {
  const day = DAY.exec(text);
  const second = day === null ? SECOND.exec(text) : null;
  const parts = day ?? second;
  if (parts === null) throw new OaiError('badArgument', `"${text.slice(0, 100)}" is neither YYYY-MM-DD nor YYYY-MM-DDThh:mm:ssZ.`);
  const iso = day !== null ? `${text}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : `${text.slice(0, 19)}.${end ? '999' : '000'}Z`;
  // Date.parse accepts 2026-02-30; a round trip does not.
  const parsed = new Date(iso);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString() !== iso) throw new OaiError('badArgument', `"${text.slice(0, 100)}" is not a date.`);
  return { iso, granularity: day !== null ? 'day' : 'second' };
}

/** from/until as inclusive ISO bounds; the two must share a granularity and be in order. */
export function dateRange(args: Record<string, string>): DateRange {
  const from = args['from'] === undefined ? undefined : instant(args['from'], false);
  const until = args['until'] === undefined ? undefined : instant(args['until'], true);
  if (from && until) {
    if (from.granularity !== until.granularity) throw new OaiError('badArgument', 'from and until must have the same granularity.');
    if (from.iso > until.iso) throw new OaiError('badArgument', 'from is later than until.');
  }
  return { ...(from ? { from: from.iso } : {}), ...(until ? { until: until.iso } : {}) };
}

/** The datestamp of an ISO instant at the repository's granularity (seconds). */
export const datestamp = (iso: string): string => `${iso.slice(0, 19)}Z`;
