/**
 * `/api/iiif/<name>:<id>/...`: the IIIF Presentation documents a record's `self_iiif_*` links name
 * (exports/iiif.ts). Same access decisions as reading the record and its files; a draft's need
 * what reading the draft needs.
 */
import { Hono, type Context } from 'hono';
import { DomainError, type Core, type RecordKind } from '@krs/domain';
import { answerOf } from '../answer-memory.ts';
import { negotiate } from '../accept.ts';
import { IIIF_CONTEXT, iiifAnnotation, iiifCanvas, iiifManifest, iiifSequence, imagesOf, type IiifPlace } from '../exports/iiif.ts';
import type { Links } from '../links.ts';
import { identityOf, orIfNotFound, type Env } from './request.ts';

/**
 * The names links give (links.ts: `package:`, `package-draft:`, `record:`, `draft:`), and
 * `draft:record:`, which links gave before. Either kind answers under any name (ids are unique
 * across kinds); documents name it as links do.
 */
const IDENTIFIER = /^(draft:record|package-draft|package|record|draft):(.+)$/;
const DRAFT_NAMES = new Set(['draft:record', 'package-draft', 'draft']);
/** IIIF Presentation 2.1, section 6.1: JSON unless JSON-LD is asked for, then with the context as profile. */
const JSON_LD = 'application/ld+json';
export const IIIF_ALTERNATES = [JSON_LD];
const JSON_LD_ANSWER = `${JSON_LD};profile="${IIIF_CONTEXT}"`;

function answer(c: Context<Env>, document: object): Response {
  const asked = negotiate(c.req.header('accept'), { alternates: IIIF_ALTERNATES });
  c.header('Vary', 'Accept');
  return c.body(JSON.stringify(document), 200, { 'Content-Type': asked.alternate === JSON_LD ? JSON_LD_ANSWER : 'application/json' });
}

export function iiifRoutes(core: Core, links: Links) {
  /** The record an identifier names, of either kind (ids are unique across kinds), and its images. */
  async function resolve(c: Context<Env>) {
    const m = IDENTIFIER.exec(c.req.param('identifier') ?? '');
    if (!m) throw new DomainError('not_found', 'iiif.identifier', 'A IIIF identifier is package:<id>, package-draft:<id>, record:<id> or draft:<id>.');
    const state = DRAFT_NAMES.has(m[1] as string) ? 'draft' : 'published';
    const id = m[2] as string;
    const read = (kind: RecordKind) => (state === 'draft' ? core.records.getDraft(identityOf(c), kind, id, answerOf(c)) : core.records.get(identityOf(c), kind, id, answerOf(c)));
    const view = await orIfNotFound(() => read('package'), () => read('resource'));
    const kind = view.record.kind;
    const files = view.record.files.enabled ? await core.files.list(identityOf(c), kind, id, state) : null;
    const place: IiifPlace = {
      base: links.iiif(kind, id, state),
      page: links.record(kind, id, view.parent.id, state)['self_html'] as string,
      content: (key) => links.file(kind, id, state, key)['content'] as string,
    };
    return { view, place, images: files ? imagesOf(files.entries, files.options) : [] };
  }

  return new Hono<Env>()
    .get('/:identifier/manifest', async (c) => {
      const { view, place, images } = await resolve(c);
      return answer(c, iiifManifest(view, place, images));
    })
    .get('/:identifier/sequence/default', async (c) => {
      const { place, images } = await resolve(c);
      return answer(c, iiifSequence(place, images));
    })
    .get('/:identifier/canvas/:key', async (c) => {
      const { place, images } = await resolve(c);
      const image = images.find((i) => i.key === c.req.param('key'));
      if (!image) throw new DomainError('not_found', 'iiif.canvas', 'This record has no image of that name.');
      return answer(c, iiifCanvas(place, image));
    })
    .get('/:identifier/annotation/:key', async (c) => {
      const { place, images } = await resolve(c);
      const image = images.find((i) => i.key === c.req.param('key'));
      if (!image) throw new DomainError('not_found', 'iiif.annotation', 'This record has no image of that name.');
      return answer(c, iiifAnnotation(place, image));
    });
}
