/**
 * InvenioRDM's vocabulary API, read-only and public: what deposit forms fill their pickers and
 * autocomplete fields from. Also at the paths InvenioRDM gives some vocabularies of their own.
 */
import { Hono, type Context } from 'hono';
import type { Core, VocabularyEntry, VocabularyListing } from '@krs/domain';
import type { Links } from '../links.ts';
import { validate } from '../validate.ts';
import type { Env } from './request.ts';
import { listingQuery } from './schemas.ts';

const vocabularyQuery = listingQuery.pick({ q: true, sort: true, size: true, page: true }).extend({ suggest: listingQuery.shape.q });

/** InvenioRDM's own paths for vocabularies krs holds (`/api/subjects`, `/api/affiliations`); their hits link there too. */
const ALIASES = ['subjects', 'affiliations'] as const;

/** An entry as InvenioRDM serializes a vocabulary hit: `props` and `tags` always, the rest when the entry has them. */
function serializeEntry(entry: VocabularyEntry, vocabulary: string, self: string) {
  return {
    id: entry.id,
    type: vocabulary,
    title: entry.title,
    ...(entry.description && Object.values(entry.description).some((d) => d !== '') ? { description: entry.description } : {}),
    ...(entry.icon ? { icon: entry.icon } : {}),
    props: entry.props ?? {},
    tags: entry.tags ?? [],
    links: { self },
  };
}

export function vocabularyRoutes(core: Core, links: Links) {
  const list = async (c: Context<Env>, vocabulary: string, listing: string, query: { q?: string; suggest?: string; sort?: string; size?: number; page?: number }) => {
    const found: VocabularyListing = await core.vocabularies.search(vocabulary, query);
    const url = new URL(c.req.url);
    return c.json({
      hits: { hits: found.hits.map((e) => serializeEntry(e, vocabulary, links.vocabularyEntry(listing, e.id))), total: found.total },
      sortBy: found.sortBy,
      links: links.pageLinks(url.pathname, [...url.searchParams.entries()], found),
    });
  };
  const one = async (c: Context<Env>, vocabulary: string, listing: string, id: string) => {
    const entry = await core.vocabularies.getEntry(vocabulary, id);
    return c.json(serializeEntry(entry, vocabulary, links.vocabularyEntry(listing, entry.id)));
  };

  const app = new Hono<Env>()
    .get('/vocabularies/:type', validate('query', vocabularyQuery), (c) => {
      const type = c.req.param('type');
      return list(c, type, `vocabularies/${type}`, c.req.valid('query'));
    })
    .get('/vocabularies/:type/:id', (c) => {
      const type = c.req.param('type');
      return one(c, type, `vocabularies/${type}`, c.req.param('id'));
    });
  for (const alias of ALIASES) {
    app.get(`/${alias}`, validate('query', vocabularyQuery), (c) => list(c, alias, alias, c.req.valid('query')));
    app.get(`/${alias}/:id`, (c) => one(c, alias, alias, c.req.param('id')));
  }
  return app;
}
