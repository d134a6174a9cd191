/** The combined search and the signed-in user's listings. */
import { Hono } from 'hono';
import type { Core } from '@krs/domain';
import { noteReadStamp } from '../fast-path/read-stamps.ts';
import type { Responder } from '../respond.ts';
import { answerOf } from '../answer-memory.ts';
import { validate } from '../validate.ts';
import { identityOf, type Env } from './request.ts';
import { listingQuery, toListingInput } from './schemas.ts';

export function searchRoutes(core: Core, respond: Responder) {
  return new Hono<Env>()
    .get('/search', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), (n) => c.req.queries(n), answerOf(c));
      const page = await core.records.search(identityOf(c), ['resource', 'package'], input);
      noteReadStamp(c, page.readStamp);
      return respond.list(c, page);
    })
    .get('/user/records', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), (n) => c.req.queries(n), answerOf(c));
      return respond.list(c, await core.records.searchOwn(identityOf(c), 'resource', input));
    })
    .get('/user/packages', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), (n) => c.req.queries(n), answerOf(c));
      return respond.list(c, await core.records.searchOwn(identityOf(c), 'package', input));
    });
}
