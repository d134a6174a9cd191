/** `Accept` negotiation: JSON by default, the UI-enriched vendor types on request, 406 otherwise. */
import { DomainError } from '@krs/domain';

export const UI_TYPES = ['application/vnd.service.v1+json', 'application/vnd.inveniordm.v1+json'];

export interface Negotiated {
  contentType: string;
  ui: boolean;
  /** One of the `alternates` the caller offered (a record GET's export formats), when preferred. */
  alternate?: string;
}

interface MediaRange {
  type: string;
  q: number;
}

/** The ranges of an Accept field with their weights (a `q` that is no number in 0..1 counts as 1). */
function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => /^q\s*=/i.test(p));
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
    return { type: type.trim().toLowerCase(), q: Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 1 };
  });
}

/**
 * The weight Accept gives `type`: that of the most specific range naming it (RFC 9110 12.5.1),
 * so `application/json;q=0` beside the any-type wildcard refuses JSON, which the wildcard alone would take.
 */
function weightOf(type: string, ranges: readonly MediaRange[]): number {
  const family = `${type.slice(0, type.indexOf('/'))}/*`;
  for (const name of [type, family, '*/*']) {
    const range = ranges.find((r) => r.type === name);
    if (range !== undefined) return range.q;
  }
  return 0;
}

export function negotiate(accept: string | undefined, options: { alternates?: readonly string[] } = {}): Negotiated {
  if (!accept || accept.trim() === '') return { contentType: 'application/json', ui: false };
  const ranges = mediaRanges(accept);
  const acceptable = (type: string) => weightOf(type, ranges) > 0;
  // Ranges in order of preference, the first listed first among equals; a wildcard stands for
  // plain JSON, the default representation, and for nothing else.
  for (const { type } of ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q)) {
    if (UI_TYPES.includes(type)) return { contentType: type, ui: true };
    if (options.alternates?.includes(type)) return { contentType: type, ui: false, alternate: type };
    if ((type === 'application/json' || type === 'application/*' || type === '*/*') && acceptable('application/json')) return { contentType: 'application/json', ui: false };
  }
  const offered = ['application/json', UI_TYPES[0], ...(options.alternates ?? [])].join(', ');
  throw new DomainError('not_acceptable', 'request.accept', `Cannot answer with ${accept.slice(0, 200)}; use one of ${offered}.`);
}
