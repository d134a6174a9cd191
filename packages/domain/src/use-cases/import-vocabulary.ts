import { DomainError } from '../errors.ts';
import type { VocabularyEntry, VocabularyType } from '../model/types.ts';
import { parseVocabularyFile } from '../vocabularies/parse-vocabulary-file.ts';
import { vocabularyIdsUsed } from '../vocabularies/vocabulary-uses.ts';
import type { CoreDeps } from './deps.ts';

export type ImportProgress = (done: number, total: number) => void;

/** Loads entries in chunks; re-importing the same file changes nothing (upsert by type and id). */
export async function importVocabulary(deps: CoreDeps, type: VocabularyType, given: VocabularyEntry[], onProgress?: ImportProgress): Promise<number> {
  // A file may name an id twice (GEO's target_audience.yaml names two): the later entry wins, as
  // a second import would have it, and the count says how many entries the type gained or changed.
  const entries = [...new Map(given.map((e) => [e.id, e])).values()];
  const chunk = 1000;
  let written = 0;
  for (let i = 0; i < entries.length; i += chunk) {
    written += await deps.repos.vocabularies.upsert(entries.slice(i, i + chunk).map((e) => ({ ...e, type })));
    onProgress?.(Math.min(i + chunk, entries.length), entries.length);
  }
  return written;
}

/**
 * Imports an InvenioRDM vocabulary file (YAML list or licenses CSV). A file whose entries belong
 * to another vocabulary is refused whole (`vocabulary.type_mismatch`) before anything is written.
 */
export async function importVocabularyFile(
  deps: CoreDeps,
  type: VocabularyType,
  text: string,
  format: 'yaml' | 'csv',
  onProgress?: ImportProgress,
): Promise<number> {
  return importVocabulary(deps, type, parseVocabularyFile(type, text, format), onProgress);
}

/** Imported entries of a type (the shipped defaults are not listed: they cannot be removed). */
export function listVocabulary(deps: CoreDeps, type: VocabularyType): Promise<VocabularyEntry[]> {
  return deps.repos.vocabularies.list(type);
}

/**
 * Removes imported entries. Ids that a published version of any record uses are refused
 * (`vocabulary.in_use`, nothing removed): its metadata would no longer expand. Drafts that use
 * a removed id get a draft error on their next save, as for any unknown id.
 */
export async function removeVocabularyEntries(deps: CoreDeps, type: VocabularyType, ids: readonly string[]): Promise<{ removed: string[]; unknown: string[] }> {
  return deps.uow.run(async (tx) => {
    const wanted = [...new Set(ids)];
    const known = await tx.vocabularies.get(type, wanted);
    const unknown = wanted.filter((id) => !known.has(id));
    const removable = new Set(known.keys());
    const inUse = new Map<string, string>();
    for (const parentId of await tx.records.listParentIds(['resource', 'package'])) {
      for (const version of await tx.records.listPublishedVersions(parentId)) {
        for (const id of vocabularyIdsUsed(type, version.metadata)) {
          if (removable.has(id) && !inUse.has(id)) inUse.set(id, version.id);
        }
      }
    }
    if (inUse.size > 0) {
      const list = [...inUse].map(([id, record]) => `"${id}" (used by ${record})`).join(', ');
      throw new DomainError('conflict', 'vocabulary.in_use', `Published records use ${list}; nothing was removed.`);
    }
    const removed = [...removable];
    await tx.vocabularies.remove(type, removed);
    return { removed, unknown };
  });
}
