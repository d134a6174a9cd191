import { fuzzyExpansions } from '@krs/domain/search';
import { nextSearchTurn } from './search-turns.ts';

/** Vocabulary words measured per turn of the event loop: about a millisecond of edit distances. */
const WORDS_PER_SLICE = 4000;

/**
 * `fuzzyExpansions` over a query's slice of the vocabulary (up to 20 000 words), a part per turn
 * of the event loop: in one piece it held the loop for up to 38 ms for one anonymous query. The
 * closest words of the whole are the closest among each part's closest, so the parts' answers
 * are measured once more together.
 */
export async function expandInSlices(word: string, vocabulary: readonly string[]): Promise<string[]> {
  if (vocabulary.length <= WORDS_PER_SLICE) return fuzzyExpansions(word, vocabulary);
  const closest: string[] = [];
  for (let start = 0; start < vocabulary.length; start += WORDS_PER_SLICE) {
    if (start > 0) await nextSearchTurn();
    closest.push(...fuzzyExpansions(word, vocabulary.slice(start, start + WORDS_PER_SLICE)));
  }
  return fuzzyExpansions(word, closest);
}
