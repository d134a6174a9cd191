/** What packages add: the context, draft resources, resources-import and resource listings. */
import { Hono } from 'hono';
import type { Core } from '@krs/domain';
import type { Links } from '../links.ts';
import type { Responder } from '../respond.ts';
import { answerOf } from '../answer-memory.ts';
import { validate } from '../validate.ts';
import { identityOf, type Env } from './request.ts';
import { listingQuery, recordsBody, resourcesBody, toListingInput } from './schemas.ts';

export function packageRoutes(core: Core, respond: Responder, links: Links) {
  return new Hono<Env>()
    .get('/context/:parentId/resources', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), () => undefined, answerOf(c));
      return respond.list(c, await core.packages.contextResources(identityOf(c), c.req.param('parentId'), input), { withLinks: false });
    })
    .post('/:id/context/actions/associate', validate('json', recordsBody), async (c) => {
      await core.packages.associate(identityOf(c), c.req.param('id'), c.req.valid('json').records.map((r) => r.id));
      return c.body(null, 204);
    })
    .post('/:id/context/actions/dissociate', validate('json', recordsBody), async (c) => {
      await core.packages.dissociate(identityOf(c), c.req.param('id'), c.req.valid('json').records.map((r) => r.id));
      return c.body(null, 204);
    })
    .get('/:id/draft/resources', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), () => undefined, answerOf(c));
      return respond.list(c, await core.packages.draftResources(identityOf(c), c.req.param('id'), input), { withLinks: false });
    })
    .post('/:id/draft/resources', validate('json', resourcesBody), async (c) => {
      const errors = await core.packages.addResources(identityOf(c), c.req.param('id'), c.req.valid('json').resources.map((r) => r.id));
      return c.json({ errors });
    })
    .delete('/:id/draft/resources', validate('json', resourcesBody), async (c) => {
      const errors = await core.packages.removeResources(identityOf(c), c.req.param('id'), c.req.valid('json').resources.map((r) => r.id));
      return c.json({ errors });
    })
    .post('/:id/draft/actions/resources-import', async (c) => {
      await core.packages.importResources(identityOf(c), c.req.param('id'));
      return c.body(null, 204);
    })
    .get('/:id/requests', async (c) => {
      const { view, requests } = await core.packages.requests(identityOf(c), c.req.param('id'));
      const self = links.record('package', view.record.id, view.parent.id, 'published')['requests'] as string;
      return c.json({ aggregations: {}, hits: { hits: requests, total: requests.length }, links: { self }, sortBy: 'newest' });
    })
    .get('/:id/draft/review', async (c) => core.packages.review(identityOf(c), c.req.param('id')))
    .get('/:id/resources', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), () => undefined, answerOf(c));
      return respond.list(c, await core.packages.publishedResources(identityOf(c), c.req.param('id'), input), { withLinks: false });
    });
}
