/** The vocabulary API's rows of the route description table (operations.ts). */
import { VOCABULARY_IDS } from '@krs/domain';
import { z } from 'zod';
import { VOCABULARY_ALIASES, vocabularyQuery } from '../routes/vocabularies.ts';
import type { Operation } from './operations.ts';

const i18n = z.record(z.string(), z.string()).meta({ description: 'Text by language code.' });

export const vocabularyEntry = z
  .looseObject({
    id: z.string(),
    type: z.string().meta({ description: 'The vocabulary id the entry was read under.' }),
    title: i18n,
    description: i18n.optional(),
    icon: z.string().optional(),
    props: z.record(z.string(), z.string()),
    tags: z.array(z.string()),
    links: z.object({ self: z.string() }),
  })
  .meta({ description: 'A vocabulary entry, as InvenioRDM serializes one.' });

export const vocabularyPage = z
  .object({
    hits: z.object({ hits: z.array(vocabularyEntry), total: z.number().int() }),
    sortBy: z.string(),
    links: z.object({ self: z.string(), prev: z.string().optional(), next: z.string().optional() }),
  })
  .meta({ description: 'A page of entries in title order, with links to the pages around it.' });

// 401: a bearer token that is not valid is refused even where none is needed.
const ERRORS = [400, 401, 404, 406, 500] as const;

function listAndItem(path: string, name: string, pathEnums?: Operation['pathEnums']): Operation[] {
  return [
    {
      method: 'get',
      path,
      summary: `List or autocomplete ${name}`,
      description: '`q` keeps entries having each word whole, `suggest` entries having a word that starts with each word typed; both ignore case and accents. `sort`: `title` or `bestmatch` (title order too).',
      tags: ['Vocabularies'],
      access: 'optional',
      query: vocabularyQuery,
      ...(pathEnums ? { pathEnums } : {}),
      responses: [{ status: 200, description: 'A page of entries.', body: { kind: 'json', schema: vocabularyPage } }],
      errors: ERRORS,
    },
    {
      method: 'get',
      path: `${path}/{entryId}`,
      summary: `One entry of ${name}`,
      tags: ['Vocabularies'],
      access: 'optional',
      ...(pathEnums ? { pathEnums } : {}),
      responses: [{ status: 200, description: 'The entry.', body: { kind: 'json', schema: vocabularyEntry } }],
      errors: ERRORS,
    },
  ];
}

export const vocabularyOperations: Operation[] = [
  ...listAndItem('/api/vocabularies/{vocabulary}', 'a vocabulary', { vocabulary: Object.keys(VOCABULARY_IDS) }),
  ...VOCABULARY_ALIASES.flatMap((alias) => listAndItem(`/api/${alias}`, alias)),
];
