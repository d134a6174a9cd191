/**
 * InvenioRDM's vocabulary API, read-only and public: what deposit forms fill their pickers and
 * autocomplete fields from. Also at the paths InvenioRDM gives some vocabularies of their own.
 */
import { Hono, type Context } from 'hono';
import { MAX_VOCABULARY_TAGS, MAX_VOCABULARY_TAG_LENGTH, type Core, type VocabularyEntry, type VocabularyListingInput } from '@krs/domain';
import { z } from 'zod';
import type { Links } from '../links.ts';
import { validate } from '../validate.ts';
import type { Env } from './request.ts';
import { listingQuery } from './schemas.ts';

/**
 * The listing parameters records take, less `bbox` and `allversions`, plus `suggest` and `tags`
 * (repeatable: entries carrying any of them, read with `queries`; the domain bounds them).
 */
export const vocabularyQuery = listingQuery
  .pick({ q: true, sort: true, size: true, page: true })
  .extend({
    suggest: listingQuery.shape.q,
    tags: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .meta({ description: `Keeps entries carrying this tag; repeat it for any of several (at most ${MAX_VOCABULARY_TAGS}, of at most ${MAX_VOCABULARY_TAG_LENGTH} characters each).` }),
  });

/** Every `tags` given: the schema passes only the first. */
const tagsOf = (c: Context<Env>): string[] => c.req.queries('tags') ?? [];

/** InvenioRDM's own paths for vocabularies krs holds (`/api/subjects`, `/api/affiliations`); their hits link there too. */
export const VOCABULARY_ALIASES = ['subjects', 'affiliations'] as const;

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
  const list = async (c: Context<Env>, vocabulary: string, listing: string, query: VocabularyListingInput) => {
    const found = await core.vocabularies.search(vocabulary, query);
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
    .get('/vocabularies/:vocabulary', validate('query', vocabularyQuery), (c) => {
      const vocabulary = c.req.param('vocabulary');
      return list(c, vocabulary, `vocabularies/${vocabulary}`, { ...c.req.valid('query'), tags: tagsOf(c) });
    })
    .get('/vocabularies/:vocabulary/:entryId', (c) => {
      const vocabulary = c.req.param('vocabulary');
      return one(c, vocabulary, `vocabularies/${vocabulary}`, c.req.param('entryId'));
    });
  for (const alias of VOCABULARY_ALIASES) {
    app.get(`/${alias}`, validate('query', vocabularyQuery), (c) => list(c, alias, alias, { ...c.req.valid('query'), tags: tagsOf(c) }));
    app.get(`/${alias}/:entryId`, (c) => one(c, alias, alias, c.req.param('entryId')));
  }
  return app;
}
