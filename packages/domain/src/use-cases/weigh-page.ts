import { invalid } from '../errors.ts';
import { METADATA_LIMITS } from '../model/metadata/limits.ts';
import type { AnswerMemory } from '../ports.ts';
import type { CoreDeps } from './deps.ts';

/**
 * What one listing page may read, every hit together: a page of 1,000 records of the 2 MiB each
 * may hold would be 2 GB, read, parsed and written out by one request. 32 MiB is sixteen such
 * records, or thousands of ordinary ones.
 */
export const LISTING_PAGE_BYTES = 32 * 1024 * 1024;
/** A stored record is its metadata (at most METADATA_LIMITS.maxSerialized) and, beside it, its access, files and parent fields. */
const LARGEST_RECORD_BYTES = 3 * METADATA_LIMITS.maxSerialized;

/**
 * Refuses a page (of search hits, or of a record's versions) whose records hold more than a page
 * may read, by the stored sizes alone, and takes what it will hold from `memory`, the host's.
 * Without one, pages of few enough records that even the largest fit are not
 * weighed: the usual page of 10 costs no extra read.
 */
export async function weighPage(deps: CoreDeps, draftIds: readonly string[], publishedIds: readonly string[], memory?: AnswerMemory): Promise<void> {
  const budget = deps.settings.maxPageBytes ?? LISTING_PAGE_BYTES;
  const count = draftIds.length + publishedIds.length;
  if (count === 0 || (memory === undefined && count * LARGEST_RECORD_BYTES <= budget)) return;
  const records = deps.repos.records;
  const [drafts, published] = await Promise.all([
    draftIds.length > 0 ? records.storedSizes('draft', draftIds) : new Map<string, number>(),
    publishedIds.length > 0 ? records.storedSizes('published', publishedIds) : new Map<string, number>(),
  ]);
  let bytes = 0;
  for (const size of [...drafts.values(), ...published.values()]) bytes += size;
  if (bytes <= budget) {
    memory?.take(bytes);
    return;
  }
  const amount = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);
  throw invalid('search.page_too_large', 'Invalid querystring parameters.', [
    { field: 'size', messages: [`The records of this page hold ${amount(bytes)}, more than the ${amount(budget)} one page may read; ask for fewer (a smaller size).`] },
  ]);
}

/** What answering one stored draft or version will hold, taken from `memory` before it is read. */
export async function weighRecord(deps: CoreDeps, state: 'draft' | 'published', id: string, memory: AnswerMemory | undefined): Promise<void> {
  if (memory === undefined) return;
  memory.take((await deps.repos.records.storedSizes(state, [id])).get(id) ?? 0);
}
