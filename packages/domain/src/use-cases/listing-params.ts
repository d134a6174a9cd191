/** The paging and sorting rules every listing shares (API-DECISIONS "Search and listings"). */
import { invalid } from '../errors.ts';
import type { AnswerMemory, SortOption } from '../ports.ts';

export interface ListingInput {
  q?: string | null;
  bbox?: string | null;
  sort?: string | null;
  page?: number;
  size?: number;
  allVersions?: boolean;
  facets?: { resource_type?: string[]; access_status?: string[]; record_type?: string[] };
  /** What this answer may hold, the host's bound (AnswerMemory); without one, each page is bounded on its own only. */
  memory?: AnswerMemory;
}

export type ListingKind = 'search' | 'user' | 'versions';

const SORTS: Record<ListingKind, readonly SortOption[]> = {
  search: ['bestmatch', 'newest', 'oldest', 'version'],
  user: ['bestmatch', 'newest', 'oldest', 'version', 'updated-desc', 'updated-asc'],
  versions: ['bestmatch', 'newest', 'oldest', 'version', 'updated-desc', 'updated-asc'],
};

const DEFAULT_SORT: Record<ListingKind, SortOption> = { search: 'newest', user: 'updated-desc', versions: 'version' };

export const MAX_PAGE_SIZE = 1000;
export const RESULT_WINDOW = 10000;

export interface Paging {
  page: number;
  size: number;
}

export function resolvePaging(input: { page?: number; size?: number }): Paging {
  const page = input.page ?? 1;
  const size = input.size ?? 10;
  const messages: string[] = [];
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) messages.push(`size must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
  if (!Number.isInteger(page) || page < 1) messages.push('page must be an integer from 1.');
  else if (messages.length === 0 && page * size > RESULT_WINDOW) messages.push(`page * size must not exceed ${RESULT_WINDOW}.`);
  if (messages.length > 0) throw invalid('search.paging', 'Invalid querystring parameters.', [{ field: '_schema', messages }]);
  return { page, size };
}

/** `bestmatch` without a query falls back to the listing's default; `sortBy` reports what was used. */
export function resolveSort(kind: ListingKind, sort: string | null | undefined, q: string | null): SortOption {
  const hasQuery = q !== null && q.trim() !== '';
  if (sort === undefined || sort === null || sort === '') return hasQuery && kind !== 'versions' ? 'bestmatch' : DEFAULT_SORT[kind];
  if (!(SORTS[kind] as readonly string[]).includes(sort)) {
    throw invalid('search.sort', 'Invalid querystring parameters.', [
      { field: '_schema', messages: [`Invalid sort option "${sort}"; use one of: ${SORTS[kind].join(', ')}.`] },
    ]);
  }
  return sort === 'bestmatch' && !hasQuery ? DEFAULT_SORT[kind] : (sort as SortOption);
}
