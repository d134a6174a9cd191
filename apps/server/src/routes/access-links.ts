/** Access links of a record or package (owners only). */
import { Hono } from 'hono';
import type { Core, RecordKind } from '@krs/domain';
import { negotiate } from '../accept.ts';
import { serializeAccessLink } from '../serialize.ts';
import { validate } from '../validate.ts';
import { identityOf, type Env } from './request.ts';
import { accessLinkBody } from './schemas.ts';

export function accessLinkRoutes(core: Core, kind: RecordKind) {
  return new Hono<Env>()
    .use(async (c, next) => {
      negotiate(c.req.header('accept'));
      await next();
    })
    .post('/:id/access/links', validate('json', accessLinkBody), async (c) => {
      const body = c.req.valid('json');
      const view = await core.accessLinks.create(identityOf(c), kind, c.req.param('id'), { permission: body.permission, expiresAt: body.expires_at });
      return c.json(serializeAccessLink(view), 201);
    })
    .get('/:id/access/links', async (c) => {
      const views = await core.accessLinks.list(identityOf(c), kind, c.req.param('id'));
      return c.json({ hits: { hits: views.map(serializeAccessLink), total: views.length } });
    })
    .get('/:id/access/links/:linkId', async (c) =>
      c.json(serializeAccessLink(await core.accessLinks.get(identityOf(c), kind, c.req.param('id'), c.req.param('linkId')))),
    )
    .patch('/:id/access/links/:linkId', validate('json', accessLinkBody), async (c) => {
      const body = c.req.valid('json');
      const view = await core.accessLinks.update(identityOf(c), kind, c.req.param('id'), c.req.param('linkId'), {
        permission: body.permission,
        expiresAt: body.expires_at,
      });
      return c.json(serializeAccessLink(view));
    })
    .delete('/:id/access/links/:linkId', async (c) => {
      await core.accessLinks.delete(identityOf(c), kind, c.req.param('id'), c.req.param('linkId'));
      return c.body(null, 204);
    });
}
