import type { VocabularyEntry, VocabularyType } from '../model/types.ts';
import type { CoreDeps } from './deps.ts';

/** Loads entries in chunks; re-importing the same file changes nothing (upsert by type and id). */
export async function importVocabulary(deps: CoreDeps, type: VocabularyType, entries: VocabularyEntry[], onProgress?: (done: number, total: number) => void): Promise<number> {
  const chunk = 1000;
  let written = 0;
  for (let i = 0; i < entries.length; i += chunk) {
    written += await deps.repos.vocabularies.upsert(entries.slice(i, i + chunk).map((e) => ({ ...e, type })));
    onProgress?.(Math.min(i + chunk, entries.length), entries.length);
  }
  return written;
}
