/** Drafts, publication, versions and records of one kind, mounted at /api/records or /api/packages. */
import { Hono } from 'hono';
import { anonymousReadStamp, ownerDraftReadStamp, type Core, type RecordKind } from '@krs/domain';
import { noteReadStamp } from '../fast-path/read-stamps.ts';
import type { Responder } from '../respond.ts';
import { serializeExpanded } from '../serialize.ts';
import { answerOf } from '../answer-memory.ts';
import { validate } from '../validate.ts';
import { identityOf, ifMatch, type Env } from './request.ts';
import { draftBody, listingQuery, versionsQuery, toDraftInput, toListingInput } from './schemas.ts';

export function recordRoutes(core: Core, kind: RecordKind, respond: Responder) {
  return new Hono<Env>()
    .post('/', validate('json', draftBody), async (c) => {
      const input = toDraftInput(c.req.valid('json'));
      const identity = identityOf(c);
      const view = await core.records.createDraft(identity, kind, input);
      // The spec shows `expanded` on the package create-draft response only.
      return respond.record(c, view, 201, kind === 'package' ? { expanded: serializeExpanded(view, identity.userId) } : undefined);
    })
    .get('/', validate('query', listingQuery), async (c) => {
      const input = toListingInput(c.req.valid('query'), (n) => c.req.queries(n), answerOf(c));
      const page = await core.records.search(identityOf(c), [kind], input);
      noteReadStamp(c, page.readStamp);
      return respond.list(c, page);
    })
    .get('/:id/draft', async (c) => {
      const identity = identityOf(c);
      const view = await core.records.getDraft(identity, kind, c.req.param('id'), answerOf(c));
      noteReadStamp(c, ownerDraftReadStamp(identity, view));
      return respond.record(c, view);
    })
    .put('/:id/draft', validate('json', draftBody), async (c) => {
      const view = await core.records.updateDraft(identityOf(c), kind, c.req.param('id'), toDraftInput(c.req.valid('json')), ifMatch(c));
      return respond.record(c, view);
    })
    .post('/:id/draft', async (c) => respond.record(c, await core.records.edit(identityOf(c), kind, c.req.param('id')), 201))
    .post('/:id/draft/pids/doi', async (c) => respond.record(c, await core.records.reserveDoi(identityOf(c), kind, c.req.param('id')), 201))
    .delete('/:id/draft', async (c) => {
      await core.records.deleteDraft(identityOf(c), kind, c.req.param('id'), ifMatch(c));
      return c.body(null, 204);
    })
    .post('/:id/draft/actions/publish', async (c) =>
      respond.record(c, await core.records.publish(identityOf(c), kind, c.req.param('id'), ifMatch(c)), 202),
    )
    .get('/:id', async (c) => {
      const view = await core.records.get(identityOf(c), kind, c.req.param('id'), answerOf(c));
      // The answer may be kept for the fast path, under the stamp of what it was built from.
      noteReadStamp(c, anonymousReadStamp(view));
      return respond.record(c, view);
    })
    .post('/:id/versions', async (c) => respond.record(c, await core.records.newVersion(identityOf(c), kind, c.req.param('id')), 201))
    .get('/:id/versions', validate('query', versionsQuery), async (c) => {
      const page = await core.records.versions(identityOf(c), kind, c.req.param('id'), { ...c.req.valid('query'), memory: answerOf(c) });
      return respond.list(c, page);
    })
    .get('/:id/versions/latest', async (c) => respond.record(c, await core.records.latest(identityOf(c), kind, c.req.param('id'))));
}
