import { describe, expect, it } from 'vitest';
import { isDomainError } from '@krs/domain';
import { negotiate } from './accept.ts';

describe('negotiate', () => {
  it('serves plain JSON when Accept is missing, empty, a wildcard or application/json', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', 'application/json', 'application/json; charset=utf-8']) {
      expect(negotiate(accept)).toEqual({ contentType: 'application/json', ui: false });
    }
  });

  it('serves the UI form for both vendor types and echoes the type asked for', () => {
    expect(negotiate('application/vnd.service.v1+json')).toEqual({ contentType: 'application/vnd.service.v1+json', ui: true });
    expect(negotiate('application/vnd.inveniordm.v1+json')).toEqual({ contentType: 'application/vnd.inveniordm.v1+json', ui: true });
    expect(negotiate('APPLICATION/VND.SERVICE.V1+JSON')).toEqual({ contentType: 'application/vnd.service.v1+json', ui: true });
  });

  it('follows q values and skips types it cannot serve', () => {
    expect(negotiate('application/json;q=0.5, application/vnd.service.v1+json').ui).toBe(true);
    expect(negotiate('application/vnd.service.v1+json;q=0.2, application/json;q=0.9').ui).toBe(false);
    expect(negotiate('text/html, application/json;q=0.1').contentType).toBe('application/json');
    // The most specific range decides a type's weight: q=0 on the vendor type leaves the wildcard to JSON.
    expect(negotiate('application/vnd.service.v1+json;q=0, */*')).toEqual({ contentType: 'application/json', ui: false });
    expect(negotiate('application/json;q=0, application/vnd.service.v1+json;q=0.1').ui).toBe(true);
  });

  it('refuses what it cannot serve with a not_acceptable error (406)', () => {
    for (const accept of ['text/html', 'application/xml, text/plain', 'application/json;q=0', 'application/json;q=0, */*', 'application/json;Q=0, application/*;q=0.5', '*/*;q=0.0']) {
      let thrown: unknown;
      try {
        negotiate(accept);
      } catch (e) {
        thrown = e;
      }
      expect(isDomainError(thrown) && thrown.kind).toBe('not_acceptable');
    }
  });
});
