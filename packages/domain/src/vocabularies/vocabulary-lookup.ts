import type { VocabularyEntry, VocabularyType } from '../model/types.ts';
import type { VocabularyRepository } from '../ports.ts';
import { defaultEntry } from './defaults.ts';

export interface VocabularyLookup {
  get(type: VocabularyType, ids: readonly string[]): Promise<Map<string, VocabularyEntry>>;
}

/** Imported entries win; the shipped defaults answer the rest. */
export function createVocabularyLookup(repo: VocabularyRepository): VocabularyLookup {
  return {
    async get(type, ids) {
      const found = ids.length > 0 ? await repo.get(type, ids) : new Map<string, VocabularyEntry>();
      for (const id of ids) {
        if (found.has(id)) continue;
        const fallback = defaultEntry(type, id);
        if (fallback) found.set(id, fallback);
      }
      return found;
    },
  };
}
