/**
 * The one mapping from domain errors to HTTP. The table is a Record over every ErrorKind, so a
 * new kind does not compile until it has a status.
 */
import { isDomainError, type ErrorKind, type FieldIssue } from '@krs/domain';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  too_large: 413,
  unsupported_media_type: 415,
  not_acceptable: 406,
  range_not_satisfiable: 416,
};

export interface HttpError {
  status: number;
  body: { status: number; message: string; errors?: FieldIssue[] };
  headers: Record<string, string>;
}

export function toHttpError(err: unknown): HttpError {
  if (!isDomainError(err)) {
    console.error(err);
    return { status: 500, body: { status: 500, message: 'Internal server error.' }, headers: {} };
  }
  // A concurrent writer changed the row between our read and write: the client's copy is stale.
  const status = err.code === 'revision.mismatch' ? 412 : STATUS[err.kind];
  const headers: Record<string, string> = err.kind === 'unauthenticated' ? { 'WWW-Authenticate': 'Bearer' } : {};
  const body: HttpError['body'] = { status, message: err.message };
  if (err.details && err.details.length > 0) body.errors = err.details;
  return { status, body, headers };
}
