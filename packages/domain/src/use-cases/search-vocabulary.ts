/**
 * Reading vocabularies as InvenioRDM's vocabulary API serves them to deposit forms: a page of a
 * type's entries (filtered by words and by prefixes typed so far), or one entry.
 */
import { invalid, notFound } from '../errors.ts';
import type { VocabularyEntry, VocabularyType } from '../model/types.ts';
import { defaultEntries } from '../vocabularies/defaults.ts';
import { vocabularyTypeOf } from '../vocabularies/vocabulary-ids.ts';
import { createVocabularyLookup } from '../vocabularies/vocabulary-lookup.ts';
import { filterOf, keyedInOrder, pageOfKeyed, type KeyedEntry, type VocabularyPage } from '../vocabularies/vocabulary-listing.ts';
import type { CoreDeps } from './deps.ts';
import { RESULT_WINDOW, resolvePaging } from './listing-params.ts';

export interface VocabularyListingInput {
  q?: string | null;
  suggest?: string | null;
  /** Keeps entries carrying any of these tags (none: no tag filter). */
  tags?: readonly string[];
  sort?: string | null;
  page?: number;
  size?: number;
}

export interface VocabularyListing {
  /** The vocabulary id as asked (`creatorsroles` and `contributorsroles` list the same entries). */
  vocabulary: string;
  hits: VocabularyEntry[];
  /** At most RESULT_WINDOW, the deepest any page reaches. */
  total: number;
  page: number;
  size: number;
  sortBy: VocabularySort;
}

/**
 * InvenioRDM's vocabulary sorts less `newest`/`oldest` (entries here keep no dates). Matching
 * is by words and prefixes without a score, so `bestmatch` is title order too.
 */
const SORTS = ['bestmatch', 'title'] as const;
export type VocabularySort = 'title';

function typeOf(vocabularyId: string): VocabularyType {
  const type = vocabularyTypeOf(vocabularyId);
  if (type === undefined) throw notFound('vocabulary.unknown', `There is no vocabulary "${vocabularyId}".`);
  return type;
}

/** Tags one listing may ask for, and their length: InvenioRDM's forms ask for one or two. */
export const MAX_VOCABULARY_TAGS = 20;
export const MAX_VOCABULARY_TAG_LENGTH = 200;

function resolveTags(tags: readonly string[] = []): readonly string[] {
  if (tags.length > MAX_VOCABULARY_TAGS || tags.some((t) => t.length > MAX_VOCABULARY_TAG_LENGTH)) {
    throw invalid('request.query', 'Invalid querystring parameters.', [
      { field: 'tags', messages: [`At most ${MAX_VOCABULARY_TAGS} tags of at most ${MAX_VOCABULARY_TAG_LENGTH} characters each.`] },
    ]);
  }
  return tags;
}

function resolveSort(sort: string | null | undefined): VocabularySort {
  if (sort === undefined || sort === null || sort === '' || (SORTS as readonly string[]).includes(sort)) return 'title';
  throw invalid('search.sort', 'Invalid querystring parameters.', [
    { field: '_schema', messages: [`Invalid sort option "${sort}"; use one of: ${SORTS.join(', ')}.`] },
  ]);
}

/** The shipped defaults of a type with their keys, built on first listing. */
const keyedDefaults = new Map<VocabularyType, KeyedEntry[]>();

function defaultsInOrder(type: VocabularyType): KeyedEntry[] {
  let keyed = keyedDefaults.get(type);
  if (keyed === undefined) keyedDefaults.set(type, (keyed = keyedInOrder(defaultEntries(type))));
  return keyed;
}

/**
 * A type lists its imported entries once it has any (an import is the curated list a picker
 * should offer); until then, its shipped defaults, so a fresh server's form still has choices.
 */
export async function searchVocabulary(deps: CoreDeps, vocabularyId: string, input: VocabularyListingInput): Promise<VocabularyListing> {
  const type = typeOf(vocabularyId);
  const { page, size } = resolvePaging(input);
  const sortBy = resolveSort(input.sort);
  const query = { ...filterOf(input.q, input.suggest, resolveTags(input.tags)), offset: (page - 1) * size, limit: size, countLimit: RESULT_WINDOW };
  let found: VocabularyPage = await deps.repos.vocabularies.page(type, query);
  if (found.total === 0 && (await deps.repos.vocabularies.count(type)) === 0) found = pageOfKeyed(defaultsInOrder(type), query);
  return { vocabulary: vocabularyId, hits: found.entries, total: found.total, page, size, sortBy };
}

/** One entry as record metadata resolves it: imported first, else shipped. */
export async function getVocabularyEntry(deps: CoreDeps, vocabularyId: string, id: string): Promise<VocabularyEntry> {
  const type = typeOf(vocabularyId);
  const entry = (await createVocabularyLookup(deps.repos.vocabularies).get(type, [id])).get(id);
  if (entry === undefined) throw notFound('vocabulary.entry_not_found', `There is no entry "${id}" in the vocabulary "${vocabularyId}".`);
  return entry;
}
