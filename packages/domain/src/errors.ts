/**
 * Every failure the domain reports. `kind` decides the HTTP status (one table in the server);
 * `code` is stable and dotted so clients and tests can tell failures apart.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'too_large'
  | 'unsupported_media_type'
  | 'not_acceptable'
  | 'range_not_satisfiable';

/** A problem with one field; `field` is a dotted path with list indexes as numbers, `_schema` when none applies. */
export interface FieldIssue {
  field: string;
  messages: string[];
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly details: FieldIssue[] | undefined;

  constructor(kind: ErrorKind, code: string, message: string, details?: FieldIssue[]) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.code = code;
    this.details = details;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const invalid = (code: string, message: string, details?: FieldIssue[]) =>
  new DomainError('invalid', code, message, details);
export const notFound = (code: string, message = 'The persistent identifier does not exist.') =>
  new DomainError('not_found', code, message);
export const forbidden = (code = 'permission.denied', message = 'Permission denied.') =>
  new DomainError('forbidden', code, message);
export const unauthenticated = (code = 'auth.required', message = 'Authentication is required.') =>
  new DomainError('unauthenticated', code, message);

/** Merges issues on the same field so each path appears once, in first-seen order. */
export function mergeIssues(issues: FieldIssue[]): FieldIssue[] {
  const byField = new Map<string, string[]>();
  for (const issue of issues) {
    const messages = byField.get(issue.field) ?? [];
    for (const m of issue.messages) if (!messages.includes(m)) messages.push(m);
    byField.set(issue.field, messages);
  }
  return [...byField].map(([field, messages]) => ({ field, messages }));
}
