import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError, type ErrorKind } from '@krs/domain';
import { errorResponse, methodNotAllowedResponse, notFoundResponse, STATUS_OF, toHttpError } from './errors.ts';

const EXPECTED: Record<ErrorKind, number> = {
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

describe('toHttpError', () => {
  it('maps every error kind to its status with a {status, message} body', () => {
    for (const [kind, status] of Object.entries(EXPECTED) as [ErrorKind, number][]) {
      const e = toHttpError(new DomainError(kind, 'x.y', `it is ${kind}`));
      expect(e.status).toBe(status);
      expect(e.body).toEqual({ status, message: `it is ${kind}` });
    }
    expect(STATUS_OF).toEqual(EXPECTED);
  });

  it('adds WWW-Authenticate: Bearer to 401 only', () => {
    expect(toHttpError(new DomainError('unauthenticated', 'auth.required', 'Authentication is required.')).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(toHttpError(new DomainError('forbidden', 'permission.denied', 'Permission denied.')).headers).toEqual({});
  });

  it('lists field problems under errors, and leaves errors out when there are none', () => {
    const details = [{ field: 'metadata.creators.0.person_or_org.family_name', messages: ['Missing data for required field.'] }];
    expect(toHttpError(new DomainError('invalid', 'draft.invalid', 'A validation error occurred.', details)).body).toEqual({
      status: 400,
      message: 'A validation error occurred.',
      errors: details,
    });
    expect(toHttpError(new DomainError('invalid', 'draft.invalid', 'A validation error occurred.', [])).body).not.toHaveProperty('errors');
  });

  it('answers a concurrent revision conflict 412 when the request carried If-Match, else 409', () => {
    const race = new DomainError('conflict', 'revision.mismatch', 'The record was changed by someone else.');
    expect(toHttpError(race, { hasIfMatch: true }).status).toBe(412);
    expect(toHttpError(race, { hasIfMatch: false }).status).toBe(409);
    expect(toHttpError(race).status).toBe(409);
    expect(toHttpError(new DomainError('conflict', 'other.conflict', 'x'), { hasIfMatch: true }).status).toBe(409);
    expect(toHttpError(new DomainError('precondition_failed', 'revision.mismatch', 'x')).status).toBe(412);
  });

  it('answers a full disk or quota 507, from the file system, SQLite or PostgreSQL, wrapped or not', () => {
    const full = (code: string) => Object.assign(new Error('no space'), { code });
    for (const err of [full('ENOSPC'), full('EDQUOT'), full('SQLITE_FULL'), full('53100'), new Error('write failed', { cause: full('ENOSPC') })]) {
      expect(toHttpError(err)).toEqual({ status: 507, body: { status: 507, message: expect.stringContaining('no room left') }, headers: {} });
    }
    expect(toHttpError(full('EACCES')).status).toBe(500);
  });

  it("answers 507 when the object store says it is full or over its quota, not 503 for its 5xx", () => {
    const s3 = (name: string, httpStatusCode: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });
    for (const err of [s3('XMinioStorageFull', 507), s3('QuotaExceeded', 403), s3('InsufficientStorage', 507), s3('SomethingElse', 507)]) {
      expect(toHttpError(err).status).toBe(507);
    }
    expect(toHttpError(s3('AccessDenied', 403)).status).toBe(500);
  });

  it('answers 503 with Retry-After when PostgreSQL or S3 does not answer, wrapped or not; other failures stay 500', () => {
    const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
    const unavailable = [
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      coded('ECONNRESET'),
      coded('ETIMEDOUT'),
      coded('57P01', 'terminating connection due to administrator command'),
      coded('08006', 'connection failure'),
      coded('53300', 'sorry, too many clients already'),
      coded('57014', 'canceling statement due to statement timeout'),
      coded('25P03', 'terminating connection due to idle-in-transaction timeout'),
      Object.assign(new Error('PostgreSQL did not answer a statement within 25000 ms; its connection was closed.'), { name: 'StatementTimedOut', code: 'ETIMEDOUT' }),
      Object.assign(new Error('the request socket timed out after 10000 ms of inactivity'), { name: 'TimeoutError', $metadata: { attempts: 2 } }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated due to connection timeout'),
      Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }),
      new Error('query failed', { cause: coded('ECONNREFUSED') }),
    ];
    for (const err of unavailable) {
      expect(toHttpError(err)).toEqual({ status: 503, body: { status: 503, message: expect.stringContaining('cannot reach its database or file storage') }, headers: { 'Retry-After': '5' } });
    }
    expect(toHttpError(coded('23505', 'duplicate key value')).status).toBe(500);
    expect(toHttpError(Object.assign(new Error('Access Denied'), { $metadata: { httpStatusCode: 403 } })).status).toBe(500);
  });

  it('hides unknown errors behind a 500', () => {
    const boom = new Error('secret detail');
    expect(toHttpError(boom)).toEqual({ status: 500, body: { status: 500, message: 'Internal server error.' }, headers: {} });
  });

  it("keeps the status of Hono's own client errors, in our body shape", () => {
    expect(toHttpError(new HTTPException(400, { message: 'Malformed JSON in request body' }))).toEqual({
      status: 400,
      body: { status: 400, message: 'Malformed JSON in request body' },
      headers: {},
    });
  });
});

describe('responses', () => {
  const app = new Hono();
  app.get('/stale', () => {
    throw new DomainError('conflict', 'revision.mismatch', 'stale');
  });
  app.get('/who', () => {
    throw new DomainError('unauthenticated', 'auth.invalid_token', 'The access token is invalid or was revoked.');
  });
  app.all('/only-get', (c) => (c.req.method === 'GET' ? c.json({}) : methodNotAllowedResponse(c, ['GET', 'HEAD'])));
  app.notFound((c) => notFoundResponse(c));
  app.onError((err, c) => errorResponse(err, c));

  it('errorResponse reads If-Match from the request and writes JSON with the headers', async () => {
    const withIfMatch = await app.request('/stale', { headers: { 'if-match': '"3"' } });
    expect(withIfMatch.status).toBe(412);
    expect(await withIfMatch.json()).toEqual({ status: 412, message: 'stale' });
    expect((await app.request('/stale')).status).toBe(409);
    const who = await app.request('/who');
    expect(who.status).toBe(401);
    expect(who.headers.get('www-authenticate')).toBe('Bearer');
    expect(who.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers unknown routes 404 and wrong methods 405 with JSON bodies', async () => {
    const missing = await app.request('/nowhere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ status: 404, message: 'Not found.' });
    const wrong = await app.request('/only-get', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(await wrong.json()).toEqual({ status: 405, message: 'Method not allowed.' });
  });
});
