/** `Accept` negotiation: JSON by default, the UI-enriched vendor types on request, 406 otherwise. */
import { DomainError } from '@krs/domain';

export const UI_TYPES = ['application/vnd.service.v1+json', 'application/vnd.inveniordm.v1+json'];

export interface Negotiated {
  contentType: string;
  ui: boolean;
  /** One of the `alternates` the caller offered (a record GET's export formats), when preferred. */
  alternate?: string;
}

export function negotiate(accept: string | undefined, options: { alternates?: readonly string[] } = {}): Negotiated {
  if (!accept || accept.trim() === '') return { contentType: 'application/json', ui: false };
  const wanted = accept
    .split(',')
    .map((part) => {
      const [type = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { type } of wanted) {
    if (UI_TYPES.includes(type)) return { contentType: type, ui: true };
    if (options.alternates?.includes(type)) return { contentType: type, ui: false, alternate: type };
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return { contentType: 'application/json', ui: false };
  }
  const offered = ['application/json', UI_TYPES[0], ...(options.alternates ?? [])].join(', ');
  throw new DomainError('not_acceptable', 'request.accept', `Cannot answer with ${accept.slice(0, 200)}; use one of ${offered}.`);
}
